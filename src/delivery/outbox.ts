import { POSTED_NAMESPACE, POSTED_RETENTION_MS, postedKey } from "../slack/posted-messages.js";
import type { SlackMessage } from "../slack/slack-message.js";
import type { PostedMessage } from "../slack/slack-poster.js";
import type { DurableQueue, StateStore, StoreScope } from "../store/state-store.js";

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
  /**
   * What the store keeps of this message once posted (namespace `slack.posted`, under the channel
   * id and ts Slack gives it, in the commit of its mark-sent): the people its buttons act on. JSON;
   * delivery never looks inside. Absent for a message without buttons.
   */
  readonly postedRecord?: unknown;
}

/**
 * The bookkeeping of a waiting message, kept apart from its body (the queue's head): what the
 * sender needs to group, order and resume messages, small enough that scanning thousands of them
 * and rewriting one on every post costs little.
 */
export interface OutboxHead {
  readonly channel: string;
  readonly kind: OutboxDraft["kind"];
  readonly enqueuedAt: number;
  readonly attempts: number;
  /** Set just before the post: an entry still carrying it after a restart may already be in Slack. */
  readonly postingSince?: number | undefined;
  readonly lastError?: string | undefined;
  /** The body names waiting entries this message replaces (`replaces`). */
  readonly replacing?: boolean | undefined;
}

/** A waiting message known by its head only. */
export interface WaitingMessage extends OutboxHead {
  readonly id: string;
  /** Place in the queue (enqueue order). */
  readonly seq: number;
}

/** A waiting message with its body: what the sender posts. */
export interface OutboxEntry<P = unknown> extends OutboxDraft<P>, WaitingMessage {}

/** A namespace value written in the commit of a post's mark-sent (a thread root, a message's record). */
export interface NamespaceWrite {
  readonly namespace: string;
  readonly key: string;
  readonly value: unknown;
  readonly ttlMs: number;
}

/** How long a delivered draft id is remembered by default: longer than any replay of a pass or event. */
export const DEFAULT_SENT_RETENTION_MS = 7 * 86_400_000;

/** A new draft's head. */
function headOf<P>(draft: OutboxDraft<P>, enqueuedAt: number): OutboxHead {
  return {
    channel: draft.channel,
    kind: draft.kind,
    enqueuedAt,
    attempts: 0,
    ...(draft.replaces && draft.replaces.length > 0 ? { replacing: true } : {}),
  };
}

/** The head fields alone (an entry also carries its body, which must never reach the head). */
function headOfMessage(message: WaitingMessage): OutboxHead {
  return {
    channel: message.channel,
    kind: message.kind,
    enqueuedAt: message.enqueuedAt,
    attempts: message.attempts,
    ...(message.postingSince === undefined ? {} : { postingSince: message.postingSince }),
    ...(message.lastError === undefined ? {} : { lastError: message.lastError }),
    ...(message.replacing ? { replacing: true } : {}),
  };
}

/**
 * The outbox (queue `alerts.outbox`): a message is written here before it is posted and acked
 * right after Slack confirms it, so a crash or a Slack outage loses nothing, and a replayed batch
 * cannot queue a delivered message again (an acked id is remembered for `sentRetentionMs`).
 * Each message is a body (the draft, written once) and a head (its bookkeeping): the waiting
 * messages are scanned by head, bodies are read a few at a time as they are posted, and the
 * bookkeeping of a post rewrites the head only.
 */
export class Outbox<P = unknown> {
  constructor(
    private readonly store: StateStore,
    private readonly sentRetentionMs = DEFAULT_SENT_RETENTION_MS,
    private readonly now: () => number = Date.now,
  ) {}

  private queue(scope: StoreScope = this.store): DurableQueue<OutboxDraft<P>, OutboxHead> {
    return scope.queue<OutboxDraft<P>, OutboxHead>(OUTBOX_QUEUE);
  }

  /**
   * Stores drafts neither waiting nor delivered already; returns how many were new. With `scope`,
   * inside the caller's transaction (a hand-over commits its messages with its handled changes).
   */
  enqueue(drafts: readonly OutboxDraft<P>[], nowMs: number, scope?: StoreScope): Promise<number> {
    return this.queue(scope).enqueue(
      drafts.map((draft) => ({ id: draft.id, value: draft, head: headOf(draft, nowMs) })),
    );
  }

