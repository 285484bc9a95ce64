import { EXIT_RUNTIME, EXIT_USAGE, type ExitCode, RetentionSyncError } from "./base.js";

/** The service's answers as errors: an HTTP error status, no answer, or a body that breaks the spec. */

/** The ten error codes of spec 2.1. */
export const SERVICE_ERROR_CODES = [
  "INVALID_BODY",
  "SUBSCRIPTION_INACTIVE",
  "TRIAL_LIMIT_REACHED",
  "SEAT_CHARGE_FAILED",
  "INSUFFICIENT_SCOPE",
  "EMPLOYEE_EXISTS",
  "COMPETITOR_IDENTITY_MISMATCH",
  "SEAT_QUOTA_EXCEEDED",
  "ROW_QUOTA_EXCEEDED",
  "SEAT_RESERVATION_BUSY",
] as const;
export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[number];

export function isServiceErrorCode(value: unknown): value is ServiceErrorCode {
  return typeof value === "string" && (SERVICE_ERROR_CODES as readonly string[]).includes(value);
}

/** The call of the service an error is about. */
export interface ApiCall {
  readonly method: string;
  readonly path: string;
}

/**
 * Any failure of one call of the service (an error status, no answer, a broken body): it names the
 * call, and is a runtime failure unless a subclass knows better.
 */
export abstract class ApiCallError extends RetentionSyncError implements ApiCall {
  readonly exitCode: ExitCode = EXIT_RUNTIME;
  readonly method: string;
  readonly path: string;
  constructor(call: ApiCall, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.method = call.method;
    this.path = call.path;
  }
}

export interface ApiErrorInit extends ApiCall {
  readonly status: number;
  readonly code?: ServiceErrorCode | undefined;
  readonly message: string;
  readonly retryAfterSeconds?: number | undefined;
  /** The parsed error body, for fields the spec leaves unnamed (e.g. the 409 mismatch's real company). */
  readonly body?: unknown;
}

/** The service answered with an HTTP error status. */
export class ApiError extends ApiCallError {
  readonly status: number;
  readonly code: ServiceErrorCode | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly body: unknown;
  constructor(init: ApiErrorInit) {
    super(
      init,
      `${init.method} ${init.path} failed with ${init.status}${init.code ? ` ${init.code}` : ""}: ${init.message}`,
    );
    this.status = init.status;
    this.code = init.code;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.body = init.body;
  }
}

/** 400 INVALID_BODY. */
export class InvalidRequestError extends ApiError {}
/** The fix for a rejected key, said by every command (and by `check`) the same way. */
export const API_KEY_FIX = "check RETENTION_API_KEY (api.key); a revoked key must be replaced";
/** The fix for a base URL that is not the API's, said by every command (and by `check`) the same way. */
export const API_URL_FIX = "RETENTION_API_URL (api.url) must be the service's base URL ending in /api/v1";

/** 401: missing, malformed, unknown or revoked key. */
export class AuthenticationError extends ApiError {
  override readonly exitCode = EXIT_USAGE;
  constructor(init: ApiErrorInit) {
    super(init);
    this.message = `${this.message} (${API_KEY_FIX})`;
  }
}
/** 402: SUBSCRIPTION_INACTIVE, TRIAL_LIMIT_REACHED or SEAT_CHARGE_FAILED. Never retried in-process. */
export class PaymentRequiredError extends ApiError {}
/** 403 INSUFFICIENT_SCOPE. */
export class PermissionError extends ApiError {
  override readonly exitCode = EXIT_USAGE;
}
/** 404: missing or outside the key's reach. */
export class NotFoundError extends ApiError {}
/**
 * 404 for `GET /me`, which answers only 200, 401 or 429 (spec, endpoint table): the base URL is not the API's (most often
 * `/api/v1` left out). A setting to fix, not an outage.
 */
export class ServiceUrlError extends NotFoundError {
  override readonly exitCode = EXIT_USAGE;
  constructor(init: ApiErrorInit) {
    super(init);
    this.message = `${this.message} (${API_URL_FIX})`;
  }
}
/** 409 EMPLOYEE_EXISTS or COMPETITOR_IDENTITY_MISMATCH. */
export class ConflictError extends ApiError {}
/** 429 without a code: the per-minute request limit. Retried after the full Retry-After. */
export class RateLimitError extends ApiError {}
/** 429 SEAT_QUOTA_EXCEEDED or ROW_QUOTA_EXCEEDED: a daily allowance is spent. Never retried in-process. */
export class QuotaExceededError extends ApiError {}
/** 503 SEAT_RESERVATION_BUSY. Retried after the full Retry-After. */
export class SeatReservationBusyError extends ApiError {}
/** Any other 5xx. */
export class ServerError extends ApiError {}

/** Maps an HTTP error response to its error class: the one place that knows status -> class. */
export function apiErrorFromStatus(init: ApiErrorInit): ApiError {
  const { status, code } = init;
  if (status === 400) return new InvalidRequestError(init);
  if (status === 401) return new AuthenticationError(init);
  if (status === 402) return new PaymentRequiredError(init);
  if (status === 403) return new PermissionError(init);
  if (status === 404) return init.path === "/me" ? new ServiceUrlError(init) : new NotFoundError(init);
  if (status === 409) return new ConflictError(init);
  if (status === 429) {
    return code === "SEAT_QUOTA_EXCEEDED" || code === "ROW_QUOTA_EXCEEDED"
      ? new QuotaExceededError(init)
      : new RateLimitError(init);
  }
  if (status === 503 && code === "SEAT_RESERVATION_BUSY") return new SeatReservationBusyError(init);
  if (status >= 500) return new ServerError(init);
  return new ApiError(init);
}

/** No HTTP answer at all: DNS, refused or reset connection. */
export class ApiNetworkError extends ApiCallError {
  constructor(method: string, path: string, detail: string, options?: { cause?: unknown }) {
    super({ method, path }, `${method} ${path}: network error: ${detail}`, options);
  }
}

/** The request did not complete within the configured timeout. */
export class ApiTimeoutError extends ApiCallError {
  readonly timeoutMs: number;
  constructor(method: string, path: string, timeoutMs: number, options?: { cause?: unknown }) {
    super({ method, path }, `${method} ${path}: no response within ${timeoutMs} ms`, options);
    this.timeoutMs = timeoutMs;
  }
}

/** A 2xx answer whose body is not what the spec promises (not JSON, or missing required fields). */
export class ApiResponseError extends ApiCallError {
  readonly status: number;
  constructor(method: string, path: string, status: number, detail: string, options?: { cause?: unknown }) {
    super({ method, path }, `${method} ${path}: unexpected response body (status ${status}): ${detail}`, options);
    this.status = status;
  }
}
