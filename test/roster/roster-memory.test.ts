import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logger.js";
import {
  advanceMemory,
  EMPTY_MEMORY,
  type RosterMemory,
  type ServicePerson,
  withPlannedArchiveTimes,
} from "../../src/roster/diff-roster.js";
import type { PlanStep } from "../../src/roster/plan-types.js";
import {
  loadRosterMemory,
  MEMORY_KEY,
  MEMORY_NAMESPACE,
  saveRosterMemory,
} from "../../src/roster/stored-roster-memory.js";
import { openStateStore } from "../../src/store/state-store.js";
import { captureLogs } from "../helpers/capture-logs.js";
import { addStep, archiveStep, eraseStep, reviveStep, trackStep, untrackStep } from "./plan-builders.js";

const url = (n: number) => `https://www.linkedin.com/in/p-${n}`;
const before = "2026-01-01T00:00:00.000Z";
const at = new Date("2026-11-23T10:00:00Z");

function memoryWith(archivedAt: Array<[string, string]>): RosterMemory {
  return {
    lastFingerprint: "f1",
    seen: new Set([url(1), url(2), url(3), url(4), url(5)]),
    exportSeenAt: before,
    missing: new Map([[url(1), 2]]),
    missingSince: new Map([[url(1), before]]),
    archivedAt: new Map(archivedAt),
    identities: new Map([[url(1), { employeeId: "E1", name: "Ada Lovelace", department: "Eng" }]]),
  };
}

describe("withPlannedArchiveTimes: the plan's archive bookkeeping in the memory", () => {
  it("notes the plan's archives as of `at`, keeps a time already remembered, and forgets revived or erased people", () => {
    const memory = memoryWith([
      [url(2), before],
      [url(3), before],
      [url(4), before],
    ]);
    const steps: PlanStep[] = [
      archiveStep(1, url(1)),
      // The service holds this URL twice, one row archived: its remembered time stays.
      archiveStep(2, url(2), false),
      reviveStep(3, url(3)),
      eraseStep(4, url(4)),
      addStep(true, [url(5)]),
      trackStep(6, url(6)),
      untrackStep(7, url(7)),
    ];
    const next = withPlannedArchiveTimes(memory, steps, at);
    expect(next.archivedAt).toEqual(
      new Map([
        [url(2), before],
        [url(1), at.toISOString()],
      ]),
    );
    // Nothing else changes, and the memory it was given stays as it was.
    expect({ ...next, archivedAt: memory.archivedAt }).toEqual(memory);
    expect(memory.archivedAt.size).toBe(3);
  });

  it("is the same memory content for a plan without archives, revives or erases", () => {
    const memory = memoryWith([[url(2), before]]);
    expect(withPlannedArchiveTimes(memory, [addStep(true, [url(9)])], at)).toEqual(memory);
  });

  it("an archive time noted before the apply lasts only if the service shows the person archived next run", () => {
    const planned = withPlannedArchiveTimes(memoryWith([]), [archiveStep(1, url(1)), archiveStep(2, url(2))], at);
    // p-1 was archived; the archive of p-2 failed or was cut short.
    const service: ServicePerson[] = [
      { id: 1, profileUrl: url(1), tracked: false, archived: true },
      { id: 2, profileUrl: url(2), tracked: true, archived: false },
    ];
    const later = new Date("2026-11-24T10:00:00Z");
    const next = advanceMemory(planned, { fingerprint: "f2", desired: [], known: [] }, service, later);
    expect(next.archivedAt).toEqual(new Map([[url(1), at.toISOString()]]));
  });
});

describe("the roster memory in the state store", () => {
  it("saves and loads back a memory (namespace MEMORY_NAMESPACE, key MEMORY_KEY, JSON text)", async () => {
    const store = await openStateStore(":memory:");
    try {
      expect(await loadRosterMemory(store, silentLogger())).toBe(EMPTY_MEMORY);
      const memory = memoryWith([[url(2), before]]);
      await saveRosterMemory(store, memory);
      expect(typeof (await store.namespace(MEMORY_NAMESPACE).get<unknown>(MEMORY_KEY))).toBe("string");
      expect(await loadRosterMemory(store, silentLogger())).toEqual(memory);
    } finally {
      await store.close();
    }
  });

  it("starts again empty from a damaged memory, with a warning that names the problem", async () => {
    const store = await openStateStore(":memory:");
    try {
      await store.namespace(MEMORY_NAMESPACE).set(MEMORY_KEY, "{ cut off");
      const logs = captureLogs({ level: "warn" });
      expect(await loadRosterMemory(store, logs.logger)).toBe(EMPTY_MEMORY);
      expect(logs.records()).toMatchObject([
        { namespace: MEMORY_NAMESPACE, problem: expect.stringMatching(/not JSON/) },
      ]);
    } finally {
      await store.close();
    }
  });
});
