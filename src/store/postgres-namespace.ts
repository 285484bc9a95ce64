import { parseValue, type Runner } from "./postgres-session.js";
import type { KeyValueNamespace } from "./store-types.js";

export class PgNamespace implements KeyValueNamespace {
  constructor(
    private readonly name: string,
    private readonly run: Runner,
  ) {}

  get<T>(key: string): Promise<T | undefined> {
    return this.run(`read of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT value FROM rs_kv WHERE namespace = $1 AND key = $2 AND (expires IS NULL OR expires > $3)",
        [this.name, key, Date.now()],
      );
      const row = rows[0] as { value: string } | undefined;
      return row ? parseValue<T>(row.value) : undefined;
    });
  }

  set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
    const expires = ttlMs !== undefined && ttlMs > 0 ? Math.round(Date.now() + ttlMs) : null;
    return this.run(`write of ${this.name}`, true, async (sql) => {
      await sql(
        `INSERT INTO rs_kv (namespace, key, value, expires) VALUES ($1, $2, $3, $4)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
        [this.name, key, JSON.stringify(value ?? null), expires],
      );
    });
  }

  getMany<T>(keys: readonly string[]): Promise<Map<string, T>> {
    if (keys.length === 0) return Promise.resolve(new Map());
    return this.run(`read of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT key, value FROM rs_kv WHERE namespace = $1 AND key = ANY($2::text[]) AND (expires IS NULL OR expires > $3)",
        [this.name, [...new Set(keys)], Date.now()],
      );
      const out = new Map<string, T>();
      for (const row of rows as Array<{ key: string; value: string }>) {
        const value = parseValue<T>(row.value);
        if (value !== undefined) out.set(row.key, value);
      }
      return out;
    });
  }

  setMany<T>(entries: ReadonlyArray<readonly [string, T]>, ttlMs?: number): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    const expires = ttlMs !== undefined && ttlMs > 0 ? Math.round(Date.now() + ttlMs) : null;
    // One row per key (the last value of a key given twice), sorted: two writers lock in one order.
    const latest = new Map(entries.map(([key, value]) => [key, JSON.stringify(value ?? null)]));
    const keys = [...latest.keys()].sort();
    return this.run(`write of ${this.name}`, true, async (sql) => {
      await sql(
        `INSERT INTO rs_kv (namespace, key, value, expires)
         SELECT $1, k, v, $4 FROM unnest($2::text[], $3::text[]) AS t(k, v)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
        [this.name, keys, keys.map((key) => latest.get(key)), expires],
      );
    });
  }

  delete(key: string): Promise<boolean> {
    return this.run(`delete in ${this.name}`, true, async (sql) => {
      const result = await sql("DELETE FROM rs_kv WHERE namespace = $1 AND key = $2", [this.name, key]);
      return (result.rowCount ?? 0) > 0;
    });
  }

  entries<T>(): Promise<Array<[string, T]>> {
    return this.run(`listing of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT key, value FROM rs_kv WHERE namespace = $1 AND (expires IS NULL OR expires > $2) ORDER BY key",
        [this.name, Date.now()],
      );
      const out: Array<[string, T]> = [];
      for (const row of rows as Array<{ key: string; value: string }>) {
        const value = parseValue<T>(row.value);
        if (value !== undefined) out.push([row.key, value]);
      }
      return out;
    });
  }

  clear(): Promise<void> {
    return this.run(`clear of ${this.name}`, true, async (sql) => {
      await sql("DELETE FROM rs_kv WHERE namespace = $1", [this.name]);
    });
  }
}
