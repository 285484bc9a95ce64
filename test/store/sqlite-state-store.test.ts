import { chmodSync, existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import KeyvSqlite from "@keyv/sqlite";
import Keyv from "keyv";
import { describe, expect, it } from "vitest";
import { Outbox, type OutboxDraft } from "../../src/delivery/outbox.js";
import { StoreError } from "../../src/errors.js";
import { createLogger } from "../../src/logger.js";
import { SCHEMA_VERSION } from "../../src/store/sqlite-schema.js";
import { openStateStore } from "../../src/store/state-store.js";
import { captureStream } from "../helpers/capture-stream.js";
import { describeStoreConformance } from "./support/store-conformance.js";

const tempFile = () => join(mkdtempSync(join(tmpdir(), "rs-sqlite-")), "state.sqlite");

describeStoreConformance({
  name: "SQLite",
  open: () => openStateStore(":memory:"),
  async reopenable() {
    const file = tempFile();
    return { open: () => openStateStore(file) };
  },
});

describe("SQLite as one process's store", () => {
  it("has no election, and its fenced view is the store itself (its file lease keeps a second process out)", async () => {
    const store = await openStateStore(":memory:");
    expect(store.election).toBeUndefined();
    const fenced = store.fenced({ epoch: undefined, fencedOut: () => expect.fail("never fenced out") });
    expect(fenced).toBe(store);
    await fenced.namespace("n").set("k", 1);
    expect(await store.namespace("n").get("k")).toBe(1);
    await store.close();
  });
});

/** Raw SQL on a database file, outside the store (what another tool or an older release sees). */
async function withRaw<T>(file: string, work: (query: KeyvSqlite["query"]) => Promise<T>): Promise<T> {
  const sqlite = new KeyvSqlite({ uri: `sqlite://${file}`, table: "state" });
  try {
    return await work(sqlite.query);
  } finally {
    await sqlite.close();
  }
}

describe("the file on disk", () => {
  it("is in WAL mode with incremental auto-vacuum, and the sweep deletes expired rows and shrinks it", async () => {
    const file = tempFile();
    const store = await openStateStore(file);
    const payload = "x".repeat(2_000);
    for (let batch = 0; batch < 10; batch += 1) {
      await store.transaction(async (scope) => {
        const items = Array.from({ length: 200 }, (_, i) => ({ id: `m${batch}-${i}`, value: payload }));
        await scope.queue("q").enqueue(items);
        await scope.queue("q").ack(
          items.map((i) => i.id),
          1_000,
        );
        await scope.keySet("k").add(
          items.map((i) => i.id),
          1_000,
        );
      });
    }
    await store.namespace("n").set("gone", payload, 1);
    await store.sweep(0);
    const full = statSync(file).size;
    const report = await store.sweep(Date.now() + 10_000);
    expect(report.expired).toBe(2_000 + 2_000 + 1);
    expect(report.fileBytes).toBeLessThan(full);
    expect(report.fileBytes).toBe(statSync(file).size);
    await store.close();
    await withRaw(file, async (query) => {
      expect(await query("PRAGMA journal_mode")).toEqual([{ journal_mode: "wal" }]);
      expect(await query("PRAGMA auto_vacuum")).toEqual([{ auto_vacuum: 2 }]);
      expect(await query("PRAGMA user_version")).toEqual([{ user_version: SCHEMA_VERSION }]);
    });
  });
});

/** The permission bits of a path, as `0600`. */
const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8).padStart(4, "0");

/** Runs `work` with the usual umask (022: files 0644, folders 0755 unless the program says otherwise). */
async function withUsualUmask<T>(work: () => Promise<T>): Promise<T> {
  const before = process.umask(0o022);
  try {
    return await work();
  } finally {
    process.umask(before);
  }
}

