import type { z } from "zod";
import { ApiError, RateLimitError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { ApiAttempt, ApiEvents } from "./api-events.js";
import { parseBody } from "./parse-body.js";
import type { RateLimiter, RequestPriority } from "./rate-limiter.js";
import { type RetryDecision, shouldRetry } from "./retry-policy.js";
import type { Transport, TransportRequest } from "./transport.js";

/** `/employees/42/changes` -> `/employees/{id}/changes`. */
export function endpointOf(path: string): string {
  return path.replace(/\/(\d+|whe_[A-Za-z0-9_-]+)(?=\/|$)/g, "/{id}");
}

export interface ApiCallerOptions {
  readonly transport: Transport;
  readonly limiter: RateLimiter;
  readonly logger: Logger;
  readonly maxRetries: number;
  readonly retryBaseDelayMs: number;
  readonly priority: RequestPriority;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
  readonly now: () => number;
  readonly events?: ApiEvents | undefined;
}

/** Filled in by `call` so an operation can tell a first answer from one after a retry. */
export interface CallMeta {
  attempts: number;
}

/**
 * Runs one API operation to its end: waits for a token, sends, parses the body with the record
 * schema, and on failure asks `shouldRetry` (the only retry rule), waiting as it says. A
 * per-minute 429 also pauses the shared bucket so every client on the key backs off together.
 */
export class ApiCaller {
  constructor(private readonly options: ApiCallerOptions) {}

  private observe(req: TransportRequest, queued: number, started: number, status: number | undefined, error: unknown) {
    if (!this.options.events) return;
    notify(this.options.events, {
      method: req.method,
      endpoint: endpointOf(req.path),
      status,
      code: error instanceof ApiError ? error.code : undefined,
      ok: error === undefined,
      error,
      priority: this.options.priority,
      waitedMs: started - queued,
      durationMs: this.options.now() - started,
    });
  }

  async call<T extends z.ZodType>(
    req: TransportRequest,
    schema: T,
    meta: CallMeta = { attempts: 0 },
  ): Promise<{ status: number; data: z.output<T> }> {
    const { transport, limiter, logger, maxRetries } = this.options;
    for (let attempt = 1; ; attempt += 1) {
      meta.attempts = attempt;
      const queued = this.options.now();
      await limiter.acquire(this.options.priority, req.signal);
      const started = this.options.now();
      let answered: number | undefined;
      try {
        const response = await transport.send(req);
        answered = response.status;
        logger.debug(
          { method: req.method, path: req.path, status: response.status, ms: this.options.now() - started, attempt },
          "api request",
        );
        const data = parseBody(schema, response.data, { method: req.method, path: req.path, status: response.status });
        this.observe(req, queued, started, answered, undefined);
        return { status: response.status, data };
      } catch (error) {
        const status = error instanceof ApiError ? error.status : answered;
        this.observe(req, queued, started, status, error);
        logger.debug(
          {
            method: req.method,
            path: req.path,
            status,
            ms: this.options.now() - started,
            attempt,
            error: error instanceof Error ? error.name : "unknown",
          },
          "api request failed",
        );
        const decision = shouldRetry({
          method: req.method,
          path: req.path,
          error,
          attempt,
          maxRetries,
          baseDelayMs: this.options.retryBaseDelayMs,
          random: this.options.random,
        });
        if (error instanceof RateLimitError && decision.pauseBudgetMs !== undefined) {
          limiter.pause(decision.pauseBudgetMs);
        }
        if (decision.cappedFromMs !== undefined && error instanceof ApiError) {
          explainCappedWait(error, decision);
          logger.warn(
            {
              method: req.method,
              path: req.path,
              status,
              retryAfterSeconds: error.retryAfterSeconds,
              pausedBudgetMs: decision.pauseBudgetMs,
            },
            "the service asked for a longer wait (Retry-After) than this client honours: request given up",
          );
        }
        if (!decision.retry) throw error;
        logger.warn(
          {
            method: req.method,
            path: req.path,
            status,
            code: error instanceof ApiError ? error.code : undefined,
            attempt,
            delayMs: decision.delayMs,
            reason: decision.reason,
          },
          "api request will be retried",
        );
        await abortableSleep(this.options.sleep, decision.delayMs, req.signal);
      }
    }
  }
}

/** Says in the error's own message why it was not waited for, so the command or log that shows it explains itself. */
function explainCappedWait(error: ApiError, decision: RetryDecision): void {
  const asked = Math.round((decision.cappedFromMs ?? 0) / 1000);
  const paused =
    decision.pauseBudgetMs !== undefined
      ? `; the request budget is paused for ${Math.round(decision.pauseBudgetMs / 1000)} s (the cap)`
      : "";
  error.message += ` (the service asked to wait ${asked} s before retrying, longer than this client waits: the request was given up${paused})`;
}

/** Tells the observers of an attempt; an observer that throws must never break a request. */
function notify(events: ApiEvents, attempt: ApiAttempt): void {
  try {
    events.emit("attempt", attempt);
  } catch {
    // Metrics are best effort.
  }
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts (shutdown must not sit out a long Retry-After). */
function abortableSleep(sleep: (ms: number) => Promise<void>, ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return sleep(ms);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    sleep(ms).then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
