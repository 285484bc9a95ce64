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
}

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

/**
 * The one retry decision of the client (stripe-node style), pure: the same input gives the same
 * answer (with a fixed `random`).
 * - per-minute 429 (no code) and 503 SEAT_RESERVATION_BUSY: wait the full Retry-After, never
 *   capped, any method (the server did nothing);
 * - 5xx, timeouts, lost connections: exponential backoff with full jitter, only when retry-safe;
 * - a malformed 2xx body: retried for GET only (nothing was changed);
 * - 402, 429 SEAT_QUOTA_EXCEEDED / ROW_QUOTA_EXCEEDED, 400, 401, 403, 404, 409: never.
 */
export function shouldRetry(input: RetryInput): RetryDecision {
  if (input.attempt > input.maxRetries) return NO("retries-exhausted");
  const c = classify(input);
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
  if (status === 429) {
    if (code === "SEAT_QUOTA_EXCEEDED" || code === "ROW_QUOTA_EXCEEDED") return NO("daily-allowance-spent");
    // Spec 7.3 promises Retry-After >= 1 s; without one, wait at least that long.
    return { retry: true, delayMs: retryAfterMs ?? Math.max(1000, backoff(input)), reason: "rate-limited" };
  }
  if (status === 503 && code === "SEAT_RESERVATION_BUSY") {
    return { retry: true, delayMs: retryAfterMs ?? Math.max(1000, backoff(input)), reason: "seat-reservation-busy" };
  }
  if (status >= 500) {
    if (!safe) return NO("server-error-not-retry-safe");
    return { retry: true, delayMs: Math.max(backoff(input), retryAfterMs ?? 0), reason: "server-error" };
  }
  return NO(`status-${status}`);
}
