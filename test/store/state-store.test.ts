import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StoreError } from "../../src/errors.js";
import { openStateStore } from "../../src/store/state-store.js";

describe("openStateStore", () => {
  it("keeps namespaces apart and survives a reopen", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "rs-store-")), "state.sqlite");
    const store = await openStateStore(file);
    await store.namespace("cursor").set("lens:1", "2026-01-01T00:00:00Z");
    await store.namespace("outbox").set("lens:1", { id: 1 });
    await store.namespace("outbox").set("b", { id: 2 });
    await store.close();

    const again = await openStateStore(file);
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

  it("works in memory for unit tests", async () => {
    const store = await openStateStore(":memory:");
    await store.namespace("x").set("k", 1);
    expect(await store.namespace("x").get("k")).toBe(1);
    expect(await store.namespace("y").get("k")).toBeUndefined();
    await store.close();
  });

  it("names the file when it is not a database", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "rs-store-")), "broken.sqlite");
    writeFileSync(file, "this is not sqlite ".repeat(200));
    await expect(openStateStore(file)).rejects.toBeInstanceOf(StoreError);
    await expect(openStateStore(file)).rejects.toThrow(/broken\.sqlite/);
  });
});

describe("entries on SQLite", () => {
  it("lists one namespace among many keys, skips expired entries and keys of a longer namespace name", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "rs-store-")), "state.sqlite");
    const store = await openStateStore(file);
    const big = store.namespace("alerts.delivered");
    for (let i = 0; i < 2_000; i += 1) await big.set(`chg:${i}`, true);
    const outbox = store.namespace("alerts.outbox");
    await outbox.set("a%_b", { n: 1 });
    await outbox.set("gone", { n: 2 }, 1);
    await store.namespace("alerts.outbox-index").set("x", 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await outbox.entries()).toEqual([["a%_b", { n: 1 }]]);
    expect(await big.entries()).toHaveLength(2_000);
    await store.close();
  });
});
