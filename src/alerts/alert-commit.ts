import type { Outbox } from "../delivery/outbox.js";
import type { Logger } from "../logger.js";
import type { StateStore, StoreScope } from "../store/state-store.js";
import type { Alert } from "./alert.js";
import type { AlertEvents } from "./alert-events.js";
import type { DeliveryLedger } from "./delivery-ledger.js";
import type { AlertDraft } from "./plan-deliveries.js";

/** What one poll pass or webhook batch hands over: messages to post, changes handled, cursors reached. */
export interface AlertBatch {
  readonly drafts: readonly AlertDraft[];
  readonly keys: readonly string[];
  /** Lens key -> cursor to store (poll passes only). */
  readonly cursors: Readonly<Record<string, string>>;
  readonly nowMs: number;
  /** Items of a durable queue this batch consumes (webhook events taken from the inbox). */
  readonly consumed?: { readonly queue: string; readonly ids: readonly string[] } | undefined;
}

export interface AlertCommitDeps {
  readonly store: StateStore;
  readonly outbox: Outbox<Alert>;
  readonly ledger: DeliveryLedger;
  /** The namespace of the lenses' cursors. */
  readonly cursorNamespace: string;
  readonly logger: Logger;
  /** Told what each commit enqueued. */
  readonly events?: AlertEvents | undefined;
}

/**
 * Makes the hand-over of a batch all-or-nothing: its messages, handled keys, cursors and consumed
 * inbox items are written in one transaction, so a crash can never leave the next pass to plan the
 * same changes again (a digest of a different composition would post them twice, unannounced).
 */
export class AlertCommitLog {
  constructor(private readonly deps: AlertCommitDeps) {}

  /** Commits a batch; returns how many drafts were new to the outbox. */
  async commit(batch: AlertBatch): Promise<number> {
    const empty =
      batch.drafts.length === 0 &&
      batch.keys.length === 0 &&
      Object.keys(batch.cursors).length === 0 &&
      (batch.consumed?.ids.length ?? 0) === 0;
    if (empty) return this.queued(0);
    const enqueued = await this.deps.store.transaction((scope) => this.apply(batch, scope));
    return this.queued(enqueued);
  }

  /** Tells the observers what a commit enqueued (0 included), and returns it. */
  private queued(count: number): number {
    this.deps.events?.emit("queued", { count });
    return count;
  }

  /** Every step is idempotent: drafts have deterministic ids, keys and cursors are plain sets. */
  private async apply(batch: AlertBatch, scope: StoreScope): Promise<number> {
    const enqueued = await this.deps.outbox.enqueue(batch.drafts, batch.nowMs, scope);
    await this.deps.ledger.record(batch.keys, batch.nowMs, scope);
    await scope.namespace(this.deps.cursorNamespace).setMany(Object.entries(batch.cursors));
    if (batch.consumed) await scope.queue(batch.consumed.queue).ack(batch.consumed.ids, batch.nowMs);
    return enqueued;
  }
}
