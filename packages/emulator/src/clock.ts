/**
 * The emulator's virtual clock: real time plus an offset that only grows. The control API
 * advances it so tests can reach trial ends, rolling 24 h allowances and webhook retries
 * without sleeping.
 */
export class VirtualClock {
  private offsetMs = 0;

  constructor(private readonly realNow: () => number = Date.now) {}

  /** Virtual now, in epoch milliseconds. */
  now(): number {
    return this.realNow() + this.offsetMs;
  }

  /** Moves the clock forward; negative or non-finite amounts are refused (time never goes back). */
  advance(seconds: number): number {
    if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError("advanceSeconds must be a finite number >= 0");
    this.offsetMs += Math.round(seconds * 1000);
    return this.now();
  }

  get offsetSeconds(): number {
    return this.offsetMs / 1000;
  }

  reset(): void {
    this.offsetMs = 0;
  }
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
