import { createHmac, timingSafeEqual } from "node:crypto";

/** Slack's request signing: a request older (or newer) than this is refused as a possible replay. */
export const SLACK_SIGNATURE_TOLERANCE_SECONDS = 300;

export type SlackSignatureCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: "missing" | "malformed" | "stale" | "mismatch" };

/**
 * Verifies `X-Slack-Signature` (`v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` with the
 * signing secret) and `X-Slack-Request-Timestamp` (within 5 minutes of now). Constant-time
 * compare. Pure but for the HMAC.
 */
export function verifySlackSignature(input: {
  readonly secret: string;
  readonly rawBody: string;
  readonly timestamp: string | undefined;
  readonly signature: string | undefined;
  readonly nowMs: number;
  readonly toleranceSeconds?: number;
}): SlackSignatureCheck {
  if (!input.timestamp || !input.signature) return { ok: false, reason: "missing" };
  if (!/^\d{1,12}$/.test(input.timestamp) || !/^v0=[0-9a-f]{64}$/.test(input.signature)) {
    return { ok: false, reason: "malformed" };
  }
  const age = Math.abs(input.nowMs / 1000 - Number(input.timestamp));
  if (age > (input.toleranceSeconds ?? SLACK_SIGNATURE_TOLERANCE_SECONDS)) return { ok: false, reason: "stale" };
  const expected = Buffer.from(
    `v0=${createHmac("sha256", input.secret).update(`v0:${input.timestamp}:${input.rawBody}`).digest("hex")}`,
  );
  const given = Buffer.from(input.signature);
  return given.length === expected.length && timingSafeEqual(given, expected)
    ? { ok: true }
    : { ok: false, reason: "mismatch" };
}
