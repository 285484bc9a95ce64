import { describe, expect, it } from "vitest";
import { PersonMarks } from "../../src/interactive/person-marks.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";

/** The store, counting the reads its namespaces are asked for. */
function countingReads(store: StateStore): { store: StateStore; reads: () => number } {
  let reads = 0;
  const counted = Object.create(store) as StateStore;
  counted.namespace = (name) => {
    const inner = store.namespace(name);
    return Object.assign(Object.create(inner) as typeof inner, {
      get: (key: string) => {
        reads += 1;
        return inner.get(key);
      },
      getMany: (keys: readonly string[]) => {
        reads += 1;
        return inner.getMany(keys);
      },
    });
  };
  return { store: counted, reads: () => reads };
}

describe("PersonMarks.lookup", () => {
  it("answers the marks in force for many people with two reads", async () => {
    const store = await openStateStore(":memory:");
    const now = Date.parse("2026-03-02T09:00:00.000Z");
    await store.transaction(async (scope) => {
      await PersonMarks.acknowledge(scope, "p1", { by: "U1", at: "2026-03-01T09:00:00.000Z" });
      await PersonMarks.snooze(
        scope,
        "p2",
        { by: "U2", at: "2026-03-01T09:00:00.000Z", until: "2026-03-09T00:00:00.000Z" },
        now,
      );
      // Its snooze is over: not in force.
      await PersonMarks.snooze(
        scope,
        "p3",
        { by: "U3", at: "2026-02-01T09:00:00.000Z", until: "2026-03-01T00:00:00.000Z" },
        now - 30 * 86_400_000,
      );
    });
    const counting = countingReads(store);
    const people = ["p1", "p2", "p3", ...Array.from({ length: 50 }, (_, i) => `other-${i}`), "p1"];
    const marks = await new PersonMarks(counting.store).lookup(people, now);
    expect(Object.fromEntries(marks)).toEqual({
      p1: { acknowledged: { by: "U1", at: "2026-03-01T09:00:00.000Z" }, snoozedUntil: undefined },
      p2: { acknowledged: undefined, snoozedUntil: "2026-03-09T00:00:00.000Z" },
    });
    expect(counting.reads()).toBe(2);
    expect((await new PersonMarks(counting.store).lookup([], now)).size).toBe(0);
    expect(counting.reads()).toBe(2);
    await store.close();
  });
});
