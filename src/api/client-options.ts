import type { Logger } from "../logger.js";
import type { ApiEvents } from "./api-events.js";
import type { RateLimiter, RequestPriority } from "./rate-limiter.js";
import type { Employee } from "./spec-records.js";

export interface RetentionClientOptions {
  /** Includes /api/v1. */
  baseUrl: string;
  apiKey: string;
  /** Token bucket when no `rateLimiter` is given; default 120. */
  requestsPerMinute?: number | undefined;
  /** Per request; default 10 000. */
  timeoutMs?: number | undefined;
  /** Default 5. */
  maxRetries?: number | undefined;
  logger?: Logger | undefined;
  /** Share one bucket between clients/jobs on the same key. */
  rateLimiter?: RateLimiter | undefined;
  /** Backoff base; tests use small values. Default 500. */
  retryBaseDelayMs?: number | undefined;
  /** Priority class of this client's requests in the shared bucket; default "poll". Reconcile uses "bulk". */
  priority?: RequestPriority | undefined;
  /** Aborts waiting and in-flight requests (daemon shutdown); the rejection carries the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Told of every attempt (status, wait for the rate budget, duration): the daemon's metrics and readiness subscribe. */
  events?: ApiEvents | undefined;
  /** Test hooks: sleep between retries, jitter source, clock. */
  sleep?: ((ms: number) => Promise<void>) | undefined;
  random?: (() => number) | undefined;
  now?: (() => number) | undefined;
}

/** `created`: a new (or revived) row. `already-exists`: 409 EMPLOYEE_EXISTS, e.g. a retried add that had landed. */
export interface AddEmployeeResult {
  outcome: "created" | "already-exists";
  employee?: Employee;
  /** True when the answer came after a retry (the first attempt's fate was unknown). */
  afterRetry: boolean;
}
