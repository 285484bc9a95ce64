import type Keyv from "keyv";
import type { Runner } from "./sqlite-run.js";
import { KEYV_PREFIX, KV_TABLE, type Query } from "./sqlite-schema.js";
import type { KeyValueNamespace } from "./store-types.js";

export class SqliteNamespace implements KeyValueNamespace {
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
