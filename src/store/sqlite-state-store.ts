import { statSync } from "node:fs";
import { resolve } from "node:path";
import KeyvSqlite from "@keyv/sqlite";
import Keyv from "keyv";
import { StoreError } from "../errors.js";
import { prepareStateFiles, tightenStateFiles } from "./private-state-files.js";
import { openSqliteConnection, type SqliteConnection, useConnection } from "./sqlite-connection.js";
import { changesOf, ensureSchema, KEYV_PREFIX, KV_TABLE, type Query, type SchemaReport } from "./sqlite-schema.js";
import type {
  DurableQueue,
  Fence,
  KeySet,
  KeyValueNamespace,
  QueuedHead,
  QueuedItem,
  StateStore,
  StoreScope,
  SweepReport,
} from "./store-types.js";

const NS_SEPARATOR = "::";

/** The key set that remembers a queue's acked ids until they expire. */
export function ackedKeySet(queue: string): string {
  return `${queue}#acked`;
}
export const KEYV_NAMESPACE = KEYV_PREFIX.slice(0, -1);

function storeFailure(action: string, location: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new StoreError(
    `State store ${location}: ${action} failed: ${detail}. Check that the volume is writable, not full, and not used by another process.`,
    { cause: error },
  );
}

/**
 * Runs store operations one at a time on the one connection. A transaction holds it from BEGIN to
 * COMMIT, so no other write can slip into it (and be rolled back with it) and no read sees it half
 * done. Each operation is a few statements, so the wait is short.
 */
class Gate {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work, work);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** How a scope runs an operation: through the gate, or directly inside a transaction that holds it. */
type Runner = <T>(action: string, work: () => Promise<T>) => Promise<T>;

class SqliteNamespace implements KeyValueNamespace {
  constructor(
    private readonly keyv: Keyv,
    private readonly query: Query,
    private readonly prefix: string,
    private readonly run: Runner,
  ) {}

  get<T>(key: string): Promise<T | undefined> {
    return this.run(`read of ${this.prefix}`, async () => (await this.keyv.get<T>(this.prefix + key)) ?? undefined);
  }

