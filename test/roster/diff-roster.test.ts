import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  advanceMemory,
  type DesiredPerson,
  type DiffRules,
  diffRoster,
  EMPTY_MEMORY,
  type RosterDiff,
  type RosterMemory,
  type ServicePerson,
} from "../../src/roster/diff-roster.js";
import type { Exclusion } from "../../src/roster/roster-rows.js";

const now = new Date("2026-11-23T10:00:00Z");
const url = (n: number) => `https://www.linkedin.com/in/p-${n}`;
const rules: DiffRules = { archiveUnknown: false, archiveAfterMissingExports: 2 };

/** Person n of the HRIS file; `tracked: false` is what the reader makes of an untracked department. */
const wanted = (n: number, tracked = true): DesiredPerson => ({ line: n + 2, index: n, profileUrl: url(n), tracked });
/** Person n on the service, id n + 100. */
const onService = (n: number, state: { tracked?: boolean; archived?: boolean } = {}): ServicePerson => ({
  id: n + 100,
  profileUrl: url(n),
  tracked: state.tracked ?? true,
  archived: state.archived ?? false,
});
/** A memory in which `seen` came from HRIS files and `missing` counts files without them. */
const memoryOf = (seen: number[], missing: Array<[number, number]> = []): RosterMemory => ({
  ...EMPTY_MEMORY,
  seen: new Set(seen.map(url)),
  missing: new Map(missing.map(([n, runs]) => [url(n), runs])),
});

function diff(desired: DesiredPerson[], current: ServicePerson[], memory: RosterMemory, over: Partial<DiffRules> = {}) {
  return diffRoster({ desired, current, memory, rules: { ...rules, ...over }, now });
}

const urlsOf = (d: RosterDiff) => ({
  add: d.add.map((p) => p.profileUrl),
  revive: d.revive.map((r) => r.person.profileUrl),
  track: d.track.map((r) => r.person.profileUrl),
  untrack: d.untrack.map((r) => r.person.profileUrl),
  archive: d.archive.map((a) => a.profileUrl),
});

