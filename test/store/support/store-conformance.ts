/**
 * What every engine of the StateStore interface must do, as one suite parameterised by engine:
 * test/store/sqlite-state-store.test.ts runs it on SQLite, and
 * test/store/postgres-state-store.integration.test.ts on a real Postgres. Engine-specific
 * behaviour (files, WAL, migrations, fencing, the election) stays in those files.
 */
import { describe, expect, it } from "vitest";
import type { StateStore } from "../../../src/store/state-store.js";

export interface StoreEngine {
  readonly name: string;
  /** A store over fresh, empty state. */
  open(): Promise<StateStore>;
  /** Fresh state that can be opened more than once (each call of `open` opens the same state again). */
  reopenable(): Promise<{ open(): Promise<StateStore> }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeStoreConformance(engine: StoreEngine): void {
  describe(`StateStore conformance: ${engine.name}`, () => {
    describe("key-value namespaces", () => {
      it("keeps namespaces apart and survives a reopen", async () => {
        const state = await engine.reopenable();
        const store = await state.open();
        await store.namespace("cursor").set("lens:1", "2026-01-01T00:00:00Z");
        await store.namespace("outbox").set("lens:1", { id: 1 });
        await store.namespace("outbox").set("b", { id: 2 });
        await store.close();

        const again = await state.open();
        expect(await again.namespace("cursor").get("lens:1")).toBe("2026-01-01T00:00:00Z");
        expect(await again.namespace("outbox").entries()).toEqual([
          ["b", { id: 2 }],
          ["lens:1", { id: 1 }],
        ]);
        expect(await again.namespace("cursor").entries()).toHaveLength(1);
        await again.namespace("outbox").clear();
        expect(await again.namespace("outbox").entries()).toEqual([]);
        expect(await again.namespace("cursor").get("lens:1")).toBe("2026-01-01T00:00:00Z");
        await again.close();
      });

      it("gets, overwrites and deletes; a key of another namespace is not there", async () => {
        const store = await engine.open();
        const ns = store.namespace("x");
        await ns.set("k", 1);
        expect(await ns.get("k")).toBe(1);
        await ns.set("k", { deep: ["a", 2, null, true] });
        expect(await ns.get("k")).toEqual({ deep: ["a", 2, null, true] });
        expect(await store.namespace("y").get("k")).toBeUndefined();
        expect(await ns.delete("k")).toBe(true);
        expect(await ns.delete("k")).toBe(false);
        expect(await ns.get("k")).toBeUndefined();
        await store.close();
      });

      it("reads and writes many keys at once, as single gets and sets see them, and skips what expired", async () => {
        const store = await engine.open();
        const ns = store.namespace("scores");
        await ns.setMany<unknown>([
          ["a", { score: 0.5, key: "chg:1" }],
          ["b", ":colon first"],
          ["c", 3],
        ]);
        await ns.set("d", "single");
        await ns.setMany([["gone", 1]], 1);
        await store.namespace("scoresx").set("a", "other namespace");
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect(await ns.get("a")).toEqual({ score: 0.5, key: "chg:1" });
        expect(await ns.get("b")).toBe(":colon first");
        const many = await ns.getMany<unknown>(["a", "b", "c", "d", "gone", "missing"]);
        expect(Object.fromEntries(many)).toEqual({
          a: { score: 0.5, key: "chg:1" },
          b: ":colon first",
          c: 3,
          d: "single",
        });
        await ns.setMany([["c", 30]], 60_000);
        expect(await ns.get("c")).toBe(30);
        expect(await ns.getMany([])).toEqual(new Map());
        await ns.setMany([]);
        await store.close();
      });

      it("lists one namespace among many keys in key order, skips expired entries and keys of a longer namespace name", async () => {
        const store = await engine.open();
        const big = store.namespace("alerts.delivered");
        await store.transaction(async (scope) => {
          for (let i = 0; i < 2_000; i += 1) await scope.namespace("alerts.delivered").set(`chg:${i}`, true);
        });
        const outbox = store.namespace("alerts.outbox");
        await outbox.set("a%_b", { n: 1 });
        await outbox.set("B", { n: 0 });
        await outbox.set("gone", { n: 2 }, 1);
        await store.namespace("alerts.outbox-index").set("x", 1);
        await sleep(20);
        // Binary order: upper case before lower case, whatever the database's collation.
        expect(await outbox.entries()).toEqual([
          ["B", { n: 0 }],
          ["a%_b", { n: 1 }],
        ]);
        expect(await outbox.get("gone")).toBeUndefined();
        expect(await big.entries()).toHaveLength(2_000);
        await store.close();
      });
    });

    describe("durable queues", () => {
      it("keeps enqueue order, ignores ids waiting or acked, and forgets acked ids only when they expire", async () => {
        const store = await engine.open();
        const queue = store.queue<{ n: number }, { h: number }>("q");
        expect(await queue.enqueue([1, 2, 3].map((n) => ({ id: `m${n}`, value: { n }, head: { h: n } })))).toBe(3);
        expect(await queue.enqueue([{ id: "m2", value: { n: 99 }, head: { h: 99 } }])).toBe(0);
        expect((await queue.pending()).map((i) => [i.id, i.value.n])).toEqual([
          ["m1", 1],
          ["m2", 2],
          ["m3", 3],
        ]);
        expect(await queue.setHead("m2", { h: 22 })).toBe(true);
        await queue.ack(["m1"], 5_000);
        expect(await queue.setHead("m1", { h: 11 })).toBe(false);
        expect(await queue.countPending()).toBe(2);
        expect(await queue.enqueue([{ id: "m1", value: { n: 1 } }])).toBe(0);
        expect((await store.sweep(5_000)).expired).toBe(1);
        expect(await queue.enqueue([{ id: "m1", value: { n: 1 } }])).toBe(1);
        expect((await queue.pending(2)).map((i) => [i.id, i.value.n])).toEqual([
          ["m2", 2],
          ["m3", 3],
        ]);
        expect(await store.queue("other").countPending()).toBe(0);
        await store.close();
      });

      it("scans heads without bodies, reads bodies by id, and keeps a head apart from its body", async () => {
        const store = await engine.open();
        const queue = store.queue<{ body: string }, { h: number }>("q");
        await queue.enqueue([
          { id: "a", value: { body: "x".repeat(5_000) }, head: { h: 1 } },
          { id: "b", value: { body: "headless" } },
          { id: "c", value: { body: "c" }, head: { h: 3 } },
        ]);
        expect(await queue.setHead("c", { h: 33 })).toBe(true);
        expect(await queue.heads()).toEqual([
          { id: "a", seq: expect.any(Number), head: { h: 1 } },
          { id: "b", seq: expect.any(Number), head: undefined },
          { id: "c", seq: expect.any(Number), head: { h: 33 } },
        ]);
        expect((await queue.heads(1)).map((i) => i.id)).toEqual(["a"]);
        await queue.ack(["a"], 5_000);
        const bodies = await queue.values(["c", "a", "b", "unknown"]);
        expect([...bodies.keys()].sort()).toEqual(["b", "c"]);
        expect(bodies.get("c")).toEqual({ body: "c" });
        expect(await queue.values([])).toEqual(new Map());
        expect(await store.queue("other").heads()).toEqual([]);
        await store.close();
      });

      it("acks an item with namespace values and another item's head in one transaction, all or nothing", async () => {
        const store = await engine.open();
        const queue = store.queue<{ body: string }, { h: number }>("q");
        await queue.enqueue(["a", "b", "c"].map((id) => ({ id, value: { body: id }, head: { h: 0 } })));
        await store.transaction(async (scope) => {
          await scope.queue<{ body: string }, { h: number }>("q").ack(["a"], Date.now() + 60_000);
          await scope.namespace("roots").set("hr|p1", { ts: "1.1" }, 60_000);
          await scope.namespace("posted").set("C1|1.1", { people: ["p1"] });
          expect(await scope.queue<{ body: string }, { h: number }>("q").setHead("b", { h: 7 })).toBe(true);
        });
        expect((await queue.heads()).map((i) => [i.id, i.head])).toEqual([
          ["b", { h: 7 }],
          ["c", { h: 0 }],
        ]);
        expect(await queue.values(["a", "b"])).toEqual(new Map([["b", { body: "b" }]]));
        expect(await store.namespace("roots").getMany(["hr|p1"])).toEqual(new Map([["hr|p1", { ts: "1.1" }]]));
        expect(await store.namespace("posted").get("C1|1.1")).toEqual({ people: ["p1"] });
        // Acked: a replay does not queue it again.
        expect(await queue.enqueue([{ id: "a", value: { body: "again" } }])).toBe(0);
        const failure = new Error("work failed");
        await expect(
          store.transaction(async (scope) => {
            await scope.queue("q").ack(["b"], Date.now() + 60_000);
            await scope.namespace("roots").set("hr|p2", { ts: "2.2" });
            throw failure;
          }),
        ).rejects.toBe(failure);
        expect((await queue.heads()).map((i) => i.id)).toEqual(["b", "c"]);
        expect(await queue.values(["b"])).toEqual(new Map([["b", { body: "b" }]]));
        expect(await store.namespace("roots").get("hr|p2")).toBeUndefined();
        await store.close();
      });

      it("keeps the order of a large batch and of batches after it; an id twice in one batch is stored once", async () => {
        const store = await engine.open();
        const queue = store.queue<number>("big");
        const ids = Array.from({ length: 600 }, (_, i) => `id-${(i * 7919) % 600}`);
        expect(await queue.enqueue(ids.map((id, n) => ({ id, value: n })))).toBe(600);
        expect(
          await queue.enqueue([
            { id: "later", value: -1 },
            { id: "later", value: -2 },
            { id: ids[0] ?? "", value: 0 },
          ]),
        ).toBe(1);
        const pending = await queue.pending();
        expect(pending.map((i) => i.id)).toEqual([...ids, "later"]);
        expect(pending.at(-1)?.value).toBe(-1);
        const seqs = pending.map((i) => i.seq);
        expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
        expect(new Set(seqs).size).toBe(seqs.length);
        await store.close();
      });
    });

    describe("key sets", () => {
      it("answers which keys are present and not expired, and keeps the later expiry of a key added twice", async () => {
        const store = await engine.open();
        const keys = store.keySet("k");
        await keys.add(["a", "b"], 1_000);
        await keys.add(["b"], 3_000);
        await keys.add(["b"], 2_000);
        expect(await keys.has(["a", "b", "c"], 500)).toEqual(new Set(["a", "b"]));
        expect(await keys.has(["a", "b"], 1_000)).toEqual(new Set(["b"]));
        expect(await store.keySet("other").has(["a"], 0)).toEqual(new Set());
        expect((await store.sweep(2_500)).expired).toBe(1);
        expect(await keys.has(["b"], 2_500)).toEqual(new Set(["b"]));
        await store.close();
      });

      it("takes a key twice in one call, and empty calls", async () => {
        const store = await engine.open();
        const keys = store.keySet("k");
        await keys.add(["x", "x", "y"], 1_000);
        await keys.add([], 1_000);
        expect(await keys.has(["x", "y", "x"], 0)).toEqual(new Set(["x", "y"]));
        expect(await keys.has([], 0)).toEqual(new Set());
        await store.close();
      });
    });

    describe("transactions", () => {
      it("commit every write together, or none when the work throws (its own error, unchanged)", async () => {
        const store = await engine.open();
        class Crash extends Error {}
        const error = await store
          .transaction(async (scope) => {
            await scope.queue("q").enqueue([{ id: "x", value: 1 }]);
            await scope.keySet("k").add(["x"], Number.MAX_SAFE_INTEGER);
            await scope.namespace("n").set("cursor", "T1");
            throw new Crash("the process dies here");
          })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Crash);
        expect(await store.queue("q").countPending()).toBe(0);
        expect(await store.keySet("k").has(["x"], 0)).toEqual(new Set());
        expect(await store.namespace("n").get("cursor")).toBeUndefined();

        const made = await store.transaction(async (scope) => {
          await scope.queue("q").enqueue([{ id: "x", value: 1 }]);
          await scope.namespace("n").set("cursor", "T2");
          await scope.queue("q").ack(["x"], Number.MAX_SAFE_INTEGER);
          return "done";
        });
        expect(made).toBe("done");
        expect(await store.queue("q").countPending()).toBe(0);
        expect(await store.queue("q").enqueue([{ id: "x", value: 1 }])).toBe(0);
        expect(await store.namespace("n").get("cursor")).toBe("T2");
        await store.close();
      });

      it("are never seen half done: a read during one sees none of its writes or all of them", async () => {
        const store = await engine.open();
        let release: () => void = () => undefined;
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        let entered: () => void = () => undefined;
        const inside = new Promise<void>((resolve) => {
          entered = resolve;
        });
        const tx = store.transaction(async (scope) => {
          await scope.namespace("n").set("a", 1);
          entered();
          await held;
          await scope.namespace("n").set("b", 2);
        });
        await inside;
        // SQLite runs the read after the transaction; Postgres reads the state before it.
        const read = store.namespace("n").entries();
        await sleep(20);
        release();
        await tx;
        expect([
          [],
          [
            ["a", 1],
            ["b", 2],
          ],
        ]).toContainEqual(await read);
        expect(await store.namespace("n").entries()).toEqual([
          ["a", 1],
          ["b", 2],
        ]);
        await store.close();
      });
    });

    describe("the expiry sweep", () => {
      it("deletes what expired in all three shapes and nothing else", async () => {
        const store = await engine.open();
        await store.transaction(async (scope) => {
          const items = Array.from({ length: 50 }, (_, i) => ({ id: `m${i}`, value: "x".repeat(100) }));
          await scope.queue("q").enqueue(items);
          await scope.queue("q").ack(
            items.slice(0, 40).map((i) => i.id),
            1_000,
          );
          await scope.keySet("k").add(
            items.map((i) => i.id),
            1_000,
          );
          await scope.keySet("k").add(["kept"], Number.MAX_SAFE_INTEGER);
        });
        await store.namespace("n").set("gone", 1, 1);
        await store.namespace("n").set("kept", 2);
        await sleep(20);
        const report = await store.sweep(Date.now() + 10_000);
        expect(report.expired).toBe(40 + 50 + 1);
        expect(report.fileBytes).toBeGreaterThanOrEqual(0);
        expect(await store.queue("q").countPending()).toBe(10);
        expect(await store.keySet("k").has(["kept", "m0"], 0)).toEqual(new Set(["kept"]));
        expect(await store.namespace("n").entries()).toEqual([["kept", 2]]);
        expect((await store.sweep(Date.now() + 10_000)).expired).toBe(0);
        await store.close();
      });
    });
  });
}
