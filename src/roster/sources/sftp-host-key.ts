import { createHash } from "node:crypto";

/** The SHA-256 fingerprint of a host key blob as `ssh-keygen -l` prints it: base64, no padding. */
export function sshFingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash("sha256").update(keyBlob).digest("base64").replace(/=+$/, "")}`;
}

/** The key type named at the start of a key blob (`ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`). */
export function keyType(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return "unknown";
  const length = keyBlob.readUInt32BE(0);
  return length > 0 && length < 64 && keyBlob.length >= 4 + length
    ? keyBlob.subarray(4, 4 + length).toString("latin1")
    : "unknown";
}

/** The configured fingerprint as sshFingerprint prints one: `SHA256:` before it, no padding. */
export function expectedFingerprint(hostKey: string): string {
  return `SHA256:${hostKey.replace(/^SHA256:/, "").replace(/=+$/, "")}`;
}
