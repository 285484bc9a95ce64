import { StoreError } from "../errors.js";

/** Runs one SQL statement on the store's connection and returns its rows. */
export type Query = (sql: string, ...params: unknown[]) => Promise<unknown[]>;

/** The table keyv (@keyv/sqlite) keeps its namespaces in, and keyv's own key prefix. */
export const KV_TABLE = "state";
export const KEYV_PREFIX = "rs:";
const NS_SEPARATOR = "::";

/**
 * Schema versions, in `PRAGMA user_version`:
 * 0: everything in the keyv table (releases up to the architecture step): the outbox as one entry
 *    per message plus an index entry rewritten on every enqueue, handled changes as keyv entries
 *    whose expiry nothing ever swept.
 * 1: queues and key sets in tables of their own (`queue_items`, `key_sets`), swept by expiry.
 * 2: a queue item is a small row in `queue_items` (id, place, `head`: its delivery bookkeeping) and
 *    its body in `queue_bodies`, so a scan of what waits never reads a body, and rewriting the
 *    bookkeeping of a message never rewrites its body. Every row of `queue_items` waits (an ack
 *    deletes it and leaves a tombstone in `key_sets`).
 */
export const SCHEMA_VERSION = 2;

const QUEUE_BODIES = `CREATE TABLE IF NOT EXISTS queue_bodies (
     seq INTEGER PRIMARY KEY,
     value TEXT NOT NULL
   )`;
// An index entry ends with the rowid (seq): (queue) alone keeps each queue in enqueue order.
const QUEUE_ORDER = "CREATE INDEX IF NOT EXISTS queue_order ON queue_items(queue)";
/**
 * An ack is one statement: the tombstone's insert into `<queue>#acked` deletes the item, and the
 * item's delete deletes its body. (A waiting item never has a tombstone: enqueue refuses its id.)
 */
const QUEUE_TRIGGERS = [
  `CREATE TRIGGER IF NOT EXISTS queue_items_gone AFTER DELETE ON queue_items
     BEGIN DELETE FROM queue_bodies WHERE seq = old.seq; END`,
  `CREATE TRIGGER IF NOT EXISTS queue_item_acked AFTER INSERT ON key_sets WHEN new.name GLOB '*#acked'
     BEGIN DELETE FROM queue_items WHERE queue = substr(new.name, 1, length(new.name) - 6) AND id = new.key; END`,
];

/**
 * A post's whole bookkeeping as one statement (`DurableQueue.settle`): an insert into this view
 * acks an item (its tombstone, whose trigger deletes it), stores keyv entries (a thread root, the
 * record of what the message's buttons act on) and sets another item's head (the next post's
 * mark-posting). One statement is atomic without a transaction, and is one trip to the database
 * instead of one per write. Created at every open: a database of schema 2 from the release before
 * gets it then, and that release ignores it. `puts` (a JSON array of `[key, value]`) came after
 * `put_key`/`put_value`: a view without it is replaced at open (`ensureSettleView`), and the release
 * before, which names its columns, still inserts into the new one.
 */
const SETTLE_VIEW = "queue_settle";
const SETTLE_TRIGGER = "queue_settled";
const QUEUE_SETTLE = [
  `CREATE VIEW IF NOT EXISTS ${SETTLE_VIEW}(queue, acked_id, acked_until, put_key, put_value, next_id, next_head, puts) AS
     SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE 0`,
  `CREATE TRIGGER IF NOT EXISTS ${SETTLE_TRIGGER} INSTEAD OF INSERT ON ${SETTLE_VIEW} BEGIN
     INSERT INTO key_sets(name, key, expires) VALUES (new.queue || '#acked', new.acked_id, new.acked_until)
       ON CONFLICT(name, key) DO UPDATE SET expires = max(expires, excluded.expires);
     INSERT INTO ${KV_TABLE}(key, value) SELECT new.put_key, new.put_value WHERE new.put_key IS NOT NULL
       ON CONFLICT(key) DO UPDATE SET value = excluded.value;
     INSERT INTO ${KV_TABLE}(key, value)
       SELECT json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]') FROM json_each(new.puts) j WHERE true
       ON CONFLICT(key) DO UPDATE SET value = excluded.value;
     UPDATE queue_items SET head = new.next_head
       WHERE new.next_id IS NOT NULL AND queue = new.queue AND id = new.next_id;
   END`,
];

