/**
 * Per-key request rate limit (spec 8: 120 per minute, configurable): a token bucket of
 * `perMinute` tokens refilled continuously. Returns 0 when the request may pass, else the
 * milliseconds until one token is back (the caller turns it into Retry-After >= 1).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(public perMinute: number) {}

  take(keyId: string, now: number): number {
    const rate = this.perMinute / 60_000;
    const b = this.buckets.get(keyId) ?? { tokens: this.perMinute, at: now };
    b.tokens = Math.min(this.perMinute, b.tokens + Math.max(0, now - b.at) * rate);
    b.at = now;
    this.buckets.set(keyId, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - b.tokens) / rate);
  }

  reset(): void {
    this.buckets.clear();
  }
}
