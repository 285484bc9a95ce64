import type pg from "pg";
import { StoreError } from "../errors.js";

/**
 * The Postgres engine's tables, in the schema the connection's `search_path` names (`public`
 * unless the URL says otherwise; one database or schema per deployment). Version 1 matches the
 * SQLite engine's schema 1: key-value namespaces, durable queues and key sets in tables of their
 * own, plus the leadership epoch. Version 2 matches SQLite's schema 2: a queue item's small `head`
 * beside its body, and an index that covers the heads. The version is in `rs_meta` (`schema_version`).
 */
export const PG_SCHEMA_VERSION = 2;

/**
 * Advisory lock keys (the two-int form, so they cannot meet a one-bigint key of another program):
 * the leader lock (session-level, held by the leader's dedicated connection for its whole term)
 * and the schema lock (transaction-level, so that two replicas starting at once create the tables once).
 */
export const ADVISORY_CLASS = 0x7273_796e; // "rsyn"
export const LEADER_LOCK = 1;
export const SCHEMA_LOCK = 2;

/** Covers the scan of waiting heads (an index-only scan); replaces version 1's `rs_queue_waiting`. */
const QUEUE_HEADS_INDEX =
  "CREATE INDEX IF NOT EXISTS rs_queue_heads ON rs_queue_items (queue, seq) INCLUDE (id, head) WHERE value IS NOT NULL";

/** Version 1 to 2: items written before have no head (readers derive it from the body). */
const HEADS_MIGRATION = [
  "ALTER TABLE rs_queue_items ADD COLUMN IF NOT EXISTS head text",
  "DROP INDEX IF EXISTS rs_queue_waiting",
  QUEUE_HEADS_INDEX,
];

const TABLES = [
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
  QUEUE_HEADS_INDEX,
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

/** The store's own tables, for the sweep's size figure. */
export const STORE_TABLES = ["rs_kv", "rs_queue_items", "rs_key_sets"] as const;

async function foundVersion(client: pg.ClientBase): Promise<number> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('rs_meta')::text AS t");
  if (!exists.rows[0]?.t) return 0;
  const row = await client.query<{ value: string }>("SELECT value FROM rs_meta WHERE key = 'schema_version'");
  return Number(row.rows[0]?.value ?? 0);
}

/**
 * Creates the tables of a new database in one transaction (replicas starting together wait for
 * each other on the schema lock); a database written by a newer release is refused, never misread.
 * A current database is only read, so a role without CREATE rights can run the daemon on it.
 */
export async function ensurePgSchema(client: pg.ClientBase, location: string): Promise<{ from: number }> {
  const refuse = (found: number) =>
    new StoreError(
      `State store ${location} was written by a newer release of retention-sync (schema ${found}; this release reads up to ${PG_SCHEMA_VERSION}). Run the newer release, or restore the backup taken before the upgrade.`,
    );
  const before = await foundVersion(client);
  if (before > PG_SCHEMA_VERSION) throw refuse(before);
  if (before === PG_SCHEMA_VERSION) return { from: before };
  // The lock is taken before BEGIN: a transaction started after it sees the tables another
  // replica created meanwhile (its catalog caches are refreshed when the transaction starts).
  await client.query("SELECT pg_advisory_lock($1, $2)", [ADVISORY_CLASS, SCHEMA_LOCK]);
  try {
    return await createTables(client, refuse);
  } finally {
    await client.query("SELECT pg_advisory_unlock($1, $2)", [ADVISORY_CLASS, SCHEMA_LOCK]).catch(() => undefined);
  }
}

async function createTables(client: pg.ClientBase, refuse: (found: number) => StoreError): Promise<{ from: number }> {
  await client.query("BEGIN");
  try {
    const found = await foundVersion(client);
    if (found > PG_SCHEMA_VERSION) throw refuse(found);
    if (found < PG_SCHEMA_VERSION) {
      await client.query("CREATE TABLE IF NOT EXISTS rs_meta (key text PRIMARY KEY, value text NOT NULL)");
      for (const statement of found === 0 ? TABLES : HEADS_MIGRATION) await client.query(statement);
      await client.query(
        `INSERT INTO rs_meta (key, value) VALUES ('schema_version', $1)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [String(PG_SCHEMA_VERSION)],
      );
    }
    await client.query("COMMIT");
    return { from: found };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
