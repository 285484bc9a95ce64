import { sleepUnlessAborted } from "../timers.js";

/**
 * Per-channel pacing: at most about `messagesPerSecond` posts per channel, and a 429 pauses only
 * the channel it was answered for. Time and sleeping are injected so tests need not wait.
 */
export class ChannelPacer {
  private readonly nextAt = new Map<string, number>();
  private readonly intervalMs: number;

  constructor(
    messagesPerSecond: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void> = sleepUnlessAborted,
  ) {
    this.intervalMs = 1000 / messagesPerSecond;
  }

  /** Milliseconds until the channel may post again (0 when it may post now). */
  delayFor(channel: string): number {
    return Math.max(0, (this.nextAt.get(channel) ?? 0) - this.now());
  }

  /**
   * Waits for the channel's turn and books the next slot. Returns false, booking nothing, when
   * `signal` aborted during the wait: the caller must not post then.
   */
  async take(channel: string, signal?: AbortSignal): Promise<boolean> {
    const delay = this.delayFor(channel);
    if (delay > 0) await this.sleep(delay, signal);
    if (signal?.aborted) return false;
    this.nextAt.set(channel, Math.max(this.now(), this.nextAt.get(channel) ?? 0) + this.intervalMs);
    return true;
  }

  /** A 429 for this channel: nothing is posted there before `ms` from now. */
  pause(channel: string, ms: number): void {
    this.nextAt.set(channel, Math.max(this.nextAt.get(channel) ?? 0, this.now() + ms));
  }
}