  /** Every waiting message by its head, in enqueue order: no body is read. */
  async waiting(): Promise<WaitingMessage[]> {
    // Every draft is enqueued with its head (`enqueue`).
    return (await this.queue().heads()).flatMap((item) =>
      item.head === undefined ? [] : [{ ...item.head, id: item.id, seq: item.seq }],
    );
  }

  /** The waiting messages with their bodies, in the order given; one already acked is left out. */
  async load(messages: readonly WaitingMessage[]): Promise<OutboxEntry<P>[]> {
    const bodies = await this.queue().values(messages.map((m) => m.id));
    return messages.flatMap((message) => {
      const draft = bodies.get(message.id);
      return draft ? [{ ...draft, ...message }] : [];
    });
  }

  /** Every waiting entry with its body, in enqueue order (tests and tools; the sender reads by head). */
  async pending(): Promise<OutboxEntry<P>[]> {
    return this.load(await this.waiting());
  }

  /**
   * Replaces waiting entries by drafts that say so in `replaces` (a backlog of single alerts by its
   * digest), in one transaction: neither is lost nor posted twice.
   */
  replace(
    entries: readonly { readonly id: string }[],
    drafts: readonly OutboxDraft<P>[],
    nowMs: number,
  ): Promise<void> {
    return this.store.transaction(async (scope) => {
      await this.enqueue(drafts, nowMs, scope);
      await this.queue(scope).ack(
        entries.map((e) => e.id),
        nowMs + this.sentRetentionMs,
      );
    });
  }

  /**
   * Marks the waiting entries that a waiting replacement stands for; returns the others. (`replace`
   * commits both in one transaction; this keeps a store that holds both anyway from posting twice.)
   */
  async finishReplacements(messages: readonly WaitingMessage[], nowMs: number): Promise<WaitingMessage[]> {
    const replacing = messages.filter((m) => m.replacing === true);
    if (replacing.length === 0) return [...messages];
    const replaced = new Set((await this.load(replacing)).flatMap((e) => e.replaces ?? []));
    if (replaced.size === 0) return [...messages];
    await this.queue().ack([...replaced], nowMs + this.sentRetentionMs);
    return messages.filter((m) => !replaced.has(m.id));
  }

  size(): Promise<number> {
    return this.queue().countPending();
  }

  /** One small write: the head, never the body. */
  async markPosting(entry: OutboxEntry<P>, nowMs: number): Promise<OutboxEntry<P>> {
    const next: OutboxEntry<P> = { ...entry, postingSince: nowMs, attempts: entry.attempts + 1 };
    await this.queue().setHead(entry.id, headOfMessage(next));
    return next;
  }

  /**
   * The one commit between Slack's answer and safety: the ack and `writes` (a new thread root,
   * `ThreadIndex.rootPut`; the message's record, `postedRecordPut`) in one transaction.
   */
  markSent(entry: WaitingMessage, writes: readonly NamespaceWrite[] = []): Promise<void> {
    return this.store.transaction((scope) => this.settle(scope, entry, writes));
  }

  private async settle(scope: StoreScope, entry: WaitingMessage, writes: readonly NamespaceWrite[]): Promise<void> {
    await this.queue(scope).ack([entry.id], this.now() + this.sentRetentionMs);
    for (const write of writes) await scope.namespace(write.namespace).set(write.key, write.value, write.ttlMs);
  }

  async markFailed(entry: OutboxEntry<P>, error: string): Promise<OutboxEntry<P>> {
    const { postingSince: _dropped, ...rest } = entry;
    const next: OutboxEntry<P> = { ...rest, lastError: error };
    await this.queue().setHead(entry.id, headOfMessage(next));
    return next;
  }

  /** Drops an entry that can never be delivered (a manager without a Slack account); it is not queued again. */
  discard(entry: WaitingMessage): Promise<void> {
    return this.markSent(entry);
  }
}

