import { type FakeSlackAnswer, failAnswer } from "./fake-slack-types.js";
import { Rng } from "./rng.js";

/** A Slack `error` string (answered as HTTP 200 `{ok:false}`), or an HTTP-level failure. */
export type FakeSlackFailure = string | { status: number; retryAfter?: number; error?: string };

export interface FakeSlackRateLimit {
  /** Only this method is limited; every method when absent. */
  readonly method?: string;
  /** Calls allowed per window before answering 429. */
  readonly limit: number;
  readonly windowMs?: number;
  /** Seconds in the Retry-After header (default 1). */
  readonly retryAfter?: number;
}

/**
 * Random failures of the fake Slack, rolled per call from a seeded generator (same seed, same
 * sequence). Each happens before the call has any effect, as Slack's own 5xx and 429 do.
 */
export interface FakeSlackFaults {
  /** Only this method fails; every method when absent. */
  readonly method?: string;
  /** Share of calls answered HTTP 500 or 503. */
  readonly errorRate?: number;
  /** Share of calls answered 429 `ratelimited` with `Retry-After: retryAfter`. */
  readonly rateLimitRate?: number;
  /** Share of calls whose connection is reset with no answer. */
  readonly resetRate?: number;
  /** Seconds in the Retry-After header of injected 429s (default 1). */
  readonly retryAfter?: number;
  readonly seed?: number;
}

/**
 * The failures a test sets on the fake Slack: the next calls failing a given way (`failNext`), a
 * rate limit, and random faults. The server asks before a call has any effect.
 */
export class FakeSlackFailures {
  private readonly failures: Array<{ method: string; failure: FakeSlackFailure; left: number }> = [];
  private rateLimit: FakeSlackRateLimit | null = null;
  private rateWindow: number[] = [];
  private faults: { settings: FakeSlackFaults; rng: Rng } | null = null;

  failNext(method: string, failure: FakeSlackFailure, times: number): void {
    this.failures.push({ method, failure, left: times });
  }

  setRateLimit(limit: FakeSlackRateLimit | null): void {
    this.rateLimit = limit;
    this.rateWindow = [];
  }

  setFaults(settings: FakeSlackFaults | null): void {
    this.faults = settings ? { settings, rng: new Rng(settings.seed ?? 1) } : null;
  }

  injected(method: string): FakeSlackAnswer | undefined {
    const index = this.failures.findIndex((f) => f.method === method || f.method === "*");
    if (index < 0) return undefined;
    const entry = this.failures[index];
    if (!entry) return undefined;
    entry.left -= 1;
    if (entry.left <= 0) this.failures.splice(index, 1);
    const { failure } = entry;
    if (typeof failure === "string") return failAnswer(failure);
    const headers: Record<string, string> =
      failure.retryAfter !== undefined ? { "retry-after": String(failure.retryAfter) } : {};
    return { status: failure.status, headers, body: { ok: false, error: failure.error ?? `http_${failure.status}` } };
  }

  limited(method: string): FakeSlackAnswer | undefined {
    if (!this.rateLimit || (this.rateLimit.method !== undefined && this.rateLimit.method !== method)) return undefined;
    const now = Date.now();
    this.rateWindow = this.rateWindow.filter((t) => now - t < (this.rateLimit?.windowMs ?? 60_000));
    if (this.rateWindow.length < this.rateLimit.limit) {
      this.rateWindow.push(now);
      return undefined;
    }
    return {
      status: 429,
      headers: { "retry-after": String(this.rateLimit.retryAfter ?? 1) },
      body: { ok: false, error: "ratelimited" },
    };
  }

  /** The injected fault of this call, if the dice say so. */
  rolled(method: string): FakeSlackAnswer | "reset" | undefined {
    if (!this.faults || (this.faults.settings.method !== undefined && this.faults.settings.method !== method))
      return undefined;
    const { errorRate = 0, rateLimitRate = 0, resetRate = 0, retryAfter = 1 } = this.faults.settings;
    const roll = this.faults.rng.next();
    if (roll < errorRate) {
      const status = roll < errorRate / 2 ? 500 : 503;
      return { status, body: { ok: false, error: `http_${status}` } };
    }
    if (roll < errorRate + rateLimitRate) {
      return { status: 429, headers: { "retry-after": String(retryAfter) }, body: { ok: false, error: "ratelimited" } };
    }
    if (roll < errorRate + rateLimitRate + resetRate) return "reset";
    return undefined;
  }
}