describe("the state files are the owner's alone (names, scores, who pressed what)", () => {
  it("a new state: its folder is created 0700, the database and its -wal and -shm files 0600", async () => {
    const folder = join(mkdtempSync(join(tmpdir(), "rs-modes-")), "state", "nested");
    const file = join(folder, "retention-sync.sqlite");
    await withUsualUmask(async () => {
      const store = await openStateStore(file);
      await store.namespace("n").set("k", "v");
      expect(existsSync(`${file}-wal`)).toBe(true);
      expect(existsSync(`${file}-shm`)).toBe(true);
      expect([modeOf(folder), modeOf(join(folder, ".."))]).toEqual(["0700", "0700"]);
      expect([modeOf(file), modeOf(`${file}-wal`), modeOf(`${file}-shm`)]).toEqual(["0600", "0600", "0600"]);
      await store.close();
    });
  });

  it("an existing state of ours readable by others is tightened to 0600; an open folder is left as it is, with a warning", async () => {
    const folder = join(mkdtempSync(join(tmpdir(), "rs-modes-")), "shared");
    mkdirSync(folder);
    chmodSync(folder, 0o755);
    const file = join(folder, "state.sqlite");
    await withUsualUmask(async () => {
      // An earlier release's files, as it left them: 0644.
      const first = await openStateStore(file);
      await first.namespace("n").set("k", "v");
      await first.close();
      for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o644);
      const logs = captureStream();
      const store = await openStateStore(file, { logger: createLogger({ destination: logs.stream }) });
      await store.namespace("n").set("k2", "v");
      expect([modeOf(file), modeOf(`${file}-wal`), modeOf(`${file}-shm`)]).toEqual(["0600", "0600", "0600"]);
      expect(modeOf(folder)).toBe("0755");
      expect(logs.text()).toContain(
        `"msg":"the state folder ${folder} is open to other users (mode 0755); the state files in it are owner-only (0600), but their names show. Give the state a folder of its own: chmod 700 ${folder}"`,
      );
      expect(logs.text()).toContain('"level":40');
      await store.close();
    });
  });

  it("an empty file left at the state's name is taken as a new database, owner-only", async () => {
    const file = tempFile();
    writeFileSync(file, "");
    chmodSync(file, 0o666);
    const store = await openStateStore(file);
    await store.namespace("n").set("k", "v");
    expect(modeOf(file)).toBe("0600");
    await store.close();
  });
});

