/**
 * The state store's interface: the only persistence the rest of the code sees. Three shapes of
 * state, each with the operations its users need and nothing that would force an engine to scan:
 * key-value namespaces (cursors, thread roots, the roster memory, journals), durable queues (the
 * Slack outbox, the webhook inbox) and expiring key sets (changes and events already handled).
 * Writes that belong together go in one `transaction`.
 */

/** A key-value namespace. Values are JSON-serializable; keys never contain the namespace prefix. */
export interface KeyValueNamespace {
  get<T>(key: string): Promise<T | undefined>;
  set<T>(key: string, value: T, ttlMs?: number): Promise<void>;
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

/**
 * A durable FIFO queue with ids (the outbox, the webhook inbox). An id stays known after `ack`
 * until `expiresAtMs`, so enqueueing a delivered item again is ignored. Enqueue and ack are one
 * indexed write each; `pending` is one ordered scan.
 */
export interface DurableQueue<T> {
  /** Stores the items whose id is neither waiting nor acked; returns how many were new. */
  enqueue(items: ReadonlyArray<{ readonly id: string; readonly value: T }>): Promise<number>;
  /** Waiting items in enqueue order (at most `limit`). */
  pending(limit?: number): Promise<Array<QueuedItem<T>>>;
  countPending(): Promise<number>;
  /** Replaces a waiting item's value (delivery bookkeeping); false when it is not waiting. */
  update(id: string, value: T): Promise<boolean>;
  /** Done: the value is dropped, the id remembered until `expiresAtMs` (then swept). */
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
  queue<T>(name: string): DurableQueue<T>;
  keySet(name: string): KeySet;
}

export interface SweepReport {
  /** Rows deleted because they expired: key-value entries, acked queue ids, keys of key sets. */
  readonly expired: number;
  /** Bytes given back to the file system by incremental vacuum. */
  readonly reclaimedBytes: number;
  readonly fileBytes: number;
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
  /** Where the state lives, for the start-up log line. */
  readonly location: string;
  close(): Promise<void>;
}
