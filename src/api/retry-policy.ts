import { ApiError, ApiNetworkError, ApiResponseError, ApiTimeoutError } from "../errors.js";

/** What went wrong on one attempt: an error thrown by the transport, or a bare status. */
export interface RetryInput {
  readonly method: string;
  /** Path without query, relative to the base URL (`/employees/bulk`). */
  readonly path: string;
  readonly error?: unknown;
  /** Used when no error object is given. */
  readonly status?: number;
  readonly code?: string | undefined;
  readonly retryAfterSeconds?: number | undefined;
  /** 1-based number of the attempt that just failed. */
  readonly attempt: number;
  readonly maxRetries: number;
  /** Base of the exponential backoff (default 500 ms). */
  readonly baseDelayMs?: number;
  /** Ceiling of one backoff delay (default 30 s); never applied to a Retry-After wait. */
  readonly maxDelayMs?: number;
  /** Random source in [0, 1) for the jitter; tests pass a fixed one. */
  readonly random?: () => number;
}

export interface RetryDecision {
  readonly retry: boolean;
  readonly delayMs: number;
  /** Why, for the warn line: `rate-limited`, `seat-reservation-busy`, `server-error`, `timeout`, ... */
  readonly reason: string;
  /**
   * Per-minute 429 only: how long to pause the shared request budget, never more than
   * `MAX_RATE_LIMIT_PAUSE_MS`; set whether or not the request is retried.
   */
  readonly pauseBudgetMs?: number;
  /** The wait the service asked for (Retry-After, in ms) when it was longer than this client honours. */
  readonly cappedFromMs?: number;
}

/**
 * Longest a per-minute 429 pauses the shared budget: the per-minute window is spent within a
 * minute, so a longer `Retry-After` is not believed. Such a request is not retried (its job
 * fails and its next run asks again); the budget pauses for this cap.
 */
export const MAX_RATE_LIMIT_PAUSE_MS = 60_000;
/** Longest `Retry-After` of a 503 SEAT_RESERVATION_BUSY waited in-process; a longer one fails the request. */
export const MAX_RETRY_AFTER_WAIT_MS = 3_600_000;

const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * Whether a request may be repeated after a transient failure (5xx, timeout, lost connection),
 * when the server may already have acted. GET/PATCH/DELETE are idempotent. `POST /employees` is
 * safe because a repeated add answers 409 EMPLOYEE_EXISTS, which the client reads as success.
 * The other POSTs (bulk add, competitors, webhooks) could create twice: the caller re-reads state.
 */
export function isRetrySafe(method: string, path: string): boolean {
  const m = method.toUpperCase();
  if (IDEMPOTENT_METHODS.has(m)) return true;
  const p = path.split("?")[0]?.replace(/\/+$/, "") ?? "";
  return m === "POST" && p === "/employees";
}

function backoff(input: RetryInput): number {
  const base = input.baseDelayMs ?? 500;
  const ceiling = input.maxDelayMs ?? 30_000;
  const exp = Math.min(ceiling, base * 2 ** Math.max(0, input.attempt - 1));
  // Full jitter (AWS architecture blog): spreads retries of many clients over the whole window.
  return Math.floor((input.random ?? Math.random)() * exp);
}

function classify(input: RetryInput): {
  kind: "status" | "timeout" | "network" | "bad-body" | "unknown";
  status?: number;
  code?: string | undefined;
  retryAfterSeconds?: number | undefined;
} {
  const { error } = input;
  if (error instanceof ApiError) {
    return { kind: "status", status: error.status, code: error.code, retryAfterSeconds: error.retryAfterSeconds };
  }
  if (error instanceof ApiTimeoutError) return { kind: "timeout" };
  if (error instanceof ApiNetworkError) return { kind: "network" };
  if (error instanceof ApiResponseError) return { kind: "bad-body" };
  if (error === undefined && input.status !== undefined) {
    return { kind: "status", status: input.status, code: input.code, retryAfterSeconds: input.retryAfterSeconds };
  }
  return { kind: "unknown" };
}

const NO: (reason: string) => RetryDecision = (reason) => ({ retry: false, delayMs: 0, reason });