  set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
    return this.run(`write of ${this.prefix}`, async () => {
      const ok = await this.keyv.set(this.prefix + key, value, ttlMs);
      if (ok === false) throw new Error("the store refused the write");
    });
  }

  getMany<T>(keys: readonly string[]): Promise<Map<string, T>> {
    if (keys.length === 0) return Promise.resolve(new Map());
    return this.run(`read of ${this.prefix}`, async () => {
      const low = KEYV_PREFIX + this.prefix;
      const rows = (await this.query(
        `SELECT key, value FROM ${KV_TABLE} WHERE key IN (SELECT value FROM json_each(?))`,
        JSON.stringify(keys.map((key) => low + key)),
      )) as Array<{ key: string; value: string }>;
      const now = Date.now();
      const out = new Map<string, T>();
      for (const row of rows) {
        const stored = (await this.keyv.deserializeData(row.value)) as { value?: T; expires?: number } | undefined;
        if (!stored || (typeof stored.expires === "number" && stored.expires <= now)) continue;
        if (stored.value !== undefined && stored.value !== null) out.set(row.key.slice(low.length), stored.value);
      }
      return out;
    });
  }

  setMany<T>(entries: ReadonlyArray<readonly [string, T]>, ttlMs?: number): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    return this.run(`write of ${this.prefix}`, async () => {
      const expires = ttlMs !== undefined && ttlMs > 0 ? Date.now() + ttlMs : undefined;
      // keyv's own serialization, so that keyv reads these entries as its own.
      const rows = await Promise.all(
        entries.map(async ([key, value]) => [
          KEYV_PREFIX + this.prefix + key,
          await this.keyv.serializeData({ value, expires }),
        ]),
      );
      await this.query(
        `INSERT INTO ${KV_TABLE}(key, value)
         SELECT json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]') FROM json_each(?) j WHERE true
         ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
        JSON.stringify(rows),
      );
    });
  }

  delete(key: string): Promise<boolean> {
    return this.run(`delete in ${this.prefix}`, () => this.keyv.delete(this.prefix + key));
  }

  /** One range scan on the primary key; expired entries are skipped (the sweep deletes them). */
  entries<T>(): Promise<Array<[string, T]>> {
    return this.run(`listing of ${this.prefix}`, async () => {
      const low = KEYV_PREFIX + this.prefix;
      const rows = (await this.query(
        `SELECT key, value FROM ${KV_TABLE} WHERE key >= ? AND key < ? ORDER BY key`,
        low,
        `${low}\uffff`,
      )) as Array<{ key: string; value: string }>;
      const now = Date.now();
      const out: Array<[string, T]> = [];
      for (const row of rows) {
        const stored = JSON.parse(row.value) as { value?: T; expires?: number };
        if (typeof stored.expires === "number" && stored.expires <= now) continue;
        if (stored.value !== undefined && stored.value !== null) out.push([row.key.slice(low.length), stored.value]);
      }
      return out;
    });
  }

  clear(): Promise<void> {
    return this.run(`clear of ${this.prefix}`, async () => {
      const low = KEYV_PREFIX + this.prefix;
      await this.query(`DELETE FROM ${KV_TABLE} WHERE key >= ? AND key < ?`, low, `${low}\uffff`);
    });
  }
}

class SqliteQueue<T, H> implements DurableQueue<T, H> {
  constructor(
    private readonly query: Query,
    private readonly name: string,
    private readonly run: Runner,
    /** Inside a store transaction, which already makes several statements atomic. */
    private readonly inTransaction: boolean,
  ) {}

  /** Several statements as one: a SAVEPOINT outside a transaction, the transaction itself inside one. */
  private atomic<R>(name: string, work: () => Promise<R>): Promise<R> {
    return this.inTransaction ? work() : savepoint(this.query, name, work);
  }

  enqueue(items: ReadonlyArray<{ readonly id: string; readonly value: T; readonly head?: H }>): Promise<number> {
    if (items.length === 0) return Promise.resolve(0);
    return this.run(`enqueue in ${this.name}`, async () => {
      // Two statements for the batch, atomic inside or outside a transaction: the rows of ids
      // neither waiting nor acked (their tombstone), in order, then the bodies of those new rows.
      return this.atomic("queue_enqueue", async () => {
        const added = (await this.query(
          `INSERT OR IGNORE INTO queue_items(queue, id, head)
           SELECT ?, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]') FROM json_each(?) j
           WHERE NOT EXISTS (SELECT 1 FROM key_sets k WHERE k.name = ? AND k.key = json_extract(j.value, '$[0]'))
           ORDER BY j.key
           RETURNING seq, id`,
          this.name,
          JSON.stringify(items.map((item) => [item.id, item.head === undefined ? null : JSON.stringify(item.head)])),
          ackedKeySet(this.name),
        )) as Array<{ seq: number; id: string }>;
        if (added.length === 0) return 0;
        const seqOf = new Map(added.map((row) => [row.id, row.seq]));
        const bodies: Array<[number, string]> = [];
        for (const item of items) {
          const seq = seqOf.get(item.id);
          if (seq === undefined) continue;
          seqOf.delete(item.id); // an id twice in one batch: its first value, as its row
          bodies.push([seq, JSON.stringify(item.value)]);
        }
        await this.query(
          `INSERT INTO queue_bodies(seq, value)
           SELECT json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]') FROM json_each(?) j`,
          JSON.stringify(bodies),
        );
        return added.length;
      });
    });
  }

  pending(limit = -1): Promise<Array<QueuedItem<T>>> {
    return this.run(`scan of ${this.name}`, async () => {
      const rows = (await this.query(
        `SELECT q.id, q.seq, b.value FROM queue_items q JOIN queue_bodies b ON b.seq = q.seq
         WHERE q.queue = ? ORDER BY q.seq LIMIT ?`,
        this.name,
        limit,
      )) as Array<{ id: string; seq: number; value: string }>;
      return rows.map((row) => ({ id: row.id, seq: row.seq, value: JSON.parse(row.value) as T }));
    });
  }

  heads(limit = -1): Promise<Array<QueuedHead<H>>> {
    return this.run(`scan of ${this.name}`, async () => {
      // Small rows only: the bodies' table is not read.
      const rows = (await this.query(
        "SELECT id, seq, head FROM queue_items WHERE queue = ? ORDER BY seq LIMIT ?",
        this.name,
        limit,
      )) as Array<{ id: string; seq: number; head: string | null }>;
      return rows.map((row) => ({
        id: row.id,
        seq: row.seq,
        head: row.head === null ? undefined : (JSON.parse(row.head) as H),
      }));
    });
  }

  values(ids: readonly string[]): Promise<Map<string, T>> {
    if (ids.length === 0) return Promise.resolve(new Map());
    return this.run(`read of ${this.name}`, async () => {
      const rows = (await this.query(
        `SELECT q.id, b.value FROM queue_items q JOIN queue_bodies b ON b.seq = q.seq
         WHERE q.queue = ? AND q.id IN (SELECT value FROM json_each(?))`,
        this.name,
        JSON.stringify(ids),
      )) as Array<{ id: string; value: string }>;
      return new Map(rows.map((row) => [row.id, JSON.parse(row.value) as T]));
    });
  }

  countPending(): Promise<number> {
    return this.run(`count of ${this.name}`, async () => {
      const [row] = (await this.query("SELECT count(*) AS n FROM queue_items WHERE queue = ?", this.name)) as Array<{
        n: number;
      }>;
      return row?.n ?? 0;
    });
  }

  setHead(id: string, head: H): Promise<boolean> {
    return this.run(`update in ${this.name}`, async () => {
      const rows = await this.query(
        "UPDATE queue_items SET head = ? WHERE queue = ? AND id = ? RETURNING seq",
        JSON.stringify(head),
        this.name,
        id,
      );
      return rows.length > 0;
    });
  }

  ack(ids: readonly string[], expiresAtMs: number): Promise<void> {
    if (ids.length === 0) return Promise.resolve();
    const list = JSON.stringify(ids);
    return this.run(`ack in ${this.name}`, () =>
      // The tombstones, then the rows and their bodies deleted (not emptied: SQLite does not
      // compact pages on UPDATE), atomic inside or outside a transaction.
      this.atomic("queue_ack", async () => {
        await this.query(
          `INSERT INTO key_sets(name, key, expires) SELECT ?, value, ? FROM json_each(?) WHERE true
           ON CONFLICT(name, key) DO UPDATE SET expires = max(expires, excluded.expires)`,
          ackedKeySet(this.name),
          Math.round(expiresAtMs),
          list,
        );
        await this.query(
          `DELETE FROM queue_bodies WHERE seq IN
             (SELECT seq FROM queue_items WHERE queue = ? AND id IN (SELECT value FROM json_each(?)))`,
          this.name,
          list,
        );
        await this.query(
          "DELETE FROM queue_items WHERE queue = ? AND id IN (SELECT value FROM json_each(?))",
          this.name,
          list,
        );
      }),
    );
  }
}

