import type { Outbox } from "../delivery/outbox.js";
import type { Logger } from "../logger.js";
import type { KeyValueNamespace } from "../store/state-store.js";
import type { Alert } from "./alert.js";
import type { DeliveryLedger } from "./delivery-ledger.js";
import type { AlertDraft } from "./plan-deliveries.js";

export const COMMIT_NAMESPACE = "alerts.commit";
const PENDING_KEY = "pending";

/** What one poll pass or webhook event hands over: messages to post, changes handled, cursors reached. */
export interface AlertBatch {
  readonly drafts: readonly AlertDraft[];
  readonly keys: readonly string[];
  /** Lens key -> cursor to store (poll passes only). */
  readonly cursors: Readonly<Record<string, string>>;
  readonly nowMs: number;
}

export interface AlertCommitDeps {
  readonly journal: KeyValueNamespace;
  readonly outbox: Outbox<Alert>;
  readonly ledger: DeliveryLedger;
  readonly cursors: KeyValueNamespace;
  readonly logger: Logger;
}

/**
 * Makes the hand-over of a batch all-or-nothing across a crash. The store has no transactions, and
 * the outbox, the dedupe ledger and the cursors are many writes: a crash between them used to let
 * the next pass plan the same changes again, and a digest of a different composition (new
 * changes arrived meanwhile) then posted them twice with no warning. So the whole batch is first
 * written as one record (one atomic row); the writes follow; the record is deleted last. A batch
 * whose record survives a crash is finished by `recover()` before anything reads the ledger.
 * Callers hold `ledger.exclusive`, so one record key is enough.
 */
export class AlertCommitLog {
  constructor(private readonly deps: AlertCommitDeps) {}

  /** Commits a batch; returns how many drafts were new to the outbox. */
  async commit(batch: AlertBatch): Promise<number> {
    if (batch.drafts.length === 0 && batch.keys.length === 0 && Object.keys(batch.cursors).length === 0) return 0;
    await this.deps.journal.set<AlertBatch>(PENDING_KEY, batch);
    return this.apply(batch);
  }

  /** Finishes the batch a crash interrupted, if any; returns how many of its drafts were still missing. */
  async recover(): Promise<{ recovered: boolean; enqueued: number }> {
    const pending = await this.deps.journal.get<AlertBatch>(PENDING_KEY);
    if (!pending) return { recovered: false, enqueued: 0 };
    const enqueued = await this.apply(pending);
    this.deps.logger.warn(
      { enqueued, changes: pending.keys.length },
      "the previous run stopped while handing alerts over to the outbox; finished that hand-over first",
    );
    return { recovered: true, enqueued };
  }

  /** Every step is idempotent: drafts have deterministic ids, keys and cursors are plain sets. */
  private async apply(batch: AlertBatch): Promise<number> {
    const enqueued = await this.deps.outbox.enqueue(batch.drafts, batch.nowMs);
    await this.deps.ledger.record(batch.keys, batch.nowMs);
    for (const [lens, cursor] of Object.entries(batch.cursors)) await this.deps.cursors.set(lens, cursor);
    await this.deps.journal.delete(PENDING_KEY);
    return enqueued;
  }
}
