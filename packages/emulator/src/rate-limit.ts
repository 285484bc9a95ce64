const WINDOW_MS = 60_000;

/** Accepted request times of one key, ascending; `head` is the oldest still inside the window. */
interface KeyLog {
  times: number[];
  head: number;
}

/**
 * Per-key request rate limit (spec 8: 120 requests per minute per key, configurable): a sliding
 * log, so no 60 s window [t, t + 60 s) ever holds more than `perMinute` accepted requests. Refused
 * requests are not counted. Returns 0 when the request may pass, else the exact milliseconds until
 * the oldest counted request leaves the window (the caller turns it into Retry-After >= 1).
 */
export class RateLimiter {
  private readonly logs = new Map<string, KeyLog>();

  constructor(public perMinute: number) {}

  take(keyId: string, now: number): number {
    let log = this.logs.get(keyId);
    if (!log) {
      log = { times: [], head: 0 };
      this.logs.set(keyId, log);
    }
    const { times } = log;
    while (log.head < times.length && (times[log.head] ?? 0) <= now - WINDOW_MS) log.head += 1;
    // Drop the expired prefix once it is the larger part, so the log stays O(limit).
    if (log.head > 1024 && log.head * 2 > times.length) {
      times.splice(0, log.head);
      log.head = 0;
    }
    if (times.length - log.head < this.perMinute) {
      times.push(now);
      return 0;
    }
    const oldest = times[times.length - this.perMinute] ?? now;
    return Math.max(1, oldest + WINDOW_MS - now);
  }

  reset(): void {
    this.logs.clear();
  }
}
