import { describe, expect, it } from "vitest";
import { computeSignature, verifySignature } from "../../src/alerts/verify-signature.js";
import { WebhookSignatureError } from "../../src/errors.js";

const body = Buffer.from('{"id":"evt_1_1","type":"ping"}');
const now = 1_800_000_000;

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof WebhookSignatureError) return error.reason;
    throw error;
  }
  return "accepted";
}

describe("verifySignature", () => {
  const sign = (secret: string, t = now, raw: Buffer = body) => computeSignature(secret, t, raw);

  it("accepts a valid signature and returns its timestamp", () => {
    const header = `t=${now},v1=${sign("whsec_a")}`;
    expect(verifySignature({ header, rawBody: body, secrets: ["whsec_a"], nowSeconds: now })).toBe(now);
  });

  it("accepts any v1 against any configured secret (rotation)", () => {
    const header = `t=${now},v1=${"0".repeat(64)},v1=${sign("whsec_new")}`;
    expect(
      reasonOf(() => verifySignature({ header, rawBody: body, secrets: ["whsec_old", "whsec_new"], nowSeconds: now })),
    ).toBe("accepted");
  });

  it("rejects a wrong secret, a changed body and a changed timestamp", () => {
    const good = sign("whsec_a");
    const verify = (header: string, raw = body) =>
      reasonOf(() => verifySignature({ header, rawBody: raw, secrets: ["whsec_a"], nowSeconds: now }));
    expect(verify(`t=${now},v1=${sign("whsec_b")}`)).toBe("mismatch");
    expect(verify(`t=${now},v1=${good}`, Buffer.from(`${body.toString()} `))).toBe("mismatch");
    expect(verify(`t=${now + 1},v1=${good}`)).toBe("mismatch");
  });

  it("enforces the tolerance both ways", () => {
    const verify = (t: number) =>
      reasonOf(() =>
        verifySignature({
          header: `t=${t},v1=${sign("s3cret", t)}`,
          rawBody: body,
          secrets: ["s3cret"],
          nowSeconds: now,
        }),
      );
    expect(verify(now - 300)).toBe("accepted");
    expect(verify(now + 300)).toBe("accepted");
    expect(verify(now - 301)).toBe("stale");
    expect(verify(now + 301)).toBe("stale");
  });

  it("tells missing from malformed headers", () => {
    const verify = (header: string | undefined) =>
      reasonOf(() => verifySignature({ header, rawBody: body, secrets: ["s"], nowSeconds: now }));
    expect(verify(undefined)).toBe("missing");
    expect(verify("")).toBe("missing");
    expect(verify("v1=abc")).toBe("malformed");
    expect(verify(`t=${now}`)).toBe("malformed");
    expect(verify(`t=soon,v1=${"a".repeat(64)}`)).toBe("malformed");
  });
});