/** Runs `work` under a SAVEPOINT: its statements are atomic inside a transaction or outside one. */
async function savepoint<R>(query: Query, name: string, work: () => Promise<R>): Promise<R> {
  await query(`SAVEPOINT ${name}`);
  try {
    const result = await work();
    await query(`RELEASE ${name}`);
    return result;
  } catch (error) {
    await query(`ROLLBACK TO ${name}`).catch(() => undefined);
    await query(`RELEASE ${name}`).catch(() => undefined);
    throw error;
  }
}

class SqliteKeySet implements KeySet {
  constructor(
    private readonly query: Query,
    private readonly name: string,
    private readonly run: Runner,
  ) {}

  has(keys: readonly string[], nowMs: number): Promise<Set<string>> {
    if (keys.length === 0) return Promise.resolve(new Set());
    return this.run(`read of ${this.name}`, async () => {
      const rows = (await this.query(
        "SELECT key FROM key_sets WHERE name = ? AND expires > ? AND key IN (SELECT value FROM json_each(?))",
        this.name,
        Math.round(nowMs),
        JSON.stringify([...new Set(keys)]),
      )) as Array<{ key: string }>;
      return new Set(rows.map((row) => row.key));
    });
  }

  add(keys: readonly string[], expiresAtMs: number): Promise<void> {
    if (keys.length === 0) return Promise.resolve();
    return this.run(`write of ${this.name}`, async () => {
      await this.query(
        `INSERT INTO key_sets(name, key, expires) SELECT ?, value, ? FROM json_each(?) WHERE true
         ON CONFLICT(name, key) DO UPDATE SET expires = max(expires, excluded.expires)`,
        this.name,
        Math.round(expiresAtMs),
        JSON.stringify([...new Set(keys)]),
      );
    });
  }
}

