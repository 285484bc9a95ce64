import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import KeyvSqlite from "@keyv/sqlite";
import Keyv from "keyv";
import { StoreError } from "../errors.js";

/**
 * A key-value namespace of the state store: the only persistence interface the rest of the
 * code sees. Values are JSON-serializable. Keys never contain the namespace prefix.
 */
export interface KeyValueNamespace {
  get<T>(key: string): Promise<T | undefined>;
  set<T>(key: string, value: T, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;
  /** Every live entry of this namespace. Meant for small namespaces (outbox, journal), not dedupe sets. */
  entries<T>(): Promise<Array<[string, T]>>;
  clear(): Promise<void>;
}

/** The state store: named namespaces over one keyv database (SQLite on disk, or memory in tests). */
export interface StateStore {
  namespace(name: string): KeyValueNamespace;
  /** Where the state lives, for the start-up log line. */
  readonly location: string;
  close(): Promise<void>;
}

const NS_SEPARATOR = "::";

function storeFailure(action: string, location: string, error: unknown): StoreError {
  const detail = error instanceof Error ? error.message : String(error);
  return new StoreError(
    `State store ${location}: ${action} failed: ${detail}. Check that the volume is writable, not full, and not used by another process.`,
    { cause: error },
  );
}

/** Lists the stored keys (without keyv's own namespace) that start with a prefix, when the backend can do it cheaply. */
type KeyLister = (prefix: string) => Promise<string[]>;

const KEYV_NAMESPACE = "rs";

class KeyvNamespace implements KeyValueNamespace {
  constructor(
    private readonly keyv: Keyv,
    private readonly prefix: string,
    private readonly location: string,
    private readonly listKeys: KeyLister | undefined,
  ) {}

  private async guard<T>(action: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw storeFailure(action, this.location, error);
    }
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.guard(`read of ${this.prefix}`, async () => (await this.keyv.get<T>(this.prefix + key)) ?? undefined);
  }

  set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
    return this.guard(`write of ${this.prefix}`, async () => {
      const ok = await this.keyv.set(this.prefix + key, value, ttlMs);
      if (ok === false) throw new Error("the store refused the write");
    });
  }

  delete(key: string): Promise<boolean> {
    return this.guard(`delete in ${this.prefix}`, () => this.keyv.delete(this.prefix + key));
  }

  entries<T>(): Promise<Array<[string, T]>> {
    return this.guard(`listing of ${this.prefix}`, async () => {
      if (this.listKeys) return this.entriesByQuery<T>(this.listKeys);
      const out: Array<[string, T]> = [];
      const iterator = this.keyv.iterator?.(undefined);
      if (!iterator) throw new Error("the store cannot list keys");
      for await (const [key, value] of iterator as AsyncIterable<[string, T]>) {
        if (typeof key === "string" && key.startsWith(this.prefix) && value !== undefined) {
          out.push([key.slice(this.prefix.length), value]);
        }
      }
      return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    });
  }

  /** One indexed query for the keys, one read for the values (expiry handled by keyv). */
  private async entriesByQuery<T>(listKeys: KeyLister): Promise<Array<[string, T]>> {
    const keys = await listKeys(this.prefix);
    const out: Array<[string, T]> = [];
    for (let i = 0; i < keys.length; i += 500) {
      const chunk = keys.slice(i, i + 500);
      const values = await this.keyv.getMany<T>(chunk);
      chunk.forEach((key, index) => {
        const value = values[index];
        if (value !== undefined && value !== null) out.push([key.slice(this.prefix.length), value as T]);
      });
    }
    return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async clear(): Promise<void> {
    const all = await this.entries<unknown>();
    await this.guard(`clear of ${this.prefix}`, async () => {
      for (const [key] of all) await this.keyv.delete(this.prefix + key);
    });
  }
}

class KeyvStateStore implements StateStore {
  private closed = false;
  constructor(
    private readonly keyv: Keyv,
    readonly location: string,
    private readonly listKeys?: KeyLister,
  ) {}

  namespace(name: string): KeyValueNamespace {
    return new KeyvNamespace(this.keyv, name + NS_SEPARATOR, this.location, this.listKeys);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.keyv.disconnect();
  }
}

/**
 * Opens the state database. `path` is a file path (created with its folder) or `:memory:`.
 * Fails with a StoreError naming the path when the database cannot be opened or written.
 */
export async function openStateStore(path: string): Promise<StateStore> {
  if (path === ":memory:") {
    return new KeyvStateStore(new Keyv({ namespace: KEYV_NAMESPACE }), "memory");
  }
  const file = resolve(path);
  try {
    mkdirSync(dirname(file), { recursive: true });
  } catch (error) {
    throw storeFailure("creating the folder", file, error);
  }
  let lastError: unknown;
  const sqlite = new KeyvSqlite({ uri: `sqlite://${file}`, table: "state", busyTimeout: 10_000 });
  const keyv = new Keyv({ store: sqlite, namespace: KEYV_NAMESPACE });
  keyv.on("error", (error: unknown) => {
    lastError = error;
  });
  // @keyv/sqlite's own iterator pages with OFFSET over every row of the table; a range on the
  // primary key is one indexed scan.
  const listKeys: KeyLister = async (prefix) => {
    const low = `${KEYV_NAMESPACE}:${prefix}`;
    const rows = (await sqlite.query(
      "SELECT key FROM state WHERE key >= ? AND key < ? ORDER BY key",
      low,
      `${low}\uffff`,
    )) as Array<{
      key: string;
    }>;
    return rows.map((row) => row.key.slice(KEYV_NAMESPACE.length + 1));
  };
  const store = new KeyvStateStore(keyv, file, listKeys);
  // A probe write proves the file is a writable SQLite database before any job relies on it.
  try {
    await store.namespace("meta").set("openedAt", new Date().toISOString());
  } catch (error) {
    await keyv.disconnect().catch(() => undefined);
    throw storeFailure("opening", file, lastError ?? error);
  }
  return store;
}