describe("diffRoster", () => {
  it("adds a joiner who is not on the service, tracked or not as the file says", () => {
    const d = diff([wanted(1), wanted(2, false)], [], EMPTY_MEMORY);
    expect(d.add).toEqual([wanted(1), wanted(2, false)]);
    expect(urlsOf(d)).toMatchObject({ revive: [], track: [], untrack: [], archive: [] });
  });

  it("revives a rehire who is archived on the service, under their old id", () => {
    const d = diff([wanted(1)], [onService(1, { tracked: false, archived: true })], memoryOf([1]));
    expect(d.revive).toEqual([{ person: wanted(1), id: 101 }]);
    expect(d.add).toEqual([]);
  });

  it("says since when a rehire was archived only when an earlier run saw it, not when this run first sees it", () => {
    const archived = [onService(1, { tracked: false, archived: true })];
    const earlier = "2026-10-01T02:00:00.000Z";
    const known = { ...memoryOf([1]), archivedAt: new Map([[url(1), earlier]]) };
    expect(diff([wanted(1)], archived, known).revive).toEqual([{ person: wanted(1), id: 101, archivedSince: earlier }]);
    const fresh = advanceMemory(memoryOf([1]), { fingerprint: "a", desired: [wanted(1)], known: [] }, archived, now);
    expect(diff([wanted(1)], archived, fresh).revive).toEqual([{ person: wanted(1), id: 101 }]);
  });

  it("changes nothing for people on the service as the file wants them", () => {
    const d = diff([wanted(1), wanted(2, false)], [onService(1), onService(2, { tracked: false })], memoryOf([1, 2]));
    expect(urlsOf(d)).toEqual({ add: [], revive: [], track: [], untrack: [], archive: [] });
    expect([d.waiting, d.unknown, d.currentActive, d.currentTracked]).toEqual([0, 0, 2, 1]);
  });

  it("untracks someone moved into an untracked department, and tracks them again when they move out", () => {
    const service = [onService(1, { tracked: true }), onService(2, { tracked: false })];
    const d = diff([wanted(1, false), wanted(2, true)], service, memoryOf([1, 2]));
    expect(d.untrack).toEqual([{ person: wanted(1, false), id: 101 }]);
    expect(d.track).toEqual([{ person: wanted(2, true), id: 102 }]);
  });

  it("lets a leaver wait until missing from the configured number of files, then archives them", () => {
    const service = [onService(1), onService(2)];
    const once = diff([wanted(1)], service, memoryOf([1, 2], [[2, 1]]));
    expect(once.archive).toEqual([]);
    expect(once.waiting).toBe(1);
    const twice = diff([wanted(1)], service, memoryOf([1, 2], [[2, 2]]));
    expect(twice.archive).toEqual([
      { id: 102, profileUrl: url(2), tracked: true, missingExports: 2, who: {}, cause: "left" },
    ]);
    expect(twice.waiting).toBe(0);
  });

  it("counts a missing file once per new export, not per run of the same export", () => {
    const service = [onService(1), onService(2)];
    const desired = [wanted(1)];
    const advance = (m: RosterMemory, fingerprint: string) =>
      advanceMemory(m, { fingerprint, desired, known: [] }, service, now);
    const first = advance(memoryOf([1, 2]), "monday");
    const rerun = advance(first, "monday");
    expect(diff(desired, service, rerun).archive).toEqual([]);
    const next = advance(rerun, "tuesday");
    expect(urlsOf(diff(desired, service, next)).archive).toEqual([url(2)]);
  });

  it("starts the count again for someone back in the file before being archived", () => {
    const service = [onService(1), onService(2)];
    const gone = advanceMemory(memoryOf([1, 2]), { fingerprint: "a", desired: [wanted(1)], known: [] }, service, now);
    const back = advanceMemory(gone, { fingerprint: "b", desired: [wanted(1), wanted(2)], known: [] }, service, now);
    const goneAgain = advanceMemory(back, { fingerprint: "c", desired: [wanted(1)], known: [] }, service, now);
    const d = diff([wanted(1)], service, goneAgain);
    expect(d.archive).toEqual([]);
    expect(d.waiting).toBe(1);
  });

  it("leaves people who came from other sources alone, unless archiveUnknown is on", () => {
    const service = [onService(1), onService(7)];
    const memory = memoryOf([1], [[7, 5]]);
    const plain = diff([wanted(1)], service, memory);
    expect(plain.archive).toEqual([]);
    expect(plain.unknown).toBe(1);
    const strict = diff([wanted(1)], service, memory, { archiveUnknown: true });
    expect(urlsOf(strict).archive).toEqual([url(7)]);
    expect(strict.unknown).toBe(0);
  });

  it("does not archive again someone already archived, nor count them as live", () => {
    const d = diff([], [onService(3, { archived: true })], memoryOf([3], [[3, 9]]));
    expect(d.archive).toEqual([]);
    expect([d.waiting, d.currentActive, d.currentTracked]).toEqual([0, 0, 0]);
  });

  it("archives someone the export marks terminated at once, naming the row, and lets out-of-scope people wait", () => {
    const service = [onService(1), onService(2), onService(3)];
    const terminated: Exclusion = {
      person: { ...wanted(2), name: "Ada Lovelace", employeeId: "E2", department: "Eng" },
      reason: "terminated",
      detail: 'status "Terminated"',
    };
    const contractor: Exclusion = { person: wanted(3), reason: "out-of-scope", detail: 'status "Contractor"' };
    const exclusions = new Map([
      [url(2), terminated],
      [url(3), contractor],
    ]);
    const d = diffRoster({
      desired: [wanted(1)],
      exclusions,
      current: service,
      memory: memoryOf([1, 2, 3]),
      rules,
      now,
    });
    expect(d.archive).toEqual([
      {
        id: 102,
        profileUrl: url(2),
        tracked: true,
        missingExports: 0,
        who: { name: "Ada Lovelace", employeeId: "E2", department: "Eng", line: 4 },
        cause: "terminated",
        detail: 'status "Terminated"',
      },
    ]);
    expect(d.waiting).toBe(1);
    const later = diffRoster({
      desired: [wanted(1)],
      exclusions,
      current: service,
      memory: memoryOf([1, 2, 3], [[3, 2]]),
      rules,
      now,
    });
    expect(later.archive.map((a) => [a.profileUrl, a.cause, a.detail])).toEqual([
      [url(2), "terminated", 'status "Terminated"'],
      [url(3), "out-of-scope", 'status "Contractor"'],
    ]);
  });

  it("names a leaver from the memory of their last row, and says since when they are missing", () => {
    const service = [onService(1), onService(2)];
    const ada = { ...wanted(2), name: "Ada Lovelace", employeeId: "E2", department: "Eng" };
    const monday = new Date("2026-11-23T02:00:00Z");
    const tuesday = new Date("2026-11-24T02:00:00Z");
    const m0 = advanceMemory(EMPTY_MEMORY, { fingerprint: "sun", desired: [wanted(1), ada], known: [] }, service, now);
    const m1 = advanceMemory(m0, { fingerprint: "mon", desired: [wanted(1)], known: [] }, service, monday);
    const m2 = advanceMemory(m1, { fingerprint: "tue", desired: [wanted(1)], known: [] }, service, tuesday);
    expect(m2.missing.get(url(2))).toBe(2);
    expect(m2.missingSince.get(url(2))).toBe(monday.toISOString());
    const [archive] = diff([wanted(1)], service, m2).archive;
    expect(archive).toMatchObject({
      who: { name: "Ada Lovelace", employeeId: "E2", department: "Eng" },
      cause: "left",
      missingExports: 2,
      since: monday.toISOString(),
    });
  });

  it("counts the people managed from the HRIS export: the guard's denominator, not the whole service roster", () => {
    const service = [onService(1), onService(2), onService(3), onService(50), onService(51), onService(52)];
    const d = diff([wanted(1), wanted(2)], service, memoryOf([1, 2, 3], [[3, 2]]));
    expect(d.currentActive).toBe(6);
    expect(d.managedActive).toBe(3);
    expect(d.unknown).toBe(3);
  });

  it("takes the live row when the service holds one URL twice, archived and live", () => {
    const service = [onService(1, { archived: true }), { ...onService(1), id: 555 }];
    const d = diff([wanted(1)], service, memoryOf([1]));
    expect(urlsOf(d)).toEqual({ add: [], revive: [], track: [], untrack: [], archive: [] });
    expect(d.currentActive).toBe(1);
  });
});

