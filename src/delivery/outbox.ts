import type { SlackMessage } from "../slack/slack-message.js";
import type { DurableQueue, KeyValueNamespace, StateStore, StoreScope } from "../store/state-store.js";

/** The outbox's queue (the name of the namespace it had before it was a queue). */
export const OUTBOX_QUEUE = "alerts.outbox";
export const THREADS_NAMESPACE = "alerts.threads";

/**
 * A message to deliver. `id` is deterministic, so enqueueing twice is harmless. `P` is what a
 * single alert carries for the coalescer (the alert itself); delivery never looks inside it.
 */
export interface OutboxDraft<P = unknown> {
  readonly id: string;
  /** Channel name or id; for a manager DM, the email is in `managerEmail` and `channel` is a label. */
  readonly channel: string;
  /** `alert` (threaded per person, may be coalesced), `digest`, `dm` (to `managerEmail`), `report` (ops channel). */
  readonly kind: "alert" | "digest" | "dm" | "report";
  readonly message: SlackMessage;
  /** Change identities this message carries (logs and the crash test). */
  readonly alertKeys: readonly string[];
  /** Person identity: later alerts about the same person go in the thread of the first one. */
  readonly threadKey?: string | undefined;
  readonly managerEmail?: string | undefined;
  /** The alert of a single-alert message, so that a backlog of them can become one digest. */
  readonly alert?: P | undefined;
  /** Ids of the waiting entries this message replaces (a digest made of a backlog). */
  readonly replaces?: readonly string[] | undefined;
}

/** A draft in the store, with its delivery bookkeeping. */
export interface OutboxEntry<P = unknown> extends OutboxDraft<P> {
  readonly enqueuedAt: number;
  /** Place in the queue (enqueue order). */
  readonly seq: number;
  readonly attempts: number;
  /** Set just before the post: an entry still carrying it after a restart may already be in Slack. */
  readonly postingSince?: number | undefined;
  readonly lastError?: string | undefined;
}

/** What the queue stores: the entry without its place in the queue (the queue's own `seq`). */
type StoredEntry<P> = Omit<OutboxEntry<P>, "seq">;

/** How long a delivered draft id is remembered by default: longer than any replay of a pass or event. */
export const DEFAULT_SENT_RETENTION_MS = 7 * 86_400_000;

/**
 * The outbox (queue `alerts.outbox`): a message is written here before it is posted and acked
 * right after Slack confirms it, so a crash or a Slack outage loses nothing, and a replayed batch
 * cannot queue a delivered message again (an acked id is remembered for `sentRetentionMs`).
 * Enqueue and ack are one write each; the waiting messages are one ordered scan.
 */
export class Outbox<P = unknown> {
  constructor(
    private readonly store: StateStore,
    private readonly sentRetentionMs = DEFAULT_SENT_RETENTION_MS,
    private readonly now: () => number = Date.now,
  ) {}

  private queue(scope: StoreScope = this.store): DurableQueue<StoredEntry<P>> {
    return scope.queue<StoredEntry<P>>(OUTBOX_QUEUE);
  }

  /**
   * Stores drafts neither waiting nor delivered already; returns how many were new. With `scope`,
   * inside the caller's transaction (a hand-over commits its messages with its handled changes).
   */
  enqueue(drafts: readonly OutboxDraft<P>[], nowMs: number, scope?: StoreScope): Promise<number> {
    return this.queue(scope).enqueue(
      drafts.map((draft) => ({ id: draft.id, value: { ...draft, enqueuedAt: nowMs, attempts: 0 } })),
    );
  }

  /** Every waiting entry, in enqueue order. */
  async pending(): Promise<OutboxEntry<P>[]> {
    return (await this.queue().pending()).map((item) => ({ ...item.value, seq: item.seq }));
  }

  /**
   * Replaces waiting entries by drafts that say so in `replaces` (a backlog of single alerts by its
   * digest), in one transaction: neither is lost nor posted twice.
   */
  replace(entries: readonly OutboxEntry<P>[], drafts: readonly OutboxDraft<P>[], nowMs: number): Promise<void> {
    return this.store.transaction(async (scope) => {
      await this.enqueue(drafts, nowMs, scope);
      await this.queue(scope).ack(
        entries.map((e) => e.id),
        nowMs + this.sentRetentionMs,
      );
    });
  }

  /**
   * Marks the waiting entries that a waiting replacement stands for; returns the others. (An outbox
   * migrated from a release without transactions may hold both after a crash.)
   */
  async finishReplacements(entries: readonly OutboxEntry<P>[], nowMs: number): Promise<OutboxEntry<P>[]> {
    const replaced = new Set(entries.flatMap((e) => e.replaces ?? []));
    if (replaced.size === 0) return [...entries];
    await this.queue().ack([...replaced], nowMs + this.sentRetentionMs);
    return entries.filter((e) => !replaced.has(e.id));
  }

  size(): Promise<number> {
    return this.queue().countPending();
  }

  async markPosting(entry: OutboxEntry<P>, nowMs: number): Promise<OutboxEntry<P>> {
    const next: OutboxEntry<P> = { ...entry, postingSince: nowMs, attempts: entry.attempts + 1 };
    await this.queue().update(entry.id, stored(next));
    return next;
  }

  /** The one write between Slack's answer and safety: it must stay a single small write. */
  markSent(entry: OutboxEntry<P>): Promise<void> {
    return this.queue().ack([entry.id], this.now() + this.sentRetentionMs);
  }

  async markFailed(entry: OutboxEntry<P>, error: string): Promise<void> {
    const { postingSince: _dropped, ...rest } = entry;
    await this.queue().update(entry.id, stored({ ...rest, lastError: error }));
  }

  /** Drops an entry that can never be delivered (a manager without a Slack account); it is not queued again. */
  discard(entry: OutboxEntry<P>): Promise<void> {
    return this.markSent(entry);
  }
}

function stored<P>(entry: OutboxEntry<P>): StoredEntry<P> {
  const { seq: _seq, ...rest } = entry;
  return rest;
}

export interface ThreadRef {
  readonly channel: string;
  readonly ts: string;
}

/** Thread roots per (channel, person) in namespace `alerts.threads`. */
export class ThreadIndex {
  constructor(
    private readonly namespace: KeyValueNamespace,
    private readonly retentionMs: number,
  ) {}

  private key(channel: string, threadKey: string): string {
    return `${channel}|${threadKey}`;
  }

  get(channel: string, threadKey: string): Promise<ThreadRef | undefined> {
    return this.namespace.get<ThreadRef>(this.key(channel, threadKey));
  }

  set(channel: string, threadKey: string, ref: ThreadRef): Promise<void> {
    return this.namespace.set(this.key(channel, threadKey), ref, this.retentionMs);
  }
}
