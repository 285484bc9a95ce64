import type { KeyValueNamespace } from "../store/state-store.js";

export const DELIVERED_NAMESPACE = "alerts.delivered";

/**
 * The store's memory of handled changes and webhook events (namespace `alerts.delivered`, kept
 * for `alerts.dedupeRetention`). A key is recorded once its alert is safely in the outbox.
 * `exclusive` serialises check-then-record sections, so the poller and the webhook receiver of
 * one process never both enqueue the same change.
 */
export class DeliveryLedger {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly namespace: KeyValueNamespace,
    private readonly retentionMs: number,
  ) {}

  async has(key: string): Promise<boolean> {
    return (await this.namespace.get<number>(key)) !== undefined;
  }

  /** The subset of `keys` already recorded. */
  async handled(keys: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (const key of new Set(keys)) if (await this.has(key)) out.add(key);
    return out;
  }

  async record(keys: readonly string[], nowMs: number): Promise<void> {
    for (const key of new Set(keys)) await this.namespace.set(key, nowMs, this.retentionMs);
  }

  /** Runs `work` after every earlier exclusive section of this ledger has finished. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }
}
