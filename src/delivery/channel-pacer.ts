import { sleepUnlessAborted } from "../timers.js";

/**
 * Per-channel pacing: about `messagesPerSecond` posts per channel on average, with short bursts of
 * up to `burst` posts after a quiet spell (Slack: "1 per second, short bursts >1 allowed"), and a
 * 429 pauses only the channel it was answered for. A generic cell-rate algorithm: each channel
 * keeps the time its next post would be due at the steady pace; a post may go as long as that time
 * is less than `burst - 1` intervals ahead. Time and sleeping are injected so tests need not wait.
 */
export class ChannelPacer {
  private readonly dueAt = new Map<string, number>();
  private readonly intervalMs: number;
  /** How far ahead of now the steady pace may run: the burst beyond the first post. */
  private readonly slackMs: number;

  constructor(
    messagesPerSecond: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void> = sleepUnlessAborted,
    burst = 1,
  ) {
    this.intervalMs = 1000 / messagesPerSecond;
    this.slackMs = (Math.max(1, Math.floor(burst)) - 1) * this.intervalMs;
  }

  /** Milliseconds until the channel may post again (0 when it may post now). */
  delayFor(channel: string): number {
    return Math.max(0, (this.dueAt.get(channel) ?? 0) - this.slackMs - this.now());
  }

  /**
   * Waits for the channel's turn and books the slot. Returns false, booking nothing, when `signal`
   * aborted during the wait: the caller must not post then.
   */
  async take(channel: string, signal?: AbortSignal): Promise<boolean> {
    const delay = this.delayFor(channel);
    if (delay > 0) await this.sleep(delay, signal);
    if (signal?.aborted) return false;
    this.dueAt.set(channel, Math.max(this.now(), this.dueAt.get(channel) ?? 0) + this.intervalMs);
    return true;
  }

  /** A 429 for this channel: nothing is posted there before `ms` from now, and no burst right after. */
  pause(channel: string, ms: number): void {
    this.dueAt.set(channel, Math.max(this.dueAt.get(channel) ?? 0, this.now() + ms + this.slackMs));
  }
}
