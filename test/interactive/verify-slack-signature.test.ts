import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifySlackSignature } from "../../src/interactive/verify-slack-signature.js";

const secret = "8f742231b10e8888abcd99yyyzzz85a5";
const body = "payload=%7B%22type%22%3A%22block_actions%22%7D";
const sign = (ts: number, raw = body, key = secret) =>
  `v0=${createHmac("sha256", key).update(`v0:${ts}:${raw}`).digest("hex")}`;

describe("verifySlackSignature", () => {
  const now = 1_700_000_000_000;
  const ts = now / 1000;

  it("accepts Slack's v0 signature within five minutes either way", () => {
    for (const at of [ts, ts - 299, ts + 299]) {
      expect(
        verifySlackSignature({ secret, rawBody: body, timestamp: String(at), signature: sign(at), nowMs: now }),
      ).toEqual({ ok: true });
    }
  });

  it("refuses a stale, a wrong, a tampered, a missing and a malformed signature", () => {
    const check = (timestamp: string | undefined, signature: string | undefined, rawBody = body) =>
      verifySlackSignature({ secret, rawBody, timestamp, signature, nowMs: now });
    expect(check(String(ts - 301), sign(ts - 301))).toEqual({ ok: false, reason: "stale" });
    expect(check(String(ts), sign(ts, body, "another-secret"))).toEqual({ ok: false, reason: "mismatch" });
    expect(check(String(ts), sign(ts), `${body}x`)).toEqual({ ok: false, reason: "mismatch" });
    expect(check(undefined, sign(ts))).toEqual({ ok: false, reason: "missing" });
    expect(check(String(ts), undefined)).toEqual({ ok: false, reason: "missing" });
    expect(check(String(ts), "v1=abc")).toEqual({ ok: false, reason: "malformed" });
    expect(check("soon", sign(ts))).toEqual({ ok: false, reason: "malformed" });
  });
});
