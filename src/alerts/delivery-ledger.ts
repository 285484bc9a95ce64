import type { StateStore, StoreScope } from "../store/state-store.js";

/** The key set of handled changes and webhook events (the namespace's name before it was a key set). */
export const DELIVERED_KEYS = "alerts.delivered";

/**
 * The store's memory of handled changes and webhook events (key set `alerts.delivered`, kept for
 * `alerts.dedupeRetention`, then swept). A key is recorded in the same transaction that puts its
 * alert in the outbox. `exclusive` serialises check-then-record sections, so the poller and the
 * webhook receiver of one process never both enqueue the same change.
 */
export class DeliveryLedger {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: StateStore,
    private readonly retentionMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async has(key: string): Promise<boolean> {
    return (await this.handled([key])).has(key);
  }

  /** The subset of `keys` already recorded (one indexed read). */
  handled(keys: readonly string[]): Promise<Set<string>> {
    return this.store.keySet(DELIVERED_KEYS).has(keys, this.now());
  }

  /** Records keys as handled at `nowMs`; with `scope`, inside the caller's transaction. */
  record(keys: readonly string[], nowMs: number, scope: StoreScope = this.store): Promise<void> {
    return scope.keySet(DELIVERED_KEYS).add(keys, nowMs + this.retentionMs);
  }

  /** Runs `work` after every earlier exclusive section of this ledger has finished. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }
}
