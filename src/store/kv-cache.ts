import type Keyv from "keyv";
import type { Logger } from "../logger.js";
import { isPostgresUrl } from "./postgres-url.js";
import { prepareStateFiles } from "./private-state-files.js";

/**
 * Caches of data read from elsewhere (Slack, the service) that may be lost without harm: keyv with
 * a TTL, through its public API. Nothing here joins a transaction of the state store, which is why
 * these are not namespaces of the store (ARCHITECTURE.md, Invariants).
 *
 * - SQLite state: one `@keyv/sqlite` file beside the state file, `<state>.cache.sqlite`, owner-only
 *   as the state files are, so what was read survives a restart (a restarted daemon does not ask
 *   Slack again for what it read a minute ago, and still has a group's last members when Slack
 *   cannot answer).
 * - Postgres state (replicas), or the state in memory (tests): a Keyv in memory, one per process.
 *   A replica may have no disk of its own worth writing to, and keyv's Postgres adapter keeps a
 *   module-wide pool beside the store's (docs/design/state-store.md); a new leader reading each
 *   group once more is one Slack call per group.
 *
 * keyv and `@keyv/sqlite` are imported here with `import()`: only a daemon that uses a cache loads
 * them (test/app/run-imports.test.ts).
 */

/** The cache file beside a SQLite state file; undefined when the state is a Postgres URL or in memory. */
export function kvCacheFile(stateLocation: string): string | undefined {
  if (isPostgresUrl(stateLocation) || stateLocation === "memory" || stateLocation === ":memory:") return undefined;
  return `${stateLocation}.cache.sqlite`;
}

export interface KvCacheOptions {
  /** `StateStore.location`: an absolute SQLite path, `memory`, or a (redacted) Postgres URL. */
  readonly stateLocation: string;
  /** Keyv's namespace: each cache's keys apart from the others' in the one file. */
  readonly namespace: string;
  /** The TTL of an entry set without its own. */
  readonly ttlMs: number;
  readonly logger: Logger;
}

/**
 * A Keyv for one cache. Its methods throw on a store error (`throwOnErrors`): the caller decides
 * what a failing cache means, usually a miss. A file that cannot be opened gives a Keyv in memory
 * and a warning: a cache is never a reason not to run.
 */
export async function openKvCache<Value>(options: KvCacheOptions): Promise<Keyv<Value>> {
  const { Keyv } = await import("keyv");
  const settings = { namespace: options.namespace, ttl: options.ttlMs, throwOnErrors: true };
  const file = kvCacheFile(options.stateLocation);
  if (file === undefined) return new Keyv<Value>(settings);
  let keyv: Keyv<Value> | undefined;
  try {
    // Created 0600 before the adapter opens it: sqlite3 would make it with the umask's mode.
    for (const warning of prepareStateFiles(file)) options.logger.warn({ cache: file }, warning);
    const { KeyvSqlite } = await import("@keyv/sqlite");
    keyv = new Keyv<Value>(new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: 5_000 }), settings);
    // The adapter opens the file in the background: a first read makes a failure to open throw here.
    await keyv.has("opened");
    return keyv;
  } catch (error) {
    await keyv?.disconnect().catch(() => undefined);
    options.logger.warn(
      { cache: file, err: error },
      "could not open the cache file: this cache is kept in memory until the daemon restarts",
    );
    return new Keyv<Value>(settings);
  }
}

/**
 * A cache opened on first use and closed at shutdown: a daemon whose configuration never asks for
 * it creates no file and loads no keyv. After `close` it opens nothing again (`get` rejects).
 */
export class LazyKvCache<Value> {
  private opened: Promise<Keyv<Value>> | undefined;
  private closed = false;

  constructor(private readonly open: () => Promise<Keyv<Value>>) {}

  get(): Promise<Keyv<Value>> {
    if (this.closed) return Promise.reject(new Error("the cache is closed (the daemon is stopping)"));
    this.opened ??= this.open();
    return this.opened;
  }

  async close(): Promise<void> {
    this.closed = true;
    const opened = this.opened;
    this.opened = undefined;
    if (opened) await (await opened).disconnect();
  }
}
