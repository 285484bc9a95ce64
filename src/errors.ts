import { problemKind, scrubHint } from "./scrub-text.js";

/**
 * The one error hierarchy of retention-sync. Callers branch on the class or on `code`,
 * never on message text. Every error knows the process exit code it maps to (docs/operations.md).
 */

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

export const EXIT_OK = 0;
export const EXIT_RUNTIME = 1;
export const EXIT_USAGE = 2;
export const EXIT_PARTIAL = 3;
export type ExitCode = typeof EXIT_OK | typeof EXIT_RUNTIME | typeof EXIT_USAGE | typeof EXIT_PARTIAL;

/** Base of every error this program raises on purpose. */
export abstract class RetentionSyncError extends Error {
  abstract readonly exitCode: ExitCode;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad command line: unknown command or flag. */
export class UsageError extends RetentionSyncError {
  readonly exitCode = EXIT_USAGE;
}

export interface ConfigIssue {
  /** Dotted path of the offending option, e.g. `roster.maxArchivePercent`, or the env variable. */
  readonly path: string;
  readonly message: string;
}

/** Invalid configuration: every problem at once, each with its path and what is expected. */
export class ConfigError extends RetentionSyncError {
  readonly exitCode = EXIT_USAGE;
  readonly issues: readonly ConfigIssue[];
  constructor(source: string, issues: readonly ConfigIssue[], options?: { cause?: unknown }) {
    const lines = issues.map((i) => `  - ${i.path}: ${i.message}`);
    const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
    super(`Invalid configuration (${source}), ${count}:\n${lines.join("\n")}`, options);
    this.issues = issues;
  }
}

/** Input rejected locally before any request was sent (page size, bulk size, sensitivity...). */
export class LocalValidationError extends RetentionSyncError {
  readonly exitCode = EXIT_USAGE;
  readonly parameter: string;
  constructor(parameter: string, message: string) {
    super(`${parameter}: ${message}`);
    this.parameter = parameter;
  }
}

export interface ApiErrorInit {
  readonly status: number;
  readonly code?: ServiceErrorCode | undefined;
  readonly message: string;
  readonly method: string;
  readonly path: string;
  readonly retryAfterSeconds?: number | undefined;
  /** The parsed error body, for fields the spec leaves unnamed (e.g. the 409 mismatch's real company). */
  readonly body?: unknown;
}

/** The service answered with an HTTP error status. */
export class ApiError extends RetentionSyncError {
  readonly exitCode: ExitCode = EXIT_RUNTIME;
  readonly status: number;
  readonly code: ServiceErrorCode | undefined;
  readonly method: string;
  readonly path: string;
  readonly retryAfterSeconds: number | undefined;
  readonly body: unknown;
  constructor(init: ApiErrorInit) {
    super(`${init.method} ${init.path} failed with ${init.status}${init.code ? ` ${init.code}` : ""}: ${init.message}`);
    this.status = init.status;
    this.code = init.code;
    this.method = init.method;
    this.path = init.path;
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
export class ApiNetworkError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
  readonly method: string;
  readonly path: string;
  constructor(method: string, path: string, detail: string, options?: { cause?: unknown }) {
    super(`${method} ${path}: network error: ${detail}`, options);
    this.method = method;
    this.path = path;
  }
}

/** The request did not complete within the configured timeout. */
export class ApiTimeoutError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
  readonly method: string;
  readonly path: string;
  readonly timeoutMs: number;
  constructor(method: string, path: string, timeoutMs: number, options?: { cause?: unknown }) {
    super(`${method} ${path}: no response within ${timeoutMs} ms`, options);
    this.method = method;
    this.path = path;
    this.timeoutMs = timeoutMs;
  }
}

/** A 2xx answer whose body is not what the spec promises (not JSON, or missing required fields). */
export class ApiResponseError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  constructor(method: string, path: string, status: number, detail: string, options?: { cause?: unknown }) {
    super(`${method} ${path}: unexpected response body (status ${status}): ${detail}`, options);
    this.method = method;
    this.path = path;
    this.status = status;
  }
}

/**
 * The HRIS roster file cannot be used at all (unreadable, no header, missing required column).
 * The message may quote the file (a header, a first line): it is scrubbed (`scrubHint`), since the
 * file may not be an export at all but an env file with keys in it. `problem` is the kind of
 * problem alone, with nothing of the file, for /readyz.
 */
