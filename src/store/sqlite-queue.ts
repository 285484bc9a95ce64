import type { Runner } from "./sqlite-run.js";
import type { Query } from "./sqlite-schema.js";
import type { DurableQueue, KeySet, QueuedHead, QueuedItem } from "./store-types.js";

/** The key set that remembers a queue's acked ids until they expire. */
export function ackedKeySet(queue: string): string {
  return `${queue}#acked`;
}

export class SqliteQueue<T, H> implements DurableQueue<T, H> {
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
export class SqliteKeySet implements KeySet {
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
