import { describe, expect, it } from "vitest";
import { Outbox, type OutboxDraft, ThreadIndex } from "../../src/delivery/outbox.js";
import { openStateStore } from "../../src/store/state-store.js";
import type { KeyValueNamespace, StoreScope } from "../../src/store/store-types.js";

function draft(id: string, extra: Partial<OutboxDraft> = {}): OutboxDraft {
  return {
    id,
    channel: "hr",
    kind: "alert",
    message: { text: `about ${id}`, blocks: [] },
    alertKeys: [`chg:${id}`],
    threadKey: `person:${id}`,
    ...extra,
  };
}

describe("Outbox: heads and bodies", () => {
  it("scans waiting messages by head, loads bodies on demand, and keeps bodies out of the heads", async () => {
    const store = await openStateStore(":memory:");
    const outbox = new Outbox(store, 1_000, () => 5_000);
    await outbox.enqueue([draft("a"), draft("b", { channel: "ops", kind: "report" })], 100);
    const waiting = await outbox.waiting();
    expect(waiting).toEqual([
      { id: "a", seq: expect.any(Number), channel: "hr", kind: "alert", enqueuedAt: 100, attempts: 0 },
      { id: "b", seq: expect.any(Number), channel: "ops", kind: "report", enqueuedAt: 100, attempts: 0 },
    ]);
    const [a] = await outbox.load(waiting.slice(0, 1));
    if (!a) throw new Error("no body");
    const posting = await outbox.markPosting(a, 200);
    const failed = await outbox.markFailed(posting, "ratelimited");
    expect(failed).toMatchObject({ attempts: 1, lastError: "ratelimited", message: { text: "about a" } });
    expect(failed.postingSince).toBeUndefined();
    const [head] = await store.queue<unknown, object>("alerts.outbox").heads(1);
    // The head is bookkeeping only: no message, ids or thread key in it.
    expect(head?.head).toEqual({
      channel: "hr",
      kind: "alert",
      enqueuedAt: 100,
      attempts: 1,
      lastError: "ratelimited",
    });
    await store.close();
  });

  it("marks a message sent together with its thread root in one commit", async () => {
    const store = await openStateStore(":memory:");
    const outbox = new Outbox(store, 1_000, () => 5_000);
    const threads = new ThreadIndex(store, 60_000, () => 5_000);
    // A root expires after the retention.
    expect(threads.rootPut("hr", "person:x", { channel: "C1", ts: "9.9" })).toEqual({
      namespace: "alerts.threads",
      key: "hr|person:x",
      value: { channel: "C1", ts: "9.9" },
      ttlMs: 60_000,
    });
    await outbox.enqueue([draft("a"), draft("b"), draft("c")], 100);
    const [a, b, c] = await outbox.pending();
    if (!a || !b || !c) throw new Error("not queued");
    const live = new ThreadIndex(store, 60_000);
    await outbox.markSent(a, [live.rootPut("hr", "person:a", { channel: "C1", ts: "1.1" })]);
    expect(await store.namespace("alerts.threads").get("hr|person:a")).toEqual({ channel: "C1", ts: "1.1" });
    await outbox.markPosting(c, 300);
    await outbox.markSent(b, [live.rootPut("hr", "person:b", { channel: "C1", ts: "2.2" })]);
    expect(await store.namespace("alerts.threads").get("hr|person:b")).toEqual({ channel: "C1", ts: "2.2" });
    expect((await outbox.waiting()).map((m) => [m.id, m.postingSince, m.attempts])).toEqual([["c", 300, 1]]);
    // Acked ids are remembered: a replay of the same drafts queues nothing.
    expect(await outbox.enqueue([draft("a"), draft("b")], 400)).toBe(0);
    await store.close();
  });

  it("finishes a replacement by reading the bodies of the replacing messages only", async () => {
    const store = await openStateStore(":memory:");
    const outbox = new Outbox(store, 1_000, () => 5_000);
    await outbox.enqueue([draft("s1"), draft("s2"), draft("s3")], 100);
    await outbox.enqueue([draft("digest", { kind: "digest", replaces: ["s1", "s2"] })], 110);
    const waiting = await outbox.waiting();
    expect(waiting.find((m) => m.id === "digest")?.replacing).toBe(true);
    const left = await outbox.finishReplacements(waiting, 120);
    expect(left.map((m) => m.id)).toEqual(["s3", "digest"]);
    expect((await outbox.waiting()).map((m) => m.id)).toEqual(["s3", "digest"]);
    await store.close();
  });
});

describe("ThreadIndex", () => {
  /** A scope whose thread namespace counts reads, over a real in-memory store. */
  function countingScope(scope: StoreScope): { scope: StoreScope; reads: () => number; listings: () => number } {
    let reads = 0;
    let listings = 0;
    return {
      reads: () => reads,
      listings: () => listings,
      scope: {
        namespace(name: string): KeyValueNamespace {
          const inner = scope.namespace(name);
          return {
            get: <T>(key: string) => {
              reads += 1;
              return inner.get<T>(key);
            },
            getMany: <T>(keys: readonly string[]) => {
              reads += 1;
              return inner.getMany<T>(keys);
            },
            set: (key, value, ttl) => inner.set(key, value, ttl),
            setMany: (entries, ttl) => inner.setMany(entries, ttl),
            delete: (key) => inner.delete(key),
            entries: <T>() => {
              listings += 1;
              return inner.entries<T>();
            },
            clear: () => inner.clear(),
          };
        },
        queue: (name) => scope.queue(name),
        keySet: (name) => scope.keySet(name),
      },
    };
  }

  it("reads every root once, then answers from memory; a person without a root costs no read", async () => {
    const store = await openStateStore(":memory:");
    let now = 1_000;
    await store.namespace("alerts.threads").set("hr|p2", { channel: "C1", ts: "2.2" });
    const counting = countingScope(store);
    const threads = new ThreadIndex(counting.scope, 10_000, () => now);
    await counting.scope.namespace("alerts.threads").set("hr|p1", { channel: "C1", ts: "1.1" });
    threads.noteRoot("hr", "p1", { channel: "C1", ts: "1.1" });
    expect(await threads.get("hr", "p1")).toEqual({ channel: "C1", ts: "1.1" });
    expect(await threads.get("hr", "p2")).toEqual({ channel: "C1", ts: "2.2" });
    expect(await threads.get("hr", "nobody")).toBeUndefined();
    expect(counting.reads()).toBe(0);
    expect(counting.listings()).toBe(1);
    // Past a root's time in memory, the store is asked again.
    now += 10_001;
    expect(await threads.get("hr", "p1")).toEqual({ channel: "C1", ts: "1.1" });
    expect(counting.reads()).toBe(1);
    await store.close();
  });

  it("reads the roots again in a new leadership term: another leader may have written some", async () => {
    const store = await openStateStore(":memory:");
    let term = 1;
    const counting = countingScope(store);
    const threads = new ThreadIndex(counting.scope, 10_000, Date.now, () => term);
    expect(await threads.get("hr", "p3")).toBeUndefined();
    await store.namespace("alerts.threads").set("hr|p3", { channel: "C1", ts: "3.3" });
    expect(await threads.get("hr", "p3")).toBeUndefined();
    term = 2;
    expect(await threads.get("hr", "p3")).toEqual({ channel: "C1", ts: "3.3" });
    expect(counting.listings()).toBe(2);
    await store.close();
  });
});