export class SqliteStateStore implements StateStore {
  private readonly gate = new Gate();
  private closed = false;
  private readonly gated: Runner;
  private readonly scope: StoreScope;

  constructor(
    private readonly keyv: Keyv,
    private readonly query: Query,
    readonly location: string,
    private readonly file: string | undefined,
  ) {
    this.gated = (action, work) =>
      this.gate.run(async () => {
        try {
          return await work();
        } catch (error) {
          throw storeFailure(action, this.location, error);
        }
      });
    this.scope = this.scopeWith(this.gated, false);
  }

  private scopeWith(run: Runner, inTransaction: boolean): StoreScope {
    return {
      namespace: (name) => new SqliteNamespace(this.keyv, this.query, name + NS_SEPARATOR, run),
      queue: <T, H = never>(name: string) => new SqliteQueue<T, H>(this.query, name, run, inTransaction),
      keySet: (name) => new SqliteKeySet(this.query, name, run),
    };
  }

  namespace(name: string): KeyValueNamespace {
    return this.scope.namespace(name);
  }

  queue<T, H = never>(name: string): DurableQueue<T, H> {
    return this.scope.queue<T, H>(name);
  }

  keySet(name: string): KeySet {
    return this.scope.keySet(name);
  }

  /** One process per file (the instance lease in `daemon.lock`): no election. */
  readonly election = undefined;

  /** The fence is trivially true for the one process that holds the file's lease. */
  fenced(_fence: Fence): StateStore {
    return this;
  }

