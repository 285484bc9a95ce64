import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookSignatureError } from "../errors.js";

export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface ParsedSignature {
  readonly timestamp: number;
  readonly signatures: readonly string[];
}

/** Parses `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`; unknown schemes are ignored (future `v2`). */
export function parseSignatureHeader(header: string | undefined): ParsedSignature {
  if (header === undefined || header.trim() === "") {
    throw new WebhookSignatureError("missing", "X-Service-Signature header is missing");
  }
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === "v1" && /^[0-9a-fA-F]{64}$/.test(value)) signatures.push(value.toLowerCase());
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw new WebhookSignatureError("malformed", "X-Service-Signature must be t=<unix seconds>,v1=<64 hex digits>");
  }
  return { timestamp, signatures };
}

/** The hex HMAC-SHA256 of `<t>.<raw body>` (spec 6.4), also used by tests and the emulator's peers. */
export function computeSignature(secret: string, timestamp: number, rawBody: Buffer | string): string {
  return createHmac("sha256", secret)
    .update(`${timestamp}.`)
    .update(typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody)
    .digest("hex");
}

export interface VerifySignatureInput {
  readonly header: string | undefined;
  readonly rawBody: Buffer;
  /** Every secret currently valid: more than one during a rotation. */
  readonly secrets: readonly string[];
  /** Current time in unix seconds. */
  readonly nowSeconds: number;
  readonly toleranceSeconds?: number;
}

/**
 * Verifies a webhook delivery (spec 6.4): any `v1` signature matching any configured secret,
 * compared in constant time, with a timestamp within the tolerance either way. Returns the
 * signed timestamp; throws WebhookSignatureError (reason missing, malformed, mismatch, stale).
 */
export function verifySignature(input: VerifySignatureInput): number {
  const { timestamp, signatures } = parseSignatureHeader(input.header);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (input.secrets.length === 0) {
    throw new WebhookSignatureError("mismatch", "no webhook secret is configured (alerts.webhook.secrets)");
  }
  let matched = false;
  for (const secret of input.secrets) {
    const expected = Buffer.from(computeSignature(secret, timestamp, input.rawBody), "hex");
    for (const candidate of signatures) {
      // Every comparison runs, so timing says nothing about which secret or signature matched.
      if (timingSafeEqual(expected, Buffer.from(candidate, "hex"))) matched = true;
    }
  }
  if (!matched) throw new WebhookSignatureError("mismatch", "no v1 signature matches a configured secret");
  if (Math.abs(input.nowSeconds - timestamp) > tolerance) {
    throw new WebhookSignatureError("stale", `signature timestamp ${timestamp} is more than ${tolerance} s from now`);
  }
  return timestamp;
}
