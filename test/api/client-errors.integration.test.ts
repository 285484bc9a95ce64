import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RateLimiter, resolvedCompanyName } from "../../src/api/index.js";
import { MAX_RATE_LIMIT_PAUSE_MS } from "../../src/api/retry-policy.js";
import { MAX_RESPONSE_BYTES } from "../../src/api/transport.js";
import {
  type ApiError,
  ApiNetworkError,
  ApiResponseError,
  ApiTimeoutError,
  AuthenticationError,
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  PaymentRequiredError,
  PermissionError,
  QuotaExceededError,
  RateLimitError,
  SeatReservationBusyError,
  ServerError,
} from "../../src/errors.js";
import { deferred } from "../helpers/deferred.js";
import { type Harness, startHarness } from "./support/client-setup.js";
import { employeeWire } from "./support/fixtures.js";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("error statuses map to their classes", () => {
  it.each([
    [400, "INVALID_BODY", InvalidRequestError],
    [401, undefined, AuthenticationError],
    [402, "SUBSCRIPTION_INACTIVE", PaymentRequiredError],
    [402, "TRIAL_LIMIT_REACHED", PaymentRequiredError],
    [402, "SEAT_CHARGE_FAILED", PaymentRequiredError],
    [403, "INSUFFICIENT_SCOPE", PermissionError],
    [404, undefined, NotFoundError],
    [409, "EMPLOYEE_EXISTS", ConflictError],
    [409, "COMPETITOR_IDENTITY_MISMATCH", ConflictError],
    [429, "SEAT_QUOTA_EXCEEDED", QuotaExceededError],
    [429, "ROW_QUOTA_EXCEEDED", QuotaExceededError],
  ] as const)("%i %s -> %s, never retried", async (status, code, cls) => {
    h.server.enqueue({
      status,
      body: { error: "Sentence.", ...(code ? { code } : {}) },
      headers: { "retry-after": "3600" },
    });
    const error = await caught(h.client({ maxRetries: 5 }).getEmployee(1));
    expect(error).toBeInstanceOf(cls);
    expect(error).toMatchObject({ status, code, method: "GET", path: "/employees/1", retryAfterSeconds: 3600 });
    expect(h.server.requests).toHaveLength(1);
  });

  it("503 SEAT_RESERVATION_BUSY and per-minute 429 surface once retries are spent", async () => {
    h.server.enqueue({
      status: 503,
      body: { error: "busy", code: "SEAT_RESERVATION_BUSY" },
      headers: { "retry-after": "1" },
    });
    const busy = await caught(h.client({ maxRetries: 0 }).addEmployee({ networkUrl: "https://www.linkedin.com/in/a" }));
    expect(busy).toBeInstanceOf(SeatReservationBusyError);
    expect(busy).toMatchObject({ code: "SEAT_RESERVATION_BUSY", retryAfterSeconds: 1 });
    h.server.enqueue({ status: 429, body: { error: "slow down" }, headers: { "retry-after": "1" } });
    const limited = await caught(h.client({ maxRetries: 0 }).me());
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited).toMatchObject({ code: undefined, retryAfterSeconds: 1 });
  });

  it("keeps code only when it is one of the ten spec codes; 5xx is a ServerError", async () => {
    h.server.enqueue({ status: 400, body: { error: "nope", code: "SOMETHING_NEW" } });
    const e = await caught(h.client().me());
    expect(e).toBeInstanceOf(InvalidRequestError);
    expect((e as ApiError).code).toBeUndefined();
    h.server.enqueue({ status: 500, rawBody: "<html>oops</html>" });
    const s = await caught(h.client({ maxRetries: 0 }).me());
    expect(s).toBeInstanceOf(ServerError);
    expect((s as ApiError).message).toContain("HTTP 500");
  });

  it("exposes the 409 mismatch body so the resolved company can be read", async () => {
    h.server.enqueue({
      status: 409,
      body: { error: "mismatch", code: "COMPETITOR_IDENTITY_MISMATCH", resolvedCompany: { name: "Initech" } },
    });
    const e = await caught(
      h.client().addCompetitor({ companyNetworkUrl: "https://www.linkedin.com/company/initech", name: "Globex" }),
    );
    expect(e).toBeInstanceOf(ConflictError);
    expect(resolvedCompanyName((e as ApiError).body)).toBe("Initech");
  });
});