describe("a database written by an earlier release (schema 0, everything in keyv)", () => {
  async function writeLegacy(file: string): Promise<void> {
    const sqlite = new KeyvSqlite({ uri: `sqlite://${file}`, table: "state" });
    const keyv = new Keyv({ store: sqlite, namespace: "rs" });
    const day = 86_400_000;
    await keyv.set("alerts.cursor::retention:1", "2026-11-20T10:00:00.000Z");
    await keyv.set("alerts.outbox::a|late", { id: "a|late", channel: "hr", enqueuedAt: 200, seq: 1, attempts: 0 });
    await keyv.set("alerts.outbox::a|early", { id: "a|early", channel: "hr", enqueuedAt: 100, seq: 7, attempts: 2 });
    await keyv.set("alerts.outbox::a|sent", { sentAt: 50 }, 7 * day);
    await keyv.set("alerts.outbox-index::pending", ["a|late", "a|early", "a|sent"]);
    await keyv.set("alerts.delivered::chg:1", 1, 30 * day);
    await keyv.set("alerts.delivered::chg:2", 2, 30 * day);
    await keyv.disconnect();
  }

  it("is migrated on first start: order, sent ids and handled keys kept, other namespaces untouched", async () => {
    const file = tempFile();
    await writeLegacy(file);
    const store = await openStateStore(file);
    const outbox = store.queue<{ id: string; attempts: number }>("alerts.outbox");
    expect((await outbox.pending()).map((i) => [i.id, i.value.attempts])).toEqual([
      ["a|early", 2],
      ["a|late", 0],
    ]);
    expect(await outbox.enqueue([{ id: "a|sent", value: { id: "a|sent", attempts: 0 } }])).toBe(0);
    expect(await store.keySet("alerts.delivered").has(["chg:1", "chg:2", "chg:3"], Date.now())).toEqual(
      new Set(["chg:1", "chg:2"]),
    );
    expect(await store.namespace("alerts.cursor").get("retention:1")).toBe("2026-11-20T10:00:00.000Z");
    expect(await store.namespace("alerts.outbox-index").entries()).toEqual([]);
    expect(await store.namespace("alerts.delivered").entries()).toEqual([]);
    await store.close();
    // Opening again finds nothing left to migrate.
    const again = await openStateStore(file);
    expect(await again.queue("alerts.outbox").countPending()).toBe(2);
    await again.close();
  });

  it("a database from a newer release is refused with what to do, and left as it was", async () => {
    const file = tempFile();
    await (await openStateStore(file)).close();
    await withRaw(file, (query) => query(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`));
    const error = await openStateStore(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(/newer release.*Run the newer release, or restore the backup/);
    await withRaw(file, async (query) => {
      expect(await query("PRAGMA user_version")).toEqual([{ user_version: SCHEMA_VERSION + 1 }]);
    });
  });
});

describe("a database written by the previous release (schema 1, queue items without heads)", () => {
  const body = (id: string, extra: object) => ({
    id,
    channel: "hr",
    kind: "alert",
    message: { text: `about ${id}` },
    alertKeys: [`chg:${id}`],
    ...extra,
  });

  async function writeSchema1(file: string): Promise<void> {
    await withRaw(file, async (query) => {
      await query(`CREATE TABLE queue_items (seq INTEGER PRIMARY KEY, queue TEXT NOT NULL, id TEXT NOT NULL,
        value TEXT, expires INTEGER, UNIQUE (queue, id))`);
      await query("CREATE INDEX queue_waiting ON queue_items(queue, seq) WHERE value IS NOT NULL");
      await query("CREATE INDEX queue_expiry ON queue_items(expires) WHERE value IS NULL");
      await query(`CREATE TABLE key_sets (name TEXT NOT NULL, key TEXT NOT NULL, expires INTEGER NOT NULL,
        PRIMARY KEY (name, key)) WITHOUT ROWID`);
      const insert = "INSERT INTO queue_items(queue, id, value) VALUES ('alerts.outbox', ?, ?)";
      await query(insert, "m1", JSON.stringify(body("m1", { enqueuedAt: 100, attempts: 1, postingSince: 150 })));
      await query(insert, "m2", JSON.stringify(body("m2", { enqueuedAt: 200, attempts: 0, lastError: "ratelimited" })));
      // An item acked by an early version-1 release: kept in the table with its expiry.
      await query(
        "INSERT INTO queue_items(queue, id, value, expires) VALUES ('alerts.outbox', 'm0', NULL, ?)",
        Date.now() + 86_400_000,
      );
      await query("PRAGMA user_version = 1");
    });
  }

  it("is migrated on first start: waiting messages keep their order and bookkeeping, and post as before", async () => {
    const file = tempFile();
    await writeSchema1(file);
    const store = await openStateStore(file);
    const outbox = new Outbox(store);
    const waiting = await outbox.waiting();
    expect(waiting).toEqual([
      { id: "m1", seq: 1, channel: "hr", kind: "alert", enqueuedAt: 100, attempts: 1, postingSince: 150 },
      { id: "m2", seq: 2, channel: "hr", kind: "alert", enqueuedAt: 200, attempts: 0, lastError: "ratelimited" },
    ]);
    const [first] = await outbox.load(waiting);
    expect(first).toMatchObject({ id: "m1", message: { text: "about m1" }, attempts: 1, postingSince: 150 });
    if (!first) throw new Error("no body");
    // Bookkeeping written after the migration goes to the head and wins over the old fields of the body.
    await outbox.markFailed(first, "slack down");
    expect((await outbox.waiting())[0]).toEqual({
      id: "m1",
      seq: 1,
      channel: "hr",
      kind: "alert",
      enqueuedAt: 100,
      attempts: 1,
      lastError: "slack down",
    });
    // m0 was acked: its id stays known (a tombstone), so it is not queued again.
    await outbox.enqueue([body("m0", {}), body("m3", {})] as unknown as OutboxDraft[], 300);
    expect((await outbox.pending()).map((e) => [e.id, e.attempts])).toEqual([
      ["m1", 1],
      ["m2", 0],
      ["m3", 0],
    ]);
    await store.close();
    await withRaw(file, async (query) => {
      expect(await query("PRAGMA user_version")).toEqual([{ user_version: SCHEMA_VERSION }]);
      expect(await query("SELECT name FROM sqlite_master WHERE name LIKE 'queue_%' ORDER BY name")).toEqual([
        { name: "queue_bodies" },
        { name: "queue_item_acked" },
        { name: "queue_items" },
        { name: "queue_items_gone" },
        { name: "queue_order" },
        { name: "queue_settle" },
        { name: "queue_settled" },
      ]);
    });
  });
});

describe("a database of schema 2 written by the release before queue_settle", () => {
  it("gets the settle view at open, keeps its schema version, and settles a post in one write", async () => {
    const file = tempFile();
    const first = await openStateStore(file);
    await first.queue<string, number>("q").enqueue([
      { id: "a", value: "A", head: 0 },
      { id: "b", value: "B", head: 0 },
    ]);
    await first.close();
    // What the release before wrote: schema 2 without the view and its trigger.
    await withRaw(file, async (query) => {
      await query("DROP TRIGGER queue_settled");
      await query("DROP VIEW queue_settle");
    });
    const store = await openStateStore(file);
    const queue = store.queue<string, number>("q");
    await queue.settle({
      ack: { id: "a", expiresAtMs: Date.now() + 60_000 },
      puts: [{ namespace: "alerts.threads", key: "hr|a", value: { ts: "1.1" } }],
      nextHead: { id: "b", head: 1 },
    });
    expect((await queue.heads()).map((i) => [i.id, i.head])).toEqual([["b", 1]]);
    expect(await store.namespace("alerts.threads").get("hr|a")).toEqual({ ts: "1.1" });
    await store.close();
    await withRaw(file, async (query) => {
      expect(await query("PRAGMA user_version")).toEqual([{ user_version: SCHEMA_VERSION }]);
    });
  });
});

describe("a database whose settle view has no puts column (the release before the posted-message record)", () => {
  it("gets the view with puts at open; the release before still settles through it", async () => {
    const file = tempFile();
    const first = await openStateStore(file);
    await first.queue<string, number>("q").enqueue(["a", "b", "c"].map((id) => ({ id, value: id, head: 0 })));
    await first.close();
    // The view and trigger as the release before created them: one put, in put_key and put_value.
    await withRaw(file, async (query) => {
      await query("DROP TRIGGER queue_settled");
      await query("DROP VIEW queue_settle");
      await query(`CREATE VIEW queue_settle(queue, acked_id, acked_until, put_key, put_value, next_id, next_head) AS
        SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE 0`);
      await query(`CREATE TRIGGER queue_settled INSTEAD OF INSERT ON queue_settle BEGIN
        INSERT INTO key_sets(name, key, expires) VALUES (new.queue || '#acked', new.acked_id, new.acked_until)
          ON CONFLICT(name, key) DO UPDATE SET expires = max(expires, excluded.expires);
        INSERT INTO state(key, value) SELECT new.put_key, new.put_value WHERE new.put_key IS NOT NULL
          ON CONFLICT(key) DO UPDATE SET value = excluded.value;
        UPDATE queue_items SET head = new.next_head
          WHERE new.next_id IS NOT NULL AND queue = new.queue AND id = new.next_id;
      END`);
    });
    const store = await openStateStore(file);
    const queue = store.queue<string, number>("q");
    await queue.settle({
      ack: { id: "a", expiresAtMs: Date.now() + 60_000 },
      puts: [
        { namespace: "alerts.threads", key: "hr|a", value: { ts: "1.1" } },
        { namespace: "slack.posted", key: "C1|1.1", value: { people: ["a"] } },
      ],
      nextHead: { id: "b", head: 1 },
    });
    expect(await store.namespace("alerts.threads").get("hr|a")).toEqual({ ts: "1.1" });
    expect(await store.namespace("slack.posted").get("C1|1.1")).toEqual({ people: ["a"] });
    expect((await queue.heads()).map((i) => [i.id, i.head])).toEqual([
      ["b", 1],
      ["c", 0],
    ]);
    await store.close();
    await withRaw(file, async (query) => {
      expect(await query("PRAGMA user_version")).toEqual([{ user_version: SCHEMA_VERSION }]);
      // The release before names its seven columns: its insert still acks, stores its one value and sets the head.
      await query(
        `INSERT INTO queue_settle(queue, acked_id, acked_until, put_key, put_value, next_id, next_head)
         VALUES ('q', 'b', ?, 'rs:alerts.threads::hr|b', '{"value":{"ts":"2.2"}}', 'c', '2')`,
        Date.now() + 60_000,
      );
    });
    const again = await openStateStore(file);
    expect(await again.namespace("alerts.threads").get("hr|b")).toEqual({ ts: "2.2" });
    expect((await again.queue<string, number>("q").heads()).map((i) => [i.id, i.head])).toEqual([["c", 2]]);
    await again.close();
  });
});