/** The settle view with its `puts` column: one made by the release before (without it) is replaced, in one transaction. */
async function ensureSettleView(query: Query, inTransaction: boolean): Promise<void> {
  const [view] = (await query("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?", SETTLE_VIEW)) as Array<{
    sql?: string;
  }>;
  if (view?.sql !== undefined && /\bputs\b/.test(view.sql)) return;
  if (!inTransaction) await query("BEGIN IMMEDIATE");
  try {
    await query(`DROP TRIGGER IF EXISTS ${SETTLE_TRIGGER}`);
    await query(`DROP VIEW IF EXISTS ${SETTLE_VIEW}`);
    for (const statement of QUEUE_SETTLE) await query(statement);
    if (!inTransaction) await query("COMMIT");
  } catch (error) {
    if (!inTransaction) await query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

const TABLES = [
  `CREATE TABLE IF NOT EXISTS queue_items (
     seq INTEGER PRIMARY KEY,
     queue TEXT NOT NULL,
     id TEXT NOT NULL,
     head TEXT,
     UNIQUE (queue, id)
   )`,
  QUEUE_ORDER,
  QUEUE_BODIES,
  `CREATE TABLE IF NOT EXISTS key_sets (
     name TEXT NOT NULL,
     key TEXT NOT NULL,
     expires INTEGER NOT NULL,
     PRIMARY KEY (name, key)
   ) WITHOUT ROWID`,
  "CREATE INDEX IF NOT EXISTS key_sets_expiry ON key_sets(expires)",
  ...QUEUE_TRIGGERS,
];

/** Rows the last statement on this connection changed. */
export async function changesOf(query: Query): Promise<number> {
  const [row] = (await query("SELECT changes() AS n")) as Array<{ n: number }>;
  return row?.n ?? 0;
}

/**
 * Version 1 to 2: bodies move to `queue_bodies` (items written before have no head: readers take
 * it from the body); an item that version 1 kept acked in the table (value NULL) becomes a tombstone.
 */
async function splitQueueBodies(query: Query, nowMs: number): Promise<number> {
  await query(QUEUE_BODIES);
  await query("INSERT INTO queue_bodies(seq, value) SELECT seq, value FROM queue_items WHERE value IS NOT NULL");
  const moved = await changesOf(query);
  await query(
    `INSERT INTO key_sets(name, key, expires)
     SELECT queue || '#acked', id, coalesce(expires, ?) FROM queue_items WHERE value IS NULL
     ON CONFLICT(name, key) DO UPDATE SET expires = max(expires, excluded.expires)`,
    nowMs + LEGACY_DEFAULT_RETENTION_MS,
  );
  await query("DELETE FROM queue_items WHERE value IS NULL");
  await query("DROP INDEX IF EXISTS queue_waiting");
  await query("DROP INDEX IF EXISTS queue_expiry");
  await query("ALTER TABLE queue_items DROP COLUMN value");
  await query("ALTER TABLE queue_items DROP COLUMN expires");
  await query("ALTER TABLE queue_items ADD COLUMN head TEXT");
  await query(QUEUE_ORDER);
  for (const trigger of QUEUE_TRIGGERS) await query(trigger);
  return moved;
}

/** Where version 0 kept what now has tables of its own (the names the releases used). */
const LEGACY = {
  outbox: "alerts.outbox",
  outboxIndex: "alerts.outbox-index",
  delivered: "alerts.delivered",
} as const;

/** Retention a version-0 entry gets when it carries no expiry of its own (matches the old defaults). */
const LEGACY_DEFAULT_RETENTION_MS = 30 * 86_400_000;

function legacyRange(namespace: string): [string, string] {
  const low = `${KEYV_PREFIX}${namespace}${NS_SEPARATOR}`;
  return [low, `${low}\uffff`];
}

interface KeyvRow {
  readonly key: string;
  readonly value: string;
}

function parseKeyvValue(row: KeyvRow): { value: unknown; expires?: number } | undefined {
  try {
    const parsed = JSON.parse(row.value) as { value?: unknown; expires?: unknown };
    return {
      value: parsed.value,
      ...(typeof parsed.expires === "number" ? { expires: parsed.expires } : {}),
    };
  } catch {
    return undefined;
  }
}

async function rowsOf(query: Query, namespace: string): Promise<KeyvRow[]> {
  const [low, high] = legacyRange(namespace);
  return (await query(`SELECT key, value FROM ${KV_TABLE} WHERE key >= ? AND key < ?`, low, high)) as KeyvRow[];
}

async function deleteNamespace(query: Query, namespace: string): Promise<void> {
  const [low, high] = legacyRange(namespace);
  await query(`DELETE FROM ${KV_TABLE} WHERE key >= ? AND key < ?`, low, high);
}

/** Handled-change keys of version 0 become rows of the `alerts.delivered` key set. */
async function migrateDelivered(query: Query, nowMs: number): Promise<number> {
  const rows = await rowsOf(query, LEGACY.delivered);
  const prefix = legacyRange(LEGACY.delivered)[0].length;
  const keys = rows.flatMap((row) => {
    const parsed = parseKeyvValue(row);
    if (!parsed) return [];
    return [{ key: row.key.slice(prefix), expires: parsed.expires ?? nowMs + LEGACY_DEFAULT_RETENTION_MS }];
  });
  for (let i = 0; i < keys.length; i += 500) {
    await query(
      `INSERT INTO key_sets(name, key, expires)
       SELECT ?, json_extract(j.value, '$.key'), json_extract(j.value, '$.expires') FROM json_each(?) j WHERE true
       ON CONFLICT(name, key) DO UPDATE SET expires = max(expires, excluded.expires)`,
      LEGACY.delivered,
      JSON.stringify(keys.slice(i, i + 500)),
    );
  }
  await deleteNamespace(query, LEGACY.delivered);
  return keys.length;
}

interface LegacyEntry {
  readonly enqueuedAt?: number;
  readonly seq?: number;
  readonly sentAt?: number;
}

/** Outbox entries of version 0 keep their order; sent marks become acked ids. */
async function migrateOutbox(query: Query, nowMs: number): Promise<number> {
  const prefix = legacyRange(LEGACY.outbox)[0].length;
  const items = (await rowsOf(query, LEGACY.outbox)).flatMap((row) => {
    const parsed = parseKeyvValue(row);
    if (!parsed || typeof parsed.value !== "object" || parsed.value === null) return [];
    return [{ id: row.key.slice(prefix), entry: parsed.value as LegacyEntry, expires: parsed.expires }];
  });
  items.sort(
    (a, b) =>
      (a.entry.enqueuedAt ?? 0) - (b.entry.enqueuedAt ?? 0) ||
      (a.entry.seq ?? 0) - (b.entry.seq ?? 0) ||
      (a.id < b.id ? -1 : 1),
  );
  for (const item of items) {
    if (typeof item.entry.sentAt === "number") {
      // A sent mark becomes the queue's tombstone of that id (see ackedKeySet).
      await query(
        "INSERT OR IGNORE INTO key_sets(name, key, expires) VALUES (?, ?, ?)",
        `${LEGACY.outbox}#acked`,
        item.id,
        item.expires ?? nowMs + LEGACY_DEFAULT_RETENTION_MS,
      );
      continue;
    }
    await query("INSERT OR IGNORE INTO queue_items(queue, id) VALUES (?, ?)", LEGACY.outbox, item.id);
    if ((await changesOf(query)) === 0) continue;
    await query("INSERT INTO queue_bodies(seq, value) VALUES (last_insert_rowid(), ?)", JSON.stringify(item.entry));
  }
  await deleteNamespace(query, LEGACY.outbox);
  await deleteNamespace(query, LEGACY.outboxIndex);
  return items.length;
}

export interface SchemaReport {
  /** The version found when the database was opened (0 for a new one too). */
  readonly from: number;
  /** Rows moved out of the keyv table by a migration. */
  readonly migrated: { readonly outbox: number; readonly delivered: number } | undefined;
  /** Queue items whose bodies moved to `queue_bodies` (from version 1). */
  readonly splitBodies?: number;
}

/**
 * Brings the database to SCHEMA_VERSION in one transaction; a database from a newer release is
 * refused, never misread. Runs before anything else touches the store.
 */
export async function ensureSchema(query: Query, location: string, nowMs: number): Promise<SchemaReport> {
  const [{ user_version: found = 0 } = {}] = (await query("PRAGMA user_version")) as Array<{ user_version?: number }>;
  if (found > SCHEMA_VERSION) {
    throw new StoreError(
      `State store ${location} was written by a newer release of retention-sync (schema ${found}; this release reads up to ${SCHEMA_VERSION}). Run the newer release, or restore the backup taken before the upgrade.`,
    );
  }
  if (found === SCHEMA_VERSION) {
    await ensureSettleView(query, false);
    return { from: found, migrated: undefined };
  }
  await query("BEGIN IMMEDIATE");
  try {
    let migrated: SchemaReport["migrated"];
    let splitBodies: number | undefined;
    if (found === 0) {
      for (const statement of TABLES) await query(statement);
      const moved = { outbox: await migrateOutbox(query, nowMs), delivered: await migrateDelivered(query, nowMs) };
      if (moved.outbox + moved.delivered > 0) migrated = moved;
    } else {
      splitBodies = await splitQueueBodies(query, nowMs);
    }
    await ensureSettleView(query, true);
    await query(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    await query("COMMIT");
    return { from: found, migrated, ...(splitBodies === undefined ? {} : { splitBodies }) };
  } catch (error) {
    await query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