export interface ThreadRef {
  readonly channel: string;
  readonly ts: string;
}

/** How many thread roots a ThreadIndex keeps in memory (the people alerted most recently). */
const REMEMBERED_ROOTS = 50_000;
/** A root read from the store is trusted from memory this long (its own expiry is not known). */
const READ_ROOT_TRUST_MS = 60 * 60_000;

/**
 * Thread roots per (channel, person) in namespace `alerts.threads`, held in memory: only the
 * process that leads posts, so the roots it read at its first post plus those it wrote since are
 * all the store holds, and a person with no root costs no read. Past REMEMBERED_ROOTS, the oldest
 * are forgotten and a root not in memory is read from the store.
 */
export class ThreadIndex {
  private readonly recent = new Map<string, { readonly ref: ThreadRef; readonly until: number }>();
  /** Set once every stored root is in `recent` (and none was forgotten since). */
  private complete = false;
  private loading: Promise<void> | undefined;
  private loadedIn: unknown;

  constructor(
    private readonly store: StoreScope,
    private readonly retentionMs: number,
    private readonly now: () => number = Date.now,
    /** The leadership term (replicas): another leader may have written roots between two terms of this one. */
    private readonly term: () => unknown = () => undefined,
  ) {}

  private key(channel: string, threadKey: string): string {
    return `${channel}|${threadKey}`;
  }

  async get(channel: string, threadKey: string): Promise<ThreadRef | undefined> {
    if (this.loading && this.loadedIn !== this.term()) {
      this.recent.clear();
      this.complete = false;
      this.loading = undefined;
    }
    if (!this.loading) {
      this.loadedIn = this.term();
      this.loading = this.loadAll().catch((error: unknown) => {
        this.loading = undefined;
        throw error;
      });
    }
    await this.loading;
    const key = this.key(channel, threadKey);
    const known = this.recent.get(key);
    if (known && known.until > this.now()) return known.ref;
    if (this.complete && !known) return undefined;
    const ref = await this.store.namespace(THREADS_NAMESPACE).get<ThreadRef>(key);
    if (ref) this.remember(key, ref, this.now() + Math.min(READ_ROOT_TRUST_MS, this.retentionMs));
    else this.recent.delete(key);
    return ref;
  }

  /** A new root as a write for the post's mark-sent (`Outbox.markSent`); `noteRoot` once it is committed. */
  rootPut(channel: string, threadKey: string, ref: ThreadRef): NamespaceWrite {
    return { namespace: THREADS_NAMESPACE, key: this.key(channel, threadKey), value: ref, ttlMs: this.retentionMs };
  }

  /** A root written with `rootPut` and committed: answered from memory from now on. */
  noteRoot(channel: string, threadKey: string, ref: ThreadRef): void {
    this.remember(this.key(channel, threadKey), ref, this.now() + this.retentionMs);
  }

  /** One read of every live root; a store holding more than memory keeps is read root by root instead. */
  private async loadAll(): Promise<void> {
    const all = await this.store.namespace(THREADS_NAMESPACE).entries<ThreadRef>();
    if (all.length > REMEMBERED_ROOTS) return;
    // Their own expiry is not known: trusted for the retention from now, at most one retention late.
    const until = this.now() + this.retentionMs;
    for (const [key, ref] of all) if (!this.recent.has(key)) this.recent.set(key, { ref, until });
    this.complete = true;
  }

  private remember(key: string, ref: ThreadRef, until: number): void {
    this.recent.delete(key);
    this.recent.set(key, { ref, until });
    if (this.recent.size > REMEMBERED_ROOTS) {
      const oldest = this.recent.keys().next().value;
      if (oldest !== undefined) this.recent.delete(oldest);
      this.complete = false;
    }
  }
}

/** A posted message's record (`OutboxDraft.postedRecord`) as a write for its mark-sent. */
export function postedRecordPut(posted: PostedMessage, record: unknown): NamespaceWrite {
  return {
    namespace: POSTED_NAMESPACE,
    key: postedKey(posted.channel, posted.ts),
    value: record,
    ttlMs: POSTED_RETENTION_MS,
  };
}