describe("retries over real HTTP", () => {
  it("honours Retry-After of a per-minute 429 and pauses the shared bucket", async () => {
    // The client's and the bucket's clocks are fakes that move by what they are asked to wait.
    let clock = 0;
    const bucketWaits: number[] = [];
    const limiter = new RateLimiter({
      requestsPerMinute: 6_000,
      now: () => clock,
      sleep: async (ms) => {
        bucketWaits.push(ms);
        clock += ms;
      },
    });
    const clientWaits: number[] = [];
    h.server.enqueue({ status: 429, body: { error: "slow down" }, headers: { "retry-after": "1" } });
    h.server.setHandler(() => ({
      status: 200,
      body: { organization: { id: 1, name: "A" }, competitors: [], scopes: [] },
    }));
    await h
      .client({
        rateLimiter: limiter,
        sleep: async (ms) => {
          clientWaits.push(ms);
        },
      })
      .me();
    expect(h.server.requests).toHaveLength(2);
    expect(clientWaits).toEqual([1000]);
    // Everyone on the bucket is held for the second the 429 asked for, counted from when it came.
    expect(limiter.pausedUntilMs).toBe(1000);
    expect(bucketWaits[0]).toBe(1000);
  });

  it("waits the full Retry-After (seconds or HTTP-date) of 503 SEAT_RESERVATION_BUSY, up to an hour", async () => {
    const sleeps: number[] = [];
    const now = Date.parse("2026-11-23T10:00:00Z");
    const client = h.client({
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      now: () => now,
      maxRetries: 5,
    });
    h.server.enqueue(
      { status: 503, body: { error: "busy", code: "SEAT_RESERVATION_BUSY" }, headers: { "retry-after": "3600" } },
      {
        status: 503,
        body: { error: "busy", code: "SEAT_RESERVATION_BUSY" },
        headers: { "retry-after": "Mon, 23 Nov 2026 10:00:30 GMT" },
      },
      { status: 201, body: employeeWire(5, { status: "importing" }) },
    );
    const result = await client.addEmployee({ networkUrl: "https://www.linkedin.com/in/a" });
    expect(result).toMatchObject({ outcome: "created", employee: { id: 5 }, afterRetry: true });
    expect(sleeps).toEqual([3_600_000, 30_000]);
    expect(h.server.requests.map((r) => r.method + r.path)).toEqual(Array(3).fill("POST/employees"));
  });

  it("gives a per-minute 429 with a hostile Retry-After up at once and pauses the bucket for the cap only", async () => {
    let clock = Date.parse("2026-11-23T10:00:00Z");
    const limiter = new RateLimiter({ requestsPerMinute: 6_000, now: () => clock });
    const sleeps: number[] = [];
    h.server.enqueue({ status: 429, body: { error: "slow down" }, headers: { "retry-after": "99999999" } });
    const failure = await h
      .client({
        rateLimiter: limiter,
        now: () => clock,
        sleep: async (ms) => {
          sleeps.push(ms);
          clock += ms;
        },
      })
      .me()
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RateLimitError);
    expect((failure as Error).message).toMatch(
      /asked to wait 99999999 s before retrying, longer than this client waits: the request was given up; the request budget is paused for 60 s/,
    );
    expect(sleeps).toEqual([]);
    expect(h.server.requests).toHaveLength(1);
    expect(limiter.pausedUntilMs - clock).toBe(MAX_RATE_LIMIT_PAUSE_MS);
  });

  it("never pauses the budget for a daily allowance 429 (adds are deferred, polling goes on)", async () => {
    let clock = 0;
    const limiter = new RateLimiter({ requestsPerMinute: 6_000, now: () => clock });
    h.server.enqueue({
      status: 429,
      body: { error: "daily allowance spent", code: "SEAT_QUOTA_EXCEEDED" },
      headers: { "retry-after": "86400" },
    });
    const failure = await h
      .client({ rateLimiter: limiter, now: () => clock })
      .addEmployee({ networkUrl: "https://www.linkedin.com/in/a" })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(QuotaExceededError);
    expect(limiter.pausedUntilMs).toBe(0);
    clock += 1;
    h.server.setHandler(() => ({
      status: 200,
      body: { organization: { id: 1, name: "A" }, competitors: [], scopes: [] },
    }));
    expect((await h.client({ rateLimiter: limiter, now: () => clock }).me()).organization.id).toBe(1);
  });

  it("retries 5xx for GET", async () => {
    h.server.enqueue({ status: 500, body: { error: "x" } }, { status: 502, rawBody: "bad gateway" });
    h.server.setHandler(() => ({ status: 200, body: employeeWire(1) }));
    expect((await h.client().getEmployee(1)).id).toBe(1);
    expect(h.server.requests).toHaveLength(3);
  });

  it.each([
    [
      "bulk add",
      (c: ReturnType<Harness["client"]>) => c.bulkAddEmployees({ networkUrls: ["https://www.linkedin.com/in/a"] }),
    ],
    ["competitor", (c: ReturnType<Harness["client"]>) => c.addCompetitor({ companyNetworkUrl: "https://x/company/a" })],
    ["webhook", (c: ReturnType<Harness["client"]>) => c.addWebhook({ url: "https://example.com/h" })],
  ])("does not retry a %s POST after a 5xx", async (_name, call) => {
    h.server.setHandler(() => ({ status: 500, body: { error: "x" } }));
    expect(await caught(call(h.client()))).toBeInstanceOf(ServerError);
    expect(h.server.requests).toHaveLength(1);
  });

  it("reads a retried single add that answers 409 EMPLOYEE_EXISTS as already-exists", async () => {
    h.server.enqueue(
      { status: 500, body: { error: "x" } },
      { status: 409, body: { error: "exists", code: "EMPLOYEE_EXISTS" } },
    );
    const r = await h.client().addEmployee({ networkUrl: "https://www.linkedin.com/in/a" });
    expect(r).toEqual({ outcome: "already-exists", afterRetry: true });
    expect(h.server.requests).toHaveLength(2);
  });

  it("times out into ApiTimeoutError, and retries a GET after a timeout", async () => {
    h.server.enqueue({ status: 200, body: employeeWire(1), delayMs: 1_500 });
    const e = await caught(h.client({ timeoutMs: 150, maxRetries: 0 }).getEmployee(1));
    expect(e).toBeInstanceOf(ApiTimeoutError);
    expect(e).toMatchObject({ timeoutMs: 150, path: "/employees/1" });

    h.server.enqueue({ status: 200, body: employeeWire(2), delayMs: 1_500 });
    h.server.setHandler(() => ({ status: 200, body: employeeWire(2) }));
    expect((await h.client({ timeoutMs: 150 }).getEmployee(2)).id).toBe(2);
    expect(h.server.requests).toHaveLength(3);
  });

  it("does not retry a webhook POST after a timeout", async () => {
    h.server.setHandler(() => ({ status: 201, body: { id: "whe_1" }, delayMs: 1_500 }));
    expect(await caught(h.client({ timeoutMs: 150 }).addWebhook({ url: "https://example.com/h" }))).toBeInstanceOf(
      ApiTimeoutError,
    );
    expect(h.server.requests).toHaveLength(1);
  });

  it("maps a dropped connection to ApiNetworkError and retries it for GET", async () => {
    h.server.enqueue({ destroy: true });
    const e = await caught(h.client({ maxRetries: 0 }).me());
    expect(e).toBeInstanceOf(ApiNetworkError);
    h.server.enqueue({ destroy: true });
    h.server.setHandler(() => ({
      status: 200,
      body: { organization: { id: 1, name: "A" }, competitors: [], scopes: ["read"] },
    }));
    expect((await h.client().me()).scopes).toEqual(["read"]);
  });

  it("maps a refused connection to ApiNetworkError", async () => {
    const url = h.server.baseUrl;
    await h.server.close();
    const { RetentionClient } = await import("../../src/api/client.js");
    const client = new RetentionClient({ baseUrl: url, apiKey: "k", maxRetries: 1, retryBaseDelayMs: 1 });
    expect(await caught(client.me())).toBeInstanceOf(ApiNetworkError);
    await client.close();
    h = await startHarness();
  });

  it("rejects a non-JSON or schema-violating 2xx with ApiResponseError", async () => {
    h.server.enqueue({ status: 201, rawBody: "<html>ok</html>" });
    const e = await caught(h.client().addEmployee({ networkUrl: "https://www.linkedin.com/in/a" }));
    expect(e).toBeInstanceOf(ApiResponseError);
    expect((e as Error).message).toMatch(/POST \/employees.*not JSON/);
    h.server.enqueue({ status: 200, body: { ...employeeWire(5), name: undefined } });
    const f = await caught(h.client({ maxRetries: 0 }).getEmployee(5));
    expect(f).toBeInstanceOf(ApiResponseError);
    expect((f as Error).message).toMatch(/GET \/employees\/5.*name/);
  });

  it("refuses an answer larger than 32 MiB without reading it whole", async () => {
    h.server.enqueue({ status: 200, rawBody: `{"items":["${"x".repeat(MAX_RESPONSE_BYTES)}"]}` });
    const e = await caught(h.client({ maxRetries: 0 }).me());
    expect(e).toBeInstanceOf(ApiResponseError);
    expect((e as Error).message).toMatch(/GET \/me.*larger than 32 MiB/);
  });

  it("gives up at once when the client's signal aborts, in flight or during a Retry-After wait", async () => {
    const inFlight = new AbortController();
    // Aborted once the server has the request, whose answer it holds back meanwhile; the client's
    // time-out is longer than that, so only the abort can end the call before the answer.
    h.server.setHandler(() => {
      inFlight.abort(new Error("shutting down"));
      return { status: 200, body: employeeWire(1), delayMs: 10_000 };
    });
    const aborted = h.client({ signal: inFlight.signal, timeoutMs: 60_000 }).getEmployee(1);
    await expect(aborted).rejects.toThrow("shutting down");

    const waiting = new AbortController();
    const waitStarted = deferred<number>();
    h.server.enqueue({ status: 429, body: { error: "slow" }, headers: { "retry-after": "60" } });
    const held = h
      .client({
        signal: waiting.signal,
        rateLimiter: new RateLimiter(),
        // A wait that never ends by itself: only the abort can end it.
        sleep: (ms) => {
          waitStarted.resolve(ms);
          return new Promise<void>(() => {});
        },
      })
      .me();
    expect(await waitStarted.promise).toBe(60_000);
    waiting.abort(new Error("stop"));
    await expect(held).rejects.toThrow("stop");
    expect(h.server.requests).toHaveLength(2);
  });
});
