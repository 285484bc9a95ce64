import type { SlackMessage } from "../slack/slack-message.js";
import type { KeyValueNamespace } from "../store/state-store.js";

export const OUTBOX_NAMESPACE = "alerts.outbox";
export const THREADS_NAMESPACE = "alerts.threads";
/** The ids waiting, in one key: listing a namespace scans the whole store (dedupe keys included). */
export const OUTBOX_INDEX_NAMESPACE = "alerts.outbox-index";
const INDEX_KEY = "pending";

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
  readonly seq: number;
  readonly attempts: number;
  /** Set just before the post: an entry still carrying it after a restart may already be in Slack. */
  readonly postingSince?: number | undefined;
  readonly lastError?: string | undefined;
}

/** What stays of a delivered entry: enough to refuse the same draft id again for a while. */
interface SentMark {
  readonly sentAt: number;
}
type Stored<P> = OutboxEntry<P> | SentMark;

function isSent<P>(value: Stored<P>): value is SentMark {
  return "sentAt" in value;
}

/** How long a delivered draft id is remembered by default: longer than any replay of a pass or event. */
export const DEFAULT_SENT_RETENTION_MS = 7 * 86_400_000;

/**
 * The outbox (namespace `alerts.outbox`): an alert is written here before it is posted and
 * replaced by a small sent mark right after Slack confirms it, so a crash or a Slack outage loses
 * nothing, and a replayed batch cannot queue a delivered message again.
 */
export class Outbox<P = unknown> {
  private seq = 0;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly namespace: KeyValueNamespace,
    private readonly index: KeyValueNamespace,
    private readonly sentRetentionMs = DEFAULT_SENT_RETENTION_MS,
  ) {}

  /** Serialises read-modify-writes of the index within this process. */
  private locked<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async ids(): Promise<string[]> {
    return (await this.index.get<string[]>(INDEX_KEY)) ?? [];
  }

  /** Stores drafts neither waiting nor delivered already. Returns how many were new. */
  enqueue(drafts: readonly OutboxDraft<P>[], nowMs: number): Promise<number> {
    return this.locked(async () => {
      const fresh: OutboxEntry<P>[] = [];
      for (const draft of drafts) {
        if ((await this.namespace.get<Stored<P>>(draft.id)) !== undefined) continue;
        this.seq += 1;
        fresh.push({ ...draft, enqueuedAt: nowMs, seq: this.seq, attempts: 0 });
      }
      if (fresh.length === 0) return 0;
      // Index first: an id without an entry is pruned later; an entry missing from the index would be lost.
      const ids = await this.ids();
      const known = new Set(ids);
      await this.index.set(INDEX_KEY, [...ids, ...fresh.map((e) => e.id).filter((id) => !known.has(id))]);
      for (const entry of fresh) await this.namespace.set(entry.id, entry);
      return fresh.length;
    });
  }

  /** Every waiting entry, in enqueue order; ids of sent entries are pruned from the index. */
  pending(): Promise<OutboxEntry<P>[]> {
    return this.locked(async () => {
      const ids = await this.ids();
      const entries: OutboxEntry<P>[] = [];
      for (const id of ids) {
        const entry = await this.namespace.get<Stored<P>>(id);
        if (entry && !isSent(entry)) entries.push(entry);
      }
      if (entries.length !== ids.length)
        await this.index.set(
          INDEX_KEY,
          entries.map((e) => e.id),
        );
      return entries.sort((a, b) => a.enqueuedAt - b.enqueuedAt || a.seq - b.seq);
    });
  }

  /**
   * Replaces waiting entries by drafts that say so in `replaces` (a backlog of single alerts by its
   * digest). The drafts are stored first; a crash before the entries are marked leaves both, and
   * `finishReplacements` completes it on the next flush, so neither is lost nor posted twice.
   */
  async replace(entries: readonly OutboxEntry<P>[], drafts: readonly OutboxDraft<P>[], nowMs: number): Promise<void> {
    await this.enqueue(drafts, nowMs);
    await this.markReplaced(entries, nowMs);
  }

  /** Marks the waiting entries that a waiting replacement stands for; returns the others. */
  async finishReplacements(entries: readonly OutboxEntry<P>[], nowMs: number): Promise<OutboxEntry<P>[]> {
    const replaced = new Set(entries.flatMap((e) => e.replaces ?? []));
    if (replaced.size === 0) return [...entries];
    await this.markReplaced(
      entries.filter((e) => replaced.has(e.id)),
      nowMs,
    );
    return entries.filter((e) => !replaced.has(e.id));
  }

  private async markReplaced(entries: readonly OutboxEntry<P>[], nowMs: number): Promise<void> {
    for (const entry of entries) await this.markDone(entry, nowMs);
  }

  async size(): Promise<number> {
    return (await this.pending()).length;
  }

  async markPosting(entry: OutboxEntry<P>, nowMs: number): Promise<OutboxEntry<P>> {
    const next: OutboxEntry<P> = { ...entry, postingSince: nowMs, attempts: entry.attempts + 1 };
    await this.namespace.set(entry.id, next);
    return next;
  }

  /** The one write between Slack's answer and safety: it must stay a single small write. */
  async markSent(entry: OutboxEntry<P>): Promise<void> {
    await this.markDone(entry, Date.now());
  }

  /** Replaces an entry by its sent mark: done, and not to be queued again for a while. */
  private async markDone(entry: OutboxEntry<P>, nowMs: number): Promise<void> {
    await this.namespace.set<SentMark>(entry.id, { sentAt: nowMs }, this.sentRetentionMs);
  }

  async markFailed(entry: OutboxEntry<P>, error: string): Promise<void> {
    const { postingSince: _dropped, ...rest } = entry;
    await this.namespace.set(entry.id, { ...rest, lastError: error });
  }

  /** Drops an entry that can never be delivered (a manager without a Slack account); it is not queued again. */
  async discard(entry: OutboxEntry<P>): Promise<void> {
    await this.markDone(entry, Date.now());
  }
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