function isDailyAllowance(code: string | undefined): boolean {
  return code === "SEAT_QUOTA_EXCEEDED" || code === "ROW_QUOTA_EXCEEDED";
}

/** The per-minute 429: how long the budget pauses, and whether this request waits and tries again. */
function perMinuteLimit(input: RetryInput, c: { retryAfterSeconds?: number | undefined }): RetryDecision {
  const askedMs = c.retryAfterSeconds !== undefined ? c.retryAfterSeconds * 1000 : undefined;
  if (askedMs !== undefined && askedMs > MAX_RATE_LIMIT_PAUSE_MS) {
    return { ...NO("retry-after-over-cap"), pauseBudgetMs: MAX_RATE_LIMIT_PAUSE_MS, cappedFromMs: askedMs };
  }
  // Spec 7.3 promises Retry-After >= 1 s; without one, wait at least that long.
  const delayMs = askedMs ?? Math.max(1000, backoff(input));
  if (input.attempt > input.maxRetries) return { ...NO("retries-exhausted"), pauseBudgetMs: delayMs };
  return { retry: true, delayMs, reason: "rate-limited", pauseBudgetMs: delayMs };
}

/**
 * The one retry decision of the client (stripe-node style), pure: the same input gives the same
 * answer (with a fixed `random`).
 * - per-minute 429 (no code): wait the full Retry-After, any method (the server did nothing), and
 *   pause the shared budget as long; a Retry-After above `MAX_RATE_LIMIT_PAUSE_MS` is not waited
 *   for: the budget pauses for the cap and the request fails (even after its last retry, the
 *   budget still pauses);
 * - 503 SEAT_RESERVATION_BUSY: wait the full Retry-After up to `MAX_RETRY_AFTER_WAIT_MS`;
 * - 5xx, timeouts, lost connections: exponential backoff with full jitter (at least a 5xx's
 *   Retry-After, up to `MAX_RATE_LIMIT_PAUSE_MS`), only when retry-safe;
 * - a malformed 2xx body: retried for GET only (nothing was changed);
 * - 402, 429 SEAT_QUOTA_EXCEEDED / ROW_QUOTA_EXCEEDED, 400, 401, 403, 404, 409: never.
 */
export function shouldRetry(input: RetryInput): RetryDecision {
  const c = classify(input);
  if (c.kind === "status" && c.status === 429 && !isDailyAllowance(c.code)) return perMinuteLimit(input, c);
  if (input.attempt > input.maxRetries) return NO("retries-exhausted");
  const safe = isRetrySafe(input.method, input.path);
  if (c.kind === "timeout" || c.kind === "network") {
    return safe ? { retry: true, delayMs: backoff(input), reason: c.kind } : NO(`${c.kind}-not-retry-safe`);
  }
  if (c.kind === "bad-body") {
    return input.method.toUpperCase() === "GET"
      ? { retry: true, delayMs: backoff(input), reason: "malformed-body" }
      : NO("malformed-body-after-write");
  }
  if (c.kind !== "status" || c.status === undefined) return NO("not-retryable");
  const { status, code } = c;
  const retryAfterMs = c.retryAfterSeconds !== undefined ? c.retryAfterSeconds * 1000 : undefined;
  // A daily allowance (spec 7): waiting cannot help today; the roster defers its adds, nothing pauses.
  if (status === 429) return NO("daily-allowance-spent");
  if (status === 503 && code === "SEAT_RESERVATION_BUSY") {
    if (retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_WAIT_MS) {
      return { ...NO("retry-after-over-cap"), cappedFromMs: retryAfterMs };
    }
    return { retry: true, delayMs: retryAfterMs ?? Math.max(1000, backoff(input)), reason: "seat-reservation-busy" };
  }
  if (status >= 500) {
    if (!safe) return NO("server-error-not-retry-safe");
    // A Retry-After on a 5xx is a hint, honoured up to the per-minute cap.
    const hinted = Math.min(retryAfterMs ?? 0, MAX_RATE_LIMIT_PAUSE_MS);
    return { retry: true, delayMs: Math.max(backoff(input), hinted), reason: "server-error" };
  }
  return NO(`status-${status}`);
}