  transaction<T>(work: (scope: StoreScope) => Promise<T>): Promise<T> {
    const direct: Runner = async (action, step) => {
      try {
        return await step();
      } catch (error) {
        throw storeFailure(action, this.location, error);
      }
    };
    return this.gate.run(async () => {
      try {
        await this.query("BEGIN IMMEDIATE");
      } catch (error) {
        throw storeFailure("starting a transaction", this.location, error);
      }
      let result: T;
      try {
        result = await work(this.scopeWith(direct, true));
      } catch (error) {
        // The work's own error (or a store operation's StoreError) goes to the caller unchanged.
        await this.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
      try {
        await this.query("COMMIT");
      } catch (error) {
        await this.query("ROLLBACK").catch(() => undefined);
        throw storeFailure("committing a transaction", this.location, error);
      }
      return result;
    });
  }

  sweep(nowMs: number): Promise<SweepReport> {
    const now = Math.round(nowMs);
    return this.gate.run(async () => {
      try {
        let expired = 0;
        await this.query("DELETE FROM key_sets WHERE expires <= ?", now);
        expired += await changesOf(this.query);
        // keyv keeps its expiry inside the value and deletes an entry only when it is read again.
        await this.query(`DELETE FROM ${KV_TABLE} WHERE json_extract(value, '$.expires') <= ?`, now);
        expired += await changesOf(this.query);
        const before = this.fileBytes();
        await this.query("PRAGMA incremental_vacuum");
        if (this.file) await this.query("PRAGMA wal_checkpoint(TRUNCATE)");
        const after = this.fileBytes();
        return { expired, reclaimedBytes: Math.max(0, before - after), fileBytes: after };
      } catch (error) {
        throw storeFailure("the expiry sweep", this.location, error);
      }
    });
  }

  private fileBytes(): number {
    if (!this.file) return 0;
    try {
      return statSync(this.file).size;
    } catch {
      return 0;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.gate.run(() => this.keyv.disconnect());
  }
}

async function configure(query: Query, onDisk: boolean): Promise<void> {
  // WAL with synchronous=NORMAL: a commit is one append to the log, no fsync; a crash of the
  // process loses nothing committed, a power loss can lose the last commits (not corrupt the file).
  if (onDisk) await query("PRAGMA journal_mode = WAL");
  await query("PRAGMA synchronous = NORMAL");
}

/** Once per database: the VACUUM that switches the mode is all but free on a new file. */
async function enableIncrementalVacuum(query: Query): Promise<void> {
  const [mode] = (await query("PRAGMA auto_vacuum")) as Array<{ auto_vacuum: number }>;
  if (mode?.auto_vacuum !== 2) {
    // Incremental auto-vacuum lets the sweep give free pages back; switching needs one VACUUM.
    await query("PRAGMA auto_vacuum = INCREMENTAL");
    await query("VACUUM");
  }
}

export interface OpenedStore {
  readonly store: StateStore;
  readonly schema: SchemaReport;
  /** About the files' permissions (a folder open to others): logged by the opener. */
  readonly warnings: readonly string[];
}

/**
 * Opens the state database, bringing it to this release's schema (or refusing one from a newer
 * release). `path` is a file path (created with its folder) or `:memory:` (tests).
 */
export async function openSqliteStateStore(path: string, nowMs = Date.now()): Promise<OpenedStore> {
  const onDisk = path !== ":memory:";
  const file = onDisk ? resolve(path) : undefined;
  const location = file ?? "memory";
  const warnings: string[] = [];
  if (file) {
    try {
      warnings.push(...prepareStateFiles(file));
    } catch (error) {
      throw storeFailure("creating the folder", file, error);
    }
  }
  let lastError: unknown;
  let connection: SqliteConnection;
  try {
    connection = await openSqliteConnection(file ?? ":memory:", 10_000);
  } catch (error) {
    throw storeFailure("opening", location, error);
  }
  // keyv's adapter, made on an in-memory database of its own, then pointed at the store's connection.
  const sqlite = new KeyvSqlite({ uri: "sqlite://:memory:", table: KV_TABLE });
  const keyv = new Keyv({ store: sqlite, namespace: KEYV_NAMESPACE });
  keyv.on("error", (error: unknown) => {
    lastError = error;
  });
  const { query } = connection;
  try {
    await useConnection(sqlite, connection);
    await configure(query, onDisk);
    // WAL mode made the -wal and -shm files now: owner-only like the database.
    if (file) warnings.push(...tightenStateFiles(file));
    const schema = await ensureSchema(query, location);
    await enableIncrementalVacuum(query);
    const store = new SqliteStateStore(keyv, query, location, file);
    // A probe write proves the file is a writable database before any job relies on it.
    await store.namespace("meta").set("openedAt", new Date(nowMs).toISOString());
    return { store, schema, warnings };
  } catch (error) {
    await connection.close().catch(() => undefined);
    if (error instanceof StoreError && lastError === undefined) throw error;
    throw storeFailure("opening", location, lastError ?? error);
  }
}
