/**
 * The state store's interface: the only persistence the rest of the code sees. Three shapes of
 * state, each with the operations its users need and nothing that would force an engine to scan:
 * key-value namespaces (cursors, thread roots, the roster memory, journals), durable queues (the
 * Slack outbox, the webhook inbox) and expiring key sets (changes and events already handled).
 * Writes that belong together go in one `transaction`.
 *
 * Replicas: an engine shared by several processes (Postgres) also offers a leader election and
 * fenced views (`fenced`), whose writes only commit while the writer's leadership epoch is the
 * newest. An engine of one process (SQLite) has no election, and its fenced view is itself.
 */
import type { FencedOutError } from "../errors.js";

/** A key-value namespace. Values are JSON-serializable; keys never contain the namespace prefix. */
export interface KeyValueNamespace {
  get<T>(key: string): Promise<T | undefined>;
  set<T>(key: string, value: T, ttlMs?: number): Promise<void>;
  /** The live values of `keys` (absent keys are left out), in one read. */
  getMany<T>(keys: readonly string[]): Promise<Map<string, T>>;
  /** Writes every entry in one statement (atomic), each expiring after `ttlMs` when given. */
  setMany<T>(entries: ReadonlyArray<readonly [string, T]>, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;
  /** Every live entry of this namespace, ordered by key. Meant for small namespaces. */
  entries<T>(): Promise<Array<[string, T]>>;
  clear(): Promise<void>;
}

/** An item of a durable queue, in the order it was enqueued. */
export interface QueuedItem<T> {
  readonly id: string;
  /** Enqueue order; unique within the store. */
  readonly seq: number;
  readonly value: T;
}

/** What a scan of waiting items returns: the small head without the body. */
export interface QueuedHead<H> {
  readonly id: string;
  readonly seq: number;
  /** Undefined for an item enqueued without one. */
  readonly head: H | undefined;
}

/**
 * A durable FIFO queue with ids (the outbox, the webhook inbox). An id stays known after `ack`
 * until `expiresAtMs`, so enqueueing a delivered item again is ignored. An item is a body
 * (`value`, written once) and an optional small `head` (bookkeeping, rewritten as often as
 * needed): `heads` scans what waits without reading a body, `values` reads the bodies of a few.
 * What must change together with an ack (a thread root written with a post's mark-sent) is
 * written in one `transaction`.
 */
export interface DurableQueue<T, H = never> {
  /** Stores the items whose id is neither waiting nor acked; returns how many were new. */
  enqueue(items: ReadonlyArray<{ readonly id: string; readonly value: T; readonly head?: H }>): Promise<number>;
  /** Waiting items with their bodies, in enqueue order (at most `limit`). */
  pending(limit?: number): Promise<Array<QueuedItem<T>>>;
  /** Waiting items' heads, in enqueue order (at most `limit`): never reads a body. */
  heads(limit?: number): Promise<Array<QueuedHead<H>>>;
  /** The bodies of the named items that still wait (an acked or unknown id is absent). */
  values(ids: readonly string[]): Promise<Map<string, T>>;
  countPending(): Promise<number>;
  /** Replaces a waiting item's head; false when it is not waiting. */
  setHead(id: string, head: H): Promise<boolean>;
  /** Done: the item is dropped, its id remembered until `expiresAtMs` (then swept). */
  ack(ids: readonly string[], expiresAtMs: number): Promise<void>;
}

/** A set of keys that expire (handled changes and webhook events). */
export interface KeySet {
  /** The subset of `keys` present and not expired at `nowMs`. */
  has(keys: readonly string[], nowMs: number): Promise<Set<string>>;
  add(keys: readonly string[], expiresAtMs: number): Promise<void>;
}

/** What a transaction can write: the same shapes, all committed together or not at all. */
export interface StoreScope {
  namespace(name: string): KeyValueNamespace;
  queue<T, H = never>(name: string): DurableQueue<T, H>;
  keySet(name: string): KeySet;
}

export interface SweepReport {
  /** Rows deleted because they expired: key-value entries, acked queue ids, keys of key sets. */
  readonly expired: number;
  /** Bytes given back to the file system by incremental vacuum (Postgres: by the deletes, as far as measured). */
  readonly reclaimedBytes: number;
  /** Size of the database file (Postgres: of the store's tables with their indexes and TOAST). */
  readonly fileBytes: number;
}

/** The fencing token a replica writes with: its leadership epoch, set by the daemon while it leads. */
export interface Fence {
  /** The epoch this replica leads with; undefined while it does not lead (every fenced write is refused). */
  readonly epoch: number | undefined;
  /** Called when a fenced write was refused: a newer leader took over, this replica must stop. */
  fencedOut(error: FencedOutError): void;
}

/** A leadership won in an election; it lasts until `lost` aborts or it is released. */
export interface LeaderTerm {
  /** The fencing token of this term: higher than every earlier term's. */
  readonly epoch: number;
  /** Aborted (reason: a sentence) when the session holding the leadership ended or stopped answering. */
  readonly lost: AbortSignal;
  /** Gives the leadership back: a standby can take over at once. */
  release(): Promise<void>;
}

export interface LeaderElectionOptions {
  /** How often the session holding the leadership is checked (default 2 s). */
  readonly heartbeatMs?: number;
  /** A check unanswered this long ends the term (default 5 s): the replica steps down first. */
  readonly heartbeatTimeoutMs?: number;
}

/** How replicas sharing one store agree on one leader. */
export interface LeaderElection {
  /** Tries once to become the leader; the term when this replica won, undefined when another leads. */
  tryAcquire(options?: LeaderElectionOptions): Promise<LeaderTerm | undefined>;
}

/** The state store: named namespaces, queues and key sets over one database. */
export interface StateStore extends StoreScope {
  /**
   * Runs `work` in one transaction: every write through `scope` commits together, or none does
   * when `work` throws. Keep it short and free of network I/O: other store operations wait for it.
   */
  transaction<T>(work: (scope: StoreScope) => Promise<T>): Promise<T>;
  /** Deletes what expired before `nowMs` and gives free pages back to the file system. */
  sweep(nowMs: number): Promise<SweepReport>;
  /** Where the state lives, for the start-up log line (never with a password). */
  readonly location: string;
  /** The leader election of a store that replicas share; undefined for a store of one process (SQLite). */
  readonly election: LeaderElection | undefined;
  /**
   * The same store, with every write (and every transaction) checked against `fence` in the
   * transaction that makes it: refused with a FencedOutError, and `fence.fencedOut` called, unless
   * `fence.epoch` is the newest leadership epoch. Reads are not checked. SQLite: the store itself.
   */
  fenced(fence: Fence): StateStore;
  close(): Promise<void>;
}
