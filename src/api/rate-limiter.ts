import { startTimer } from "../timers.js";

/** Priority class of a request: polling keeps a reserved share that bulk work can never take. */
export type RequestPriority = "poll" | "bulk";

export interface RateLimiterOptions {
  /** The key's per-minute request limit (spec 8: 120). */
  readonly requestsPerMinute?: number | undefined;
  /** Burst size; default a twelfth of the per-minute limit (10 at 120/min). */
  readonly capacity?: number | undefined;
  /** Share of the bucket kept for "poll" (0..0.9, default 0.25): bulk waits while only that much is left. */
  readonly reservedShare?: number | undefined;
  /** Milliseconds clock; injected in tests. */
  readonly now?: (() => number) | undefined;
  /** Sleep; injected in tests (a fake that advances the fake clock). */
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
}

interface Waiter {
  readonly priority: RequestPriority;
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
}

/**
 * A token bucket shared by everything that uses one API key, so normal operation never earns a
 * 429. The refill rate is (limit - capacity) per minute: the most requests any 60 s window can
 * see is capacity + refill = the limit, whatever the server's window. A per-minute 429 calls
 * `pause()`, which holds the whole bucket (every client and job sharing it), like a 429 pausing
 * the queue in the Slack SDK. Waiters are served poll first, then bulk, each in arrival order.
 */
export class RateLimiter {
  readonly capacity: number;
  readonly reservedTokens: number;
  private readonly ratePerMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Ends the pump's current wait early (set while the default timer sleeps). */
  private wake: (() => void) | undefined;
  private tokens: number;
  private lastRefill: number;
  private pausedUntil = 0;
  private readonly waiters: Waiter[] = [];
  private pumping = false;

  constructor(options: RateLimiterOptions = {}) {
    const perMinute = options.requestsPerMinute ?? 120;
    if (!(perMinute > 0)) throw new RangeError("requestsPerMinute must be positive");
    const capacity = options.capacity ?? Math.max(1, Math.floor(perMinute / 12));
    this.capacity = Math.max(1, Math.min(capacity, perMinute));
    const refillPerMinute = Math.max(perMinute - this.capacity, perMinute / 2);
    this.ratePerMs = refillPerMinute / 60_000;
    const share = Math.min(0.9, Math.max(0, options.reservedShare ?? 0.25));
    this.reservedTokens = Math.min(this.capacity - 1, Math.ceil(this.capacity * share));
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => this.timerSleep(ms));
    this.tokens = this.capacity;
    this.lastRefill = this.now();
  }

  /** Tokens available right now (fractional), for metrics and tests. */
  get available(): number {
    this.refill();
    return this.tokens;
  }

  /** Epoch ms until which the bucket is paused (0 when not paused). */
  get pausedUntilMs(): number {
    return this.pausedUntil;
  }

  /** Number of callers waiting for a token. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Resolves when a request of this priority may be sent; rejects if `signal` aborts first. */
  acquire(priority: RequestPriority = "poll", signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    // Poll overtakes queued bulk work; bulk keeps arrival order behind everyone.
    const queuedAhead = this.waiters.some((w) => priority === "bulk" || w.priority === "poll");
    if (!queuedAhead && this.tryTake(priority)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { priority, resolve, reject };
      this.waiters.push(waiter);
      signal?.addEventListener(
        "abort",
        () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) {
            this.waiters.splice(i, 1);
            reject(signal.reason);
            // Nobody left waiting: the pump's timer must not keep a stopping process alive.
            if (this.waiters.length === 0) this.wake?.();
          }
        },
        { once: true },
      );
      void this.pump();
    });
  }

  /** Holds every acquire for `ms` (a per-minute 429's Retry-After); extends, never shortens, a pause. */
  pause(ms: number): void {
    const until = this.now() + Math.max(0, ms);
    if (until > this.pausedUntil) this.pausedUntil = until;
    // The server says the window is spent: the bucket restarts empty when the pause ends, no burst.
    this.refill();
    this.tokens = 0;
    this.lastRefill = Math.max(this.lastRefill, this.pausedUntil);
  }

  /** The default sleep: a timer the pump can cut short when its last waiter gives up. */
  private timerSleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const cancel = startTimer(ms, done);
      function done() {
        cancel();
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }

  private refill(): void {
    const now = this.now();
    if (now > this.lastRefill) {
      this.tokens = Math.min(this.capacity, this.tokens + (now - this.lastRefill) * this.ratePerMs);
      this.lastRefill = now;
    }
  }

  private threshold(priority: RequestPriority): number {
    return priority === "poll" ? 1 : this.reservedTokens + 1;
  }

  private tryTake(priority: RequestPriority): boolean {
    if (this.now() < this.pausedUntil) return false;
    this.refill();
    if (this.tokens < this.threshold(priority)) return false;
    this.tokens -= 1;
    return true;
  }

  /** Next waiter to serve: the first poll waiter, else the first bulk waiter. */
  private head(): Waiter | undefined {
    return this.waiters.find((w) => w.priority === "poll") ?? this.waiters[0];
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (let w = this.head(); w !== undefined; w = this.head()) {
        const now = this.now();
        if (now < this.pausedUntil) {
          await this.sleep(this.pausedUntil - now);
          continue;
        }
        if (this.tryTake(w.priority)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve();
          continue;
        }
        // Wake at the next whole token, so a poll waiter arriving meanwhile is not held up by bulk's higher bar.
        const target = Math.min(this.threshold(w.priority), Math.floor(this.tokens) + 1);
        await this.sleep(Math.max(1, Math.ceil((target - this.tokens) / this.ratePerMs)));
      }
    } finally {
      this.pumping = false;
    }
  }
}
