import { StoreError } from "../errors.js";

/** Runs one SQL statement on the store's connection and returns its rows. */
export type Query = (sql: string, ...params: unknown[]) => Promise<unknown[]>;

/** One step of the schema: the statements that bring a database of `version - 1` to `version`. */
export interface Migration {
  readonly version: number;
  readonly statements: readonly string[];
}

// An index entry ends with the rowid (seq): (queue) alone keeps each queue in enqueue order.
const QUEUE_ORDER = "CREATE INDEX IF NOT EXISTS queue_order ON queue_items(queue)";
/**
 * Version 1: namespaces in `kv` (a row per key, its expiry in a column of its own, so the sweep is
 * one indexed delete), a queue item as a small row in `queue_items` (id, place, `head`: its delivery bookkeeping) with its body in
 * `queue_bodies`, so a scan of what waits never reads a body and rewriting the bookkeeping of a
 * message never rewrites its body; key sets in `key_sets`. Every row of `queue_items` waits (an ack
 * deletes it and leaves a tombstone in `key_sets`).
 */
const VERSION_1 = [
  `CREATE TABLE kv (
     namespace TEXT NOT NULL,
     key TEXT NOT NULL,
     value TEXT NOT NULL,
     expires INTEGER,
     PRIMARY KEY (namespace, key)
   )`,
  "CREATE INDEX kv_expiry ON kv(expires) WHERE expires IS NOT NULL",
  `CREATE TABLE queue_items (
     seq INTEGER PRIMARY KEY,
     queue TEXT NOT NULL,
     id TEXT NOT NULL,
     head TEXT,
     UNIQUE (queue, id)
   )`,
  QUEUE_ORDER,
  `CREATE TABLE queue_bodies (
     seq INTEGER PRIMARY KEY,
     value TEXT NOT NULL
   )`,
  `CREATE TABLE key_sets (
     name TEXT NOT NULL,
     key TEXT NOT NULL,
     expires INTEGER NOT NULL,
     PRIMARY KEY (name, key)
   ) WITHOUT ROWID`,
  "CREATE INDEX key_sets_expiry ON key_sets(expires)",
];

/**
 * The schema's steps, in `PRAGMA user_version`. A change to the tables after a release is a new
 * step here (never an edit of a released one), applied at open to a database of an earlier version.
 */
export const MIGRATIONS: readonly Migration[] = [{ version: 1, statements: VERSION_1 }];

/** The version this release writes: the last step's. */
export const SCHEMA_VERSION = latestVersion(MIGRATIONS);

export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.at(-1)?.version ?? 0;
}

/** Rows the last statement on this connection changed. */
export async function changesOf(query: Query): Promise<number> {
  const [row] = (await query("SELECT changes() AS n")) as Array<{ n: number }>;
  return row?.n ?? 0;
}

export interface SchemaReport {
  /** The version found when the database was opened (0 for a new one). */
  readonly from: number;
  /** The version it has now. */
  readonly to: number;
}

/**
 * Brings the database to the last version of `migrations` in one transaction; a database from a
 * newer release is refused, never misread. Runs before anything else touches the store.
 */
export async function ensureSchema(
  query: Query,
  location: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<SchemaReport> {
  const latest = latestVersion(migrations);
  const [{ user_version: found = 0 } = {}] = (await query("PRAGMA user_version")) as Array<{ user_version?: number }>;
  if (found > latest) {
    throw new StoreError(
      `State store ${location} was written by a newer release of retention-sync (schema ${found}; this release reads up to ${latest}). Run the newer release, or restore the backup taken before the upgrade.`,
    );
  }
  if (found === latest) return { from: found, to: latest };
  await query("BEGIN IMMEDIATE");
  try {
    for (const step of migrations) {
      if (step.version <= found) continue;
      for (const statement of step.statements) await query(statement);
    }
    await query(`PRAGMA user_version = ${latest}`);
    await query("COMMIT");
    return { from: found, to: latest };
  } catch (error) {
    await query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
