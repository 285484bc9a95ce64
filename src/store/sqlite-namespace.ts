import type { Runner } from "./sqlite-run.js";
import type { Query } from "./sqlite-schema.js";
import type { KeyValueNamespace } from "./store-types.js";

const parseValue = <T>(text: string): T | undefined => (JSON.parse(text) as T | null) ?? undefined;

/** When a value written now with `ttlMs` expires; never (null) without one. */
const expiryOf = (ttlMs: number | undefined): number | null =>
  ttlMs !== undefined && ttlMs > 0 ? Math.round(Date.now() + ttlMs) : null;

/**
 * A namespace in the table `kv` (as Postgres's `rs_kv`): plain statements on the store's
 * connection, so a write joins the transaction of the scope it came from. Expired rows are never
 * read, and deleted by the sweep.
 */
export class SqliteNamespace implements KeyValueNamespace {
  constructor(
    private readonly query: Query,
    private readonly name: string,
    private readonly run: Runner,
  ) {}

  get<T>(key: string): Promise<T | undefined> {
    return this.run(`read of ${this.name}`, async () => {
      const [row] = (await this.query(
        "SELECT value FROM kv WHERE namespace = ? AND key = ? AND (expires IS NULL OR expires > ?)",
        this.name,
        key,
        Date.now(),
      )) as Array<{ value: string }>;
      return row ? parseValue<T>(row.value) : undefined;
    });
  }

  set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
    return this.setMany([[key, value]], ttlMs);
  }

  getMany<T>(keys: readonly string[]): Promise<Map<string, T>> {
    if (keys.length === 0) return Promise.resolve(new Map());
    return this.run(`read of ${this.name}`, async () => {
      const rows = (await this.query(
        `SELECT key, value FROM kv WHERE namespace = ? AND key IN (SELECT value FROM json_each(?))
         AND (expires IS NULL OR expires > ?)`,
        this.name,
        JSON.stringify([...new Set(keys)]),
        Date.now(),
      )) as Array<{ key: string; value: string }>;
      const out = new Map<string, T>();
      for (const row of rows) {
        const value = parseValue<T>(row.value);
        if (value !== undefined) out.set(row.key, value);
      }
      return out;
    });
  }

  setMany<T>(entries: ReadonlyArray<readonly [string, T]>, ttlMs?: number): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    const expires = expiryOf(ttlMs);
    // One row per key: the last value of a key given twice.
    const latest = new Map(entries.map(([key, value]) => [key, JSON.stringify(value ?? null)]));
    return this.run(`write of ${this.name}`, async () => {
      await this.query(
        `INSERT INTO kv(namespace, key, value, expires)
         SELECT ?, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), ? FROM json_each(?) j WHERE true
         ON CONFLICT(namespace, key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
        this.name,
        expires,
        JSON.stringify([...latest]),
      );
    });
  }

  delete(key: string): Promise<boolean> {
    return this.run(`delete in ${this.name}`, async () => {
      const rows = await this.query("DELETE FROM kv WHERE namespace = ? AND key = ? RETURNING key", this.name, key);
      return rows.length > 0;
    });
  }

  /** One range scan on the primary key, ordered by key (byte order, as Postgres's `COLLATE "C"`). */
  entries<T>(): Promise<Array<[string, T]>> {
    return this.run(`listing of ${this.name}`, async () => {
      const rows = (await this.query(
        "SELECT key, value FROM kv WHERE namespace = ? AND (expires IS NULL OR expires > ?) ORDER BY key",
        this.name,
        Date.now(),
      )) as Array<{ key: string; value: string }>;
      const out: Array<[string, T]> = [];
      for (const row of rows) {
        const value = parseValue<T>(row.value);
        if (value !== undefined) out.push([row.key, value]);
      }
      return out;
    });
  }

  clear(): Promise<void> {
    return this.run(`clear of ${this.name}`, async () => {
      await this.query("DELETE FROM kv WHERE namespace = ?", this.name);
    });
  }
}
