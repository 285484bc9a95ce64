import type { Runner } from "./postgres-session.js";
import type { DurableQueue, KeySet, QueuedHead, QueuedItem } from "./store-types.js";

export class PgQueue<T, H> implements DurableQueue<T, H> {
  constructor(
    private readonly name: string,
    private readonly run: Runner,
  ) {}

  enqueue(items: ReadonlyArray<{ readonly id: string; readonly value: T; readonly head?: H }>): Promise<number> {
    if (items.length === 0) return Promise.resolve(0);
    return this.run(`enqueue in ${this.name}`, true, async (sql) => {
      // One statement for the batch, in order; ids already waiting or acked are ignored.
      const result = await sql(
        `INSERT INTO rs_queue_items (queue, id, value, head)
         SELECT $1, t.id, t.value, t.head
         FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS t(id, value, head, n) ORDER BY t.n
         ON CONFLICT (queue, id) DO NOTHING`,
        [
          this.name,
          items.map((item) => item.id),
          items.map((item) => JSON.stringify(item.value)),
          items.map((item) => (item.head === undefined ? null : JSON.stringify(item.head))),
        ],
      );
      return result.rowCount ?? 0;
    });
  }

  pending(limit?: number): Promise<Array<QueuedItem<T>>> {
    return this.run(`scan of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT id, seq, value FROM rs_queue_items WHERE queue = $1 AND value IS NOT NULL ORDER BY seq LIMIT $2",
        [this.name, limit !== undefined && limit >= 0 ? limit : null],
      );
      return (rows as Array<{ id: string; seq: string; value: string }>).map((row) => ({
        id: row.id,
        seq: Number(row.seq),
        value: JSON.parse(row.value) as T,
      }));
    });
  }

  heads(limit?: number): Promise<Array<QueuedHead<H>>> {
    return this.run(`scan of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT id, seq, head FROM rs_queue_items WHERE queue = $1 AND value IS NOT NULL ORDER BY seq LIMIT $2",
        [this.name, limit !== undefined && limit >= 0 ? limit : null],
      );
      return (rows as Array<{ id: string; seq: string; head: string | null }>).map((row) => ({
        id: row.id,
        seq: Number(row.seq),
        head: row.head === null ? undefined : (JSON.parse(row.head) as H),
      }));
    });
  }

  values(ids: readonly string[]): Promise<Map<string, T>> {
    if (ids.length === 0) return Promise.resolve(new Map());
    return this.run(`read of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT id, value FROM rs_queue_items WHERE queue = $1 AND id = ANY($2::text[]) AND value IS NOT NULL",
        [this.name, [...new Set(ids)]],
      );
      return new Map((rows as Array<{ id: string; value: string }>).map((row) => [row.id, JSON.parse(row.value) as T]));
    });
  }

  countPending(): Promise<number> {
    return this.run(`count of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT count(*)::int AS n FROM rs_queue_items WHERE queue = $1 AND value IS NOT NULL",
        [this.name],
      );
      return (rows[0] as { n: number } | undefined)?.n ?? 0;
    });
  }

  setHead(id: string, head: H): Promise<boolean> {
    return this.run(`update in ${this.name}`, true, async (sql) => {
      const result = await sql(
        "UPDATE rs_queue_items SET head = $1 WHERE queue = $2 AND id = $3 AND value IS NOT NULL",
        [JSON.stringify(head), this.name, id],
      );
      return (result.rowCount ?? 0) > 0;
    });
  }

  ack(ids: readonly string[], expiresAtMs: number): Promise<void> {
    if (ids.length === 0) return Promise.resolve();
    return this.run(`ack in ${this.name}`, true, async (sql) => {
      await sql("UPDATE rs_queue_items SET value = NULL, expires = $1 WHERE queue = $2 AND id = ANY($3::text[])", [
        Math.round(expiresAtMs),
        this.name,
        [...new Set(ids)].sort(),
      ]);
    });
  }
}

export class PgKeySet implements KeySet {
  constructor(
    private readonly name: string,
    private readonly run: Runner,
  ) {}

  has(keys: readonly string[], nowMs: number): Promise<Set<string>> {
    if (keys.length === 0) return Promise.resolve(new Set());
    return this.run(`read of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT key FROM rs_key_sets WHERE name = $1 AND expires > $2 AND key = ANY($3::text[])",
        [this.name, Math.round(nowMs), [...new Set(keys)]],
      );
      return new Set((rows as Array<{ key: string }>).map((row) => row.key));
    });
  }

  add(keys: readonly string[], expiresAtMs: number): Promise<void> {
    if (keys.length === 0) return Promise.resolve();
    return this.run(`write of ${this.name}`, true, async (sql) => {
      // Sorted, so that two writers lock shared keys in the same order (no deadlock).
      await sql(
        `INSERT INTO rs_key_sets (name, key, expires) SELECT $1, k, $2 FROM unnest($3::text[]) AS k ORDER BY k
         ON CONFLICT (name, key) DO UPDATE SET expires = GREATEST(rs_key_sets.expires, excluded.expires)`,
        [this.name, Math.round(expiresAtMs), [...new Set(keys)].sort()],
      );
    });
  }
}