export class RosterFileError extends RetentionSyncError {
  readonly exitCode = EXIT_USAGE;
  readonly file: string;
  /** `has no profile URL column`, `cannot be read`: the words before any detail or excerpt. */
  readonly problem: string;
  constructor(file: string, message: string, options?: { cause?: unknown }) {
    super(
      `Roster file ${file}: ${scrubHint(message)}`,
      options?.cause === undefined ? undefined : { cause: quietCause(options.cause) },
    );
    this.file = file;
    this.problem = problemKind(message);
  }
}

/**
 * The cause of a RosterFileError as the logs may show it (pino prints causes): a system error
 * (ENOENT, EACCES: a path, no content) as it is; any other, such as a JSON parser's error that
 * quotes the start of a line, with its quoted excerpts dropped and the rest scrubbed.
 */
function quietCause(cause: unknown): unknown {
  if (!(cause instanceof Error)) return scrubHint(String(cause)).replace(/"[^"\n]*"(\.\.\.)?/g, '"..."');
  if (typeof (cause as NodeJS.ErrnoException).syscall === "string") return cause;
  const quiet = new Error(scrubHint(cause.message).replace(/"[^"\n]*"(\.\.\.)?/g, '"..."'));
  quiet.name = cause.name;
  return quiet;
}

/**
 * Pulling the roster from the HRIS failed or was cut short (a 5xx, a cut body, a page that never
 * came): nothing is reconciled, nobody is archived, and the next schedule tries again.
 */
export class RosterPullError extends RetentionSyncError {
  readonly exitCode: ExitCode = EXIT_RUNTIME;
  /** The source (`https`, `bamboohr`, `merge`, `sftp`). */
  readonly source: string;
  constructor(source: string, message: string, options?: { cause?: unknown }) {
    super(`Roster source ${source}: ${scrubHint(message)}`, options);
    this.source = source;
  }
}

/** The HRIS refused the credential (401, 403, a rejected SSH key or host key): the operator must fix it. */
export class RosterSourceAuthError extends RosterPullError {
  override readonly exitCode: ExitCode = EXIT_USAGE;
}

/** The state store failed (disk full, locked or corrupt database). */
export class StoreError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
}

/** Another instance holds the lock on the same state. */
export class InstanceLockedError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
}

/**
 * A write refused because this replica no longer leads: a newer leader took over (its epoch, the
 * fencing token, is newer) or this replica stepped down. The write did not happen; the replica
 * stops its jobs and becomes a standby.
 */
export class FencedOutError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
  /** The epoch this replica wrote with (undefined: it was not leading). */
  readonly epoch: number | undefined;
  /** The epoch the store holds (undefined: not known, the replica refused the write itself). */
  readonly current: number | undefined;
  constructor(epoch: number | undefined, current: number | undefined) {
    super(
      epoch === undefined
        ? "write refused: this replica is not the leader"
        : `write refused: this replica led with epoch ${epoch}, a newer leader holds epoch ${current ?? "?"}`,
    );
    this.epoch = epoch;
    this.current = current;
  }
}

/** Slack refused a call; `slackCode` is Slack's `error` string (e.g. `channel_not_found`). */
export class SlackDeliveryError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
  readonly slackCode: string;
  readonly permanent: boolean;
  constructor(slackCode: string, message: string, permanent: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.slackCode = slackCode;
    this.permanent = permanent;
  }
}

/** Signature missing, malformed, wrong or outside the tolerance window. */
export class WebhookSignatureError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
  readonly reason: "missing" | "malformed" | "mismatch" | "stale";
  constructor(reason: "missing" | "malformed" | "mismatch" | "stale", message: string) {
    super(message);
    this.reason = reason;
  }
}

/** A Slack button press that cannot be applied as it stands (the alert lacks what the action needs). */
export class SlackActionError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
}

/**
 * A command's failure restated for the operator: what failed, in the terms of the command, and the
 * fix. The original error is the cause; the exit code is the cause's unless the restatement knows
 * better (an unknown id the operator typed is a usage error, not an outage).
 */
export class ExplainedError extends RetentionSyncError {
  readonly exitCode: ExitCode;
  constructor(message: string, options: { cause: unknown; exitCode?: ExitCode }) {
    super(message, { cause: options.cause });
    this.exitCode = options.exitCode ?? exitCodeOf(options.cause);
  }
}

/**
 * A press asked of the local Slack of a running demo or sandbox that it cannot make (no such alert
 * shown, no daemon connected to press through, the running one does not answer).
 */
export class LocalPressError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
}

/** Exit code for anything thrown out of a command. */
export function exitCodeOf(error: unknown): ExitCode {
  return error instanceof RetentionSyncError ? error.exitCode : EXIT_RUNTIME;
}
