import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "../../src/api/retry-after.js";
import {
  isRetrySafe,
  MAX_RATE_LIMIT_PAUSE_MS,
  MAX_RETRY_AFTER_WAIT_MS,
  shouldRetry,
} from "../../src/api/retry-policy.js";
import {
  ApiNetworkError,
  ApiResponseError,
  ApiTimeoutError,
  apiErrorFromStatus,
  type ServiceErrorCode,
} from "../../src/errors.js";

function statusError(
  method: string,
  path: string,
  status: number,
  code?: ServiceErrorCode,
  retryAfterSeconds?: number,
) {
  return apiErrorFromStatus({ status, code, message: "x", method, path, retryAfterSeconds });
}

const base = { attempt: 1, maxRetries: 5, baseDelayMs: 100, random: () => 0.5 };

describe("shouldRetry", () => {
  it.each([
    ["GET", "/changes"],
    ["POST", "/employees/bulk"],
    ["POST", "/competitors"],
    ["DELETE", "/employees/3"],
  ])("waits the full Retry-After of a per-minute 429 for %s %s", (method, path) => {
    const d = shouldRetry({ ...base, method, path, error: statusError(method, path, 429, undefined, 30) });
    expect(d).toMatchObject({ retry: true, delayMs: 30_000, reason: "rate-limited" });
  });

  it("waits a 503 SEAT_RESERVATION_BUSY's Retry-After beyond the backoff ceiling, up to an hour", () => {
    const error = statusError("POST", "/employees", 503, "SEAT_RESERVATION_BUSY", 1800);
    const d = shouldRetry({ ...base, maxDelayMs: 1000, method: "POST", path: "/employees", error });
    expect(d).toMatchObject({ retry: true, delayMs: 1_800_000, reason: "seat-reservation-busy" });
    const hostile = statusError("POST", "/employees", 503, "SEAT_RESERVATION_BUSY", 99_999_999);
    expect(shouldRetry({ ...base, method: "POST", path: "/employees", error: hostile })).toMatchObject({
      retry: false,
      reason: "retry-after-over-cap",
      cappedFromMs: 99_999_999_000,
    });
    expect(MAX_RETRY_AFTER_WAIT_MS).toBe(3_600_000);
  });

  it("pauses the budget as long as a per-minute 429 asks, up to the cap, and then gives the request up", () => {
    const within = statusError("GET", "/changes", 429, undefined, 60);
    expect(shouldRetry({ ...base, method: "GET", path: "/changes", error: within })).toMatchObject({
      retry: true,
      delayMs: 60_000,
      pauseBudgetMs: 60_000,
    });
    for (const seconds of [61, 3600, 99_999_999]) {
      const error = statusError("GET", "/changes", 429, undefined, seconds);
      expect(shouldRetry({ ...base, method: "GET", path: "/changes", error })).toMatchObject({
        retry: false,
        reason: "retry-after-over-cap",
        pauseBudgetMs: MAX_RATE_LIMIT_PAUSE_MS,
        cappedFromMs: seconds * 1000,
      });
    }
    expect(MAX_RATE_LIMIT_PAUSE_MS).toBe(60_000);
  });

  it("still pauses the budget on a per-minute 429 that ends the retries", () => {
    const error = statusError("GET", "/me", 429, undefined, 20);
    expect(shouldRetry({ ...base, attempt: 6, method: "GET", path: "/me", error })).toMatchObject({
      retry: false,
      reason: "retries-exhausted",
      pauseBudgetMs: 20_000,
    });
  });

  it("never pauses anything on a daily allowance 429, however long its Retry-After", () => {
    for (const code of ["SEAT_QUOTA_EXCEEDED", "ROW_QUOTA_EXCEEDED"] as const) {
      const error = statusError("POST", "/employees", 429, code, 86_400);
      const d = shouldRetry({ ...base, method: "POST", path: "/employees", error });
      expect(d).toMatchObject({ retry: false, reason: "daily-allowance-spent" });
      expect(d.pauseBudgetMs).toBeUndefined();
    }
  });

  it("honours a 5xx's Retry-After only up to the cap", () => {
    const error = statusError("GET", "/changes", 502, undefined, 99_999_999);
    const d = shouldRetry({ ...base, method: "GET", path: "/changes", error });
    expect(d).toMatchObject({ retry: true, delayMs: MAX_RATE_LIMIT_PAUSE_MS, reason: "server-error" });
  });

  it("waits at least a second on a 429 without Retry-After", () => {
    const d = shouldRetry({ ...base, method: "GET", path: "/me", status: 429 });
    expect(d.retry).toBe(true);
    expect(d.delayMs).toBeGreaterThanOrEqual(1000);
  });

  it.each<[number, ServiceErrorCode | undefined]>([
    [429, "SEAT_QUOTA_EXCEEDED"],
    [429, "ROW_QUOTA_EXCEEDED"],
    [402, "SUBSCRIPTION_INACTIVE"],
    [402, "TRIAL_LIMIT_REACHED"],
    [402, "SEAT_CHARGE_FAILED"],
    [402, undefined],
    [400, "INVALID_BODY"],
    [401, undefined],
    [403, "INSUFFICIENT_SCOPE"],
    [404, undefined],
    [409, "EMPLOYEE_EXISTS"],
    [409, "COMPETITOR_IDENTITY_MISMATCH"],
  ])("never retries %i %s", (status, code) => {
    for (const [method, path] of [
      ["GET", "/employees"],
      ["POST", "/employees"],
    ] as const) {
      const d = shouldRetry({ ...base, method, path, error: statusError(method, path, status, code, 60) });
      expect(d.retry).toBe(false);
    }
  });

  it("backs off exponentially with full jitter on 5xx for idempotent requests", () => {
    const delays = [1, 2, 3, 4].map(
      (attempt) =>
        shouldRetry({ ...base, attempt, method: "GET", path: "/employees", error: statusError("GET", "/x", 502) })
          .delayMs,
    );
    expect(delays).toEqual([50, 100, 200, 400]);
    const low = shouldRetry({ ...base, random: () => 0, method: "PATCH", path: "/employees/1", status: 500 });
    expect(low).toMatchObject({ retry: true, delayMs: 0 });
    const capped = shouldRetry({
      ...base,
      attempt: 5,
      maxDelayMs: 300,
      method: "DELETE",
      path: "/webhooks/w",
      status: 500,
    });
    expect(capped.delayMs).toBe(150);
  });

  it("retries a single add (POST /employees) but no other POST after 5xx, timeout or lost connection", () => {
    const failures = (method: string, path: string) => [
      statusError(method, path, 500),
      new ApiTimeoutError(method, path, 10),
      new ApiNetworkError(method, path, "ECONNRESET"),
    ];
    for (const error of failures("POST", "/employees")) {
      expect(shouldRetry({ ...base, method: "POST", path: "/employees", error }).retry).toBe(true);
    }
    for (const path of ["/employees/bulk", "/competitors", "/webhooks"]) {
      for (const error of failures("POST", path)) {
        expect(shouldRetry({ ...base, method: "POST", path, error }).retry).toBe(false);
      }
    }
  });

  it("stops after maxRetries", () => {
    const error = statusError("GET", "/me", 429, undefined, 1);
    expect(shouldRetry({ ...base, attempt: 5, method: "GET", path: "/me", error }).retry).toBe(true);
    expect(shouldRetry({ ...base, attempt: 6, method: "GET", path: "/me", error })).toMatchObject({
      retry: false,
      reason: "retries-exhausted",
    });
    expect(shouldRetry({ ...base, maxRetries: 0, method: "GET", path: "/me", error }).retry).toBe(false);
  });

  it("retries a malformed body for GET only", () => {
    expect(
      shouldRetry({ ...base, method: "GET", path: "/me", error: new ApiResponseError("GET", "/me", 200, "x") }).retry,
    ).toBe(true);
    const post = new ApiResponseError("POST", "/employees", 201, "x");
    expect(shouldRetry({ ...base, method: "POST", path: "/employees", error: post }).retry).toBe(false);
  });

  it("does not retry unknown errors", () => {
    expect(shouldRetry({ ...base, method: "GET", path: "/me", error: new Error("boom") }).retry).toBe(false);
  });
});

describe("isRetrySafe", () => {
  it("ignores the query and a trailing slash", () => {
    expect(isRetrySafe("post", "/employees/?x=1")).toBe(true);
    expect(isRetrySafe("POST", "/employees/bulk")).toBe(false);
    expect(isRetrySafe("get", "/anything")).toBe(true);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-23T10:00:00Z");
  it("reads integer seconds and HTTP-dates", () => {
    expect(parseRetryAfter("1", now)).toBe(1);
    expect(parseRetryAfter(" 120 ", now)).toBe(120);
    expect(parseRetryAfter("Mon, 23 Nov 2026 10:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter("Mon, 23 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter(["5", "9"], now)).toBe(5);
  });
  it("is undefined when absent or unreadable", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });
});
