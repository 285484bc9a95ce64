import { describe, expect, it } from "vitest";
import { changeIdFromEventId, oldestFirst, selectFresh } from "../../src/alerts/dedupe.js";
import { DeliveryLedger } from "../../src/alerts/delivery-ledger.js";
import { openStateStore } from "../../src/store/state-store.js";

describe("dedupe decisions", () => {
  it("keeps the first of each key not handled before", () => {
    const items = [{ key: "a" }, { key: "b" }, { key: "a" }, { key: "c" }];
    const result = selectFresh(items, (i) => [i.key], new Set(["c"]));
    expect(result.fresh.map((i) => i.key)).toEqual(["a", "b"]);
    expect(result.duplicates).toBe(2);
  });

  it("drops an item when any one of its identities was handled or seen (event id or change id)", () => {
    const items = [
      { keys: ["evt:1", "chg:1"] },
      { keys: ["evt:2", "chg:1"] },
      { keys: ["evt:3", "chg:3"] },
      { keys: ["evt:4", "chg:4"] },
    ];
    const result = selectFresh(items, (i) => i.keys, new Set(["evt:3"]));
    expect(result.fresh.map((i) => i.keys[0])).toEqual(["evt:1", "evt:4"]);
    expect(result.duplicates).toBe(2);
  });

  it("reads the change id out of an event id", () => {
    expect(changeIdFromEventId("evt_1234_2")).toBe(1234);
    expect(changeIdFromEventId("evt_x_1")).toBeUndefined();
    expect(changeIdFromEventId("ping_1")).toBeUndefined();
  });

  it("orders oldest first, ties by key", () => {
    const items = [
      { key: "b", detectedAt: "2026-11-23T10:00:00Z" },
      { key: "a", detectedAt: "2026-11-23T09:00:00Z" },
      { key: "c", detectedAt: "2026-11-23T10:00:00Z" },
    ];
    expect(oldestFirst(items).map((i) => i.key)).toEqual(["a", "b", "c"]);
  });
});

describe("DeliveryLedger", () => {
  it("remembers keys and serialises exclusive sections", async () => {
    const store = await openStateStore(":memory:");
    let now = 1_000_000;
    const ledger = new DeliveryLedger(store, 60_000, () => now);
    const order: string[] = [];
    const claim = (who: string) =>
      ledger.exclusive(async () => {
        if (await ledger.has("chg:1")) return false;
        await new Promise((r) => setTimeout(r, 5));
        await ledger.record(["chg:1"], now);
        order.push(who);
        return true;
      });
    const results = await Promise.all([claim("poller"), claim("webhook")]);
    expect(results).toEqual([true, false]);
    expect(order).toEqual(["poller"]);
    expect(await ledger.handled(["chg:1", "chg:2"])).toEqual(new Set(["chg:1"]));
    // Kept for the retention, then forgotten (and swept).
    now += 60_000;
    expect(await ledger.has("chg:1")).toBe(false);
    expect((await store.sweep(now)).expired).toBe(1);
    await store.close();
  });
});
