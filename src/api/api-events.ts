import { TypedEmitter } from "../typed-emitter.js";
import type { RequestPriority } from "./rate-limiter.js";

/** One attempt of one request, for metrics and health (the daemon observes these). */
export interface ApiAttempt {
  readonly method: string;
  /** The path with numeric and `whe_` ids replaced by `{id}`, so it is a low-cardinality label. */
  readonly endpoint: string;
  /** HTTP status, or undefined when no answer came (network error, timeout). */
  readonly status: number | undefined;
  readonly code: string | undefined;
  /** Whether the service answered the way the operation expects (a 2xx with a valid body). */
  readonly ok: boolean;
  readonly error: unknown;
  readonly priority: RequestPriority;
  readonly waitedMs: number;
  readonly durationMs: number;
}

/**
 * What the API clients tell their observers (metrics, readiness), by name. The clients emit; they
 * know nothing of Prometheus or /readyz, and a test can watch the same events.
 */
export interface ApiEventMap {
  /** One attempt of one request ended: answered (any status) or not (network error, timeout). */
  readonly attempt: ApiAttempt;
}

export class ApiEvents extends TypedEmitter<ApiEventMap> {}