// Property: whatever the file, the service and the memory, the diff takes every person of the
// file to the state the file asks for, never archives one of them, and accounts for every live
// person the file does not want.
const pool = fc.integer({ min: 0, max: 30 });
const scenario = fc.record({
  desired: fc.uniqueArray(fc.record({ n: pool, tracked: fc.boolean() }), { selector: (p) => p.n, maxLength: 25 }),
  current: fc.uniqueArray(fc.record({ n: pool, tracked: fc.boolean(), archived: fc.boolean() }), {
    selector: (p) => p.n,
    maxLength: 25,
  }),
  seen: fc.uniqueArray(pool, { maxLength: 31 }),
  missing: fc.uniqueArray(fc.tuple(pool, fc.integer({ min: 0, max: 4 })), { selector: ([n]) => n, maxLength: 31 }),
  archiveUnknown: fc.boolean(),
  archiveAfterMissingExports: fc.integer({ min: 1, max: 3 }),
});

/** The service after the diff's changes (the plan's caps left out). */
function applied(current: readonly ServicePerson[], d: RosterDiff): ServicePerson[] {
  const byId = new Map(current.map((p) => [p.id, p]));
  const update = (id: number, change: Partial<ServicePerson>) => {
    const before = byId.get(id);
    if (!before) throw new Error(`the diff names id ${id}, which is not on the service`);
    byId.set(id, { ...before, ...change });
  };
  for (const { id, person } of d.revive) update(id, { archived: false, tracked: person.tracked });
  for (const { id } of d.track) update(id, { tracked: true });
  for (const { id } of d.untrack) update(id, { tracked: false });
  for (const { id } of d.archive) update(id, { archived: true, tracked: false });
  let next = 10_000;
  for (const p of d.add) byId.set(next, { id: next++, profileUrl: p.profileUrl, tracked: p.tracked, archived: false });
  return [...byId.values()];
}

describe("diffRoster, any file against any service", () => {
  it("reaches the file's state for its people, archives none of them, and accounts for every other live person", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const desired = s.desired.map(({ n, tracked }) => wanted(n, tracked));
        const current = s.current.map(({ n, tracked, archived }) => onService(n, { tracked, archived }));
        const memory = memoryOf(s.seen, s.missing);
        const r = { archiveUnknown: s.archiveUnknown, archiveAfterMissingExports: s.archiveAfterMissingExports };
        const d = diff(desired, current, memory, r);
        const b = urlsOf(d);
        const wantedUrls = new Set(desired.map((p) => p.profileUrl));

        // Each person of the file is in at most one of the change lists, none is archived, and
        // no one the service already has (archived or not) is added a second time.
        const changed = [...b.add, ...b.revive, ...b.track, ...b.untrack];
        expect(new Set(changed).size).toBe(changed.length);
        expect(b.archive.filter((u) => wantedUrls.has(u))).toEqual([]);
        const known = new Set(current.map((p) => p.profileUrl));
        expect(b.add.filter((u) => known.has(u))).toEqual([]);

        // After the changes every person of the file is live with the tracking the file asks for,
        // and a second diff has nothing left to change for them.
        const after = applied(current, d);
        const live = new Map(after.filter((p) => !p.archived).map((p) => [p.profileUrl, p]));
        for (const p of desired) expect(live.get(p.profileUrl)?.tracked).toBe(p.tracked);
        const again = urlsOf(diff(desired, after, memory, r));
        expect([...again.add, ...again.revive, ...again.track, ...again.untrack]).toEqual([]);

        // Every live person the file does not want is archived, waiting or unknown; archives respect the rules.
        const liveBefore = current.filter((p) => !p.archived);
        const notWanted = liveBefore.filter((p) => !wantedUrls.has(p.profileUrl));
        expect(d.archive.length + d.held.length + d.waiting + d.unknown).toBe(notWanted.length);
        for (const a of d.archive) {
          expect(a.missingExports).toBeGreaterThanOrEqual(s.archiveAfterMissingExports);
          expect(s.archiveUnknown || memory.seen.has(a.profileUrl)).toBe(true);
        }
        expect(d.currentActive).toBe(liveBefore.length);
        expect(d.currentTracked).toBe(liveBefore.filter((p) => p.tracked).length);
      }),
    );
  });
});
