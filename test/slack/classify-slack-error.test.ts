import { ErrorCode } from "@slack/web-api";
import { describe, expect, it } from "vitest";
import { classifySlackError } from "../../src/slack/classify-slack-error.js";

const coded = (code: string, extra: Record<string, unknown>) => Object.assign(new Error(code), { code, ...extra });

describe("classifySlackError", () => {
  it("pauses the channel on a 429 for the Retry-After, and on a ratelimited answer", () => {
    expect(classifySlackError(coded(ErrorCode.RateLimitedError, { retryAfter: 7 }))).toEqual({
      kind: "rate-limited",
      code: "ratelimited",
      retryAfterMs: 7000,
    });
    expect(classifySlackError(coded(ErrorCode.PlatformError, { data: { ok: false, error: "ratelimited" } })).kind).toBe(
      "rate-limited",
    );
  });

  it("retries network errors, 5xx and Slack's internal errors", () => {
    expect(classifySlackError(coded(ErrorCode.RequestError, { original: new Error("ECONNRESET") })).kind).toBe(
      "retryable",
    );
    expect(classifySlackError(coded(ErrorCode.HTTPError, { statusCode: 503 }))).toMatchObject({
      kind: "retryable",
      code: "http_503",
    });
    expect(classifySlackError(coded(ErrorCode.PlatformError, { data: { error: "internal_error" } })).kind).toBe(
      "retryable",
    );
  });

  it("treats configuration problems as permanent, each with the fix", () => {
    for (const error of ["channel_not_found", "not_in_channel", "invalid_auth", "msg_too_long", "some_future_error"]) {
      const failure = classifySlackError(coded(ErrorCode.PlatformError, { data: { ok: false, error } }));
      expect(failure).toMatchObject({ kind: "permanent", code: error });
      if (failure.kind === "permanent") expect(failure.fix.length).toBeGreaterThan(20);
    }
    expect(classifySlackError(coded(ErrorCode.HTTPError, { statusCode: 404 }))).toMatchObject({ kind: "permanent" });
  });
});
