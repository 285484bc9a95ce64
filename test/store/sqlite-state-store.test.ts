import { chmodSync, existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StoreError } from "../../src/errors.js";
import { createLogger } from "../../src/logger.js";
import { openSqliteConnection } from "../../src/store/sqlite-connection.js";
import { ensureSchema, MIGRATIONS, type Query, SCHEMA_VERSION } from "../../src/store/sqlite-schema.js";
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

/** Raw SQL on a database file, outside the store (what another tool or another release sees). */
async function withRaw<T>(file: string, work: (query: Query) => Promise<T>): Promise<T> {
  const connection = await openSqliteConnection(file, 1_000);
  try {
    return await work(connection.query);
  } finally {
    await connection.close();
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

describe("the schema", () => {
  /** This release's steps and a next one (what a later release would add). */
  const next = [
    ...MIGRATIONS,
    { version: SCHEMA_VERSION + 1, statements: ["ALTER TABLE queue_items ADD COLUMN note TEXT"] },
  ];
  const columns = (query: Query) => query("SELECT name FROM pragma_table_info('queue_items') ORDER BY cid");

  it("brings a database of this version to a later one, keeping what it holds; this release then refuses it", async () => {
    const file = tempFile();
    const first = await openStateStore(file);
    await first.queue("q").enqueue([{ id: "a", value: "A" }]);
    await first.close();
    const connection = await openSqliteConnection(file, 1_000);
    try {
      expect(await ensureSchema(connection.query, file, next)).toEqual({
        from: SCHEMA_VERSION,
        to: SCHEMA_VERSION + 1,
      });
      expect(await ensureSchema(connection.query, file, next)).toEqual({
        from: SCHEMA_VERSION + 1,
        to: SCHEMA_VERSION + 1,
      });
      expect(await columns(connection.query)).toContainEqual({ name: "note" });
      expect(await connection.query("SELECT id FROM queue_items")).toEqual([{ id: "a" }]);
    } finally {
      await connection.close();
    }
    const error = await openStateStore(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(
      new RegExp(`newer release.*schema ${SCHEMA_VERSION + 1}.*Run the newer release, or restore the backup`),
    );
    await withRaw(file, async (query) => {
      expect(await query("PRAGMA user_version")).toEqual([{ user_version: SCHEMA_VERSION + 1 }]);
    });
  });

  it("applies a step all or nothing: one that fails leaves the database at its version", async () => {
    const file = tempFile();
    await (await openStateStore(file)).close();
    const broken = [
      ...MIGRATIONS,
      { version: SCHEMA_VERSION + 1, statements: ["ALTER TABLE queue_items ADD COLUMN note TEXT", "NOT SQL"] },
    ];
    const connection = await openSqliteConnection(file, 1_000);
    try {
      await expect(ensureSchema(connection.query, file, broken)).rejects.toThrow();
      expect(await columns(connection.query)).not.toContainEqual({ name: "note" });
    } finally {
      await connection.close();
    }
    const store = await openStateStore(file);
    await store.close();
    await withRaw(file, async (query) => {
      expect(await query("PRAGMA user_version")).toEqual([{ user_version: SCHEMA_VERSION }]);
    });
  });
});
