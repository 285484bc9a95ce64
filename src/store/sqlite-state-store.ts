import { statSync } from "node:fs";
import { resolve } from "node:path";
import { prepareStateFiles, tightenStateFiles } from "./private-state-files.js";
import { ScopeDelegate } from "./scope-delegate.js";
import { openSqliteConnection, type SqliteConnection } from "./sqlite-connection.js";
import { SqliteNamespace } from "./sqlite-namespace.js";
import { SqliteKeySet, SqliteQueue } from "./sqlite-queue.js";
import { Gate, type Runner, storeFailure } from "./sqlite-run.js";
import { changesOf, ensureSchema, type Query, type SchemaReport } from "./sqlite-schema.js";
import type { Fence, StateStore, StoreScope, SweepReport } from "./store-types.js";

export class SqliteStateStore extends ScopeDelegate implements StateStore {
  private readonly gate = new Gate();
  private closed = false;
  private readonly gated: Runner;
  protected readonly scope: StoreScope;
  private readonly query: Query;

  constructor(
    private readonly connection: SqliteConnection,
    readonly location: string,
    private readonly file: string | undefined,
  ) {
    super();
    this.query = connection.query;
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
      namespace: (name) => new SqliteNamespace(this.query, name, run),
      queue: <T, H = never>(name: string) => new SqliteQueue<T, H>(this.query, name, run, inTransaction),
      keySet: (name) => new SqliteKeySet(this.query, name, run),
    };
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
        await this.query("DELETE FROM kv WHERE expires <= ?", now);
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
    await this.gate.run(() => this.connection.close());
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
  let connection: SqliteConnection;
  try {
    connection = await openSqliteConnection(file ?? ":memory:", 10_000);
  } catch (error) {
    throw storeFailure("opening", location, error);
  }
  const { query } = connection;
  try {
    await configure(query, onDisk);
    // WAL mode made the -wal and -shm files now: owner-only like the database.
    if (file) warnings.push(...tightenStateFiles(file));
    const schema = await ensureSchema(query, location);
    await enableIncrementalVacuum(query);
    const store = new SqliteStateStore(connection, location, file);
    // A probe write proves the file is a writable database before any job relies on it.
    await store.namespace("meta").set("openedAt", new Date(nowMs).toISOString());
    return { store, schema, warnings };
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw storeFailure("opening", location, error);
  }
}
