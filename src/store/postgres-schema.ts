import type pg from "pg";
import { StoreError } from "../errors.js";

/** One step of the schema: the statements that bring a database of `version - 1` to `version`. */
export interface PgMigration {
  readonly version: number;
  readonly statements: readonly string[];
}

/**
 * Advisory lock keys (the two-int form, so they cannot meet a one-bigint key of another program):
 * the leader lock (session-level, held by the leader's dedicated connection for its whole term)
 * and the schema lock (transaction-level, so that two replicas starting at once create the tables once).
 */
export const ADVISORY_CLASS = 0x7273_796e; // "rsyn"
export const LEADER_LOCK = 1;
export const SCHEMA_LOCK = 2;

/**
 * Version 1, in the schema the connection's `search_path` names (`public` unless the URL says
 * otherwise; one database or schema per deployment): key-value namespaces, durable queues (a
 * small `head` beside the body, and an index that covers the heads: the scan of what waits is
 * index-only) and key sets in tables of their own, plus the leadership epoch.
 */
const VERSION_1 = [
  `CREATE TABLE rs_kv (
     namespace text COLLATE "C" NOT NULL,
     key text COLLATE "C" NOT NULL,
     value text NOT NULL,
     expires bigint,
     PRIMARY KEY (namespace, key)
   )`,
  "CREATE INDEX rs_kv_expiry ON rs_kv (expires) WHERE expires IS NOT NULL",
  `CREATE TABLE rs_queue_items (
     seq bigserial PRIMARY KEY,
     queue text COLLATE "C" NOT NULL,
     id text COLLATE "C" NOT NULL,
     value text,
     expires bigint,
     head text,
     UNIQUE (queue, id)
   )`,
  "CREATE INDEX rs_queue_heads ON rs_queue_items (queue, seq) INCLUDE (id, head) WHERE value IS NOT NULL",
  "CREATE INDEX rs_queue_expiry ON rs_queue_items (expires) WHERE value IS NULL",
  `CREATE TABLE rs_key_sets (
     name text COLLATE "C" NOT NULL,
     key text COLLATE "C" NOT NULL,
     expires bigint NOT NULL,
     PRIMARY KEY (name, key)
   )`,
  "CREATE INDEX rs_key_sets_expiry ON rs_key_sets (expires)",
  // One row: the epoch of the newest leader. Every fenced write reads it FOR SHARE in its own
  // transaction; a new leader's increment waits for those transactions and fences out the rest.
  `CREATE TABLE rs_leadership (
     id int PRIMARY KEY CHECK (id = 1),
     epoch bigint NOT NULL,
     holder text NOT NULL,
     since timestamptz NOT NULL
   )`,
];

/**
 * The schema's steps; the version is in `rs_meta` (`schema_version`). A change to the tables after
 * a release is a new step here (never an edit of a released one).
 */
export const PG_MIGRATIONS: readonly PgMigration[] = [{ version: 1, statements: VERSION_1 }];

/** The version this release writes: the last step's. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS.at(-1)?.version ?? 0;

/** The store's own tables, for the sweep's size figure. */
export const STORE_TABLES = ["rs_kv", "rs_queue_items", "rs_key_sets"] as const;

async function foundVersion(client: pg.ClientBase): Promise<number> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('rs_meta')::text AS t");
  if (!exists.rows[0]?.t) return 0;
  const row = await client.query<{ value: string }>("SELECT value FROM rs_meta WHERE key = 'schema_version'");
  return Number(row.rows[0]?.value ?? 0);
}

/**
 * Creates the tables of a new database (or applies the steps an older one lacks) in one transaction (replicas starting together wait for
 * each other on the schema lock); a database written by a newer release is refused, never misread.
 * A current database is only read, so a role without CREATE rights can run the daemon on it.
 */
export async function ensurePgSchema(
  client: pg.ClientBase,
  location: string,
  migrations: readonly PgMigration[] = PG_MIGRATIONS,
): Promise<{ from: number }> {
  const latest = migrations.at(-1)?.version ?? 0;
  const refuse = (found: number) =>
    new StoreError(
      `State store ${location} was written by a newer release of retention-sync (schema ${found}; this release reads up to ${latest}). Run the newer release, or restore the backup taken before the upgrade.`,
    );
  const before = await foundVersion(client);
  if (before > latest) throw refuse(before);
  if (before === latest) return { from: before };
  // The lock is taken before BEGIN: a transaction started after it sees the tables another
  // replica created meanwhile (its catalog caches are refreshed when the transaction starts).
  await client.query("SELECT pg_advisory_lock($1, $2)", [ADVISORY_CLASS, SCHEMA_LOCK]);
  try {
    return await migrate(client, migrations, latest, refuse);
  } finally {
    await client.query("SELECT pg_advisory_unlock($1, $2)", [ADVISORY_CLASS, SCHEMA_LOCK]).catch(() => undefined);
  }
}

async function migrate(
  client: pg.ClientBase,
  migrations: readonly PgMigration[],
  latest: number,
  refuse: (found: number) => StoreError,
): Promise<{ from: number }> {
  await client.query("BEGIN");
  try {
    // Read again under the lock: another replica may have done it meanwhile.
    const found = await foundVersion(client);
    if (found > latest) throw refuse(found);
    if (found < latest) {
      await client.query("CREATE TABLE IF NOT EXISTS rs_meta (key text PRIMARY KEY, value text NOT NULL)");
      for (const step of migrations) {
        if (step.version <= found) continue;
        for (const statement of step.statements) await client.query(statement);
      }
      await client.query(
        `INSERT INTO rs_meta (key, value) VALUES ('schema_version', $1)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [String(latest)],
      );
    }
    await client.query("COMMIT");
    return { from: found };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
