import { describe, expect, it } from "vitest";
import type { Billing } from "../../src/api/schemas.js";
import {
  type DesiredPerson,
  diffRoster,
  EMPTY_MEMORY,
  type RosterDiff,
  type ServicePerson,
} from "../../src/roster/diff-roster.js";
import { type KeptUntracked, rowSignature } from "../../src/roster/kept-untracked.js";
import { planReconcile } from "../../src/roster/plan-reconcile.js";
import type { RosterPerson } from "../../src/roster/roster-rows.js";
import { seatBudget } from "../../src/roster/seat-budget.js";
import { holdsEndedByArchive, settleHolds } from "../../src/roster/settle-holds.js";
import { archiveStep } from "./plan-builders.js";

const started = new Date("2026-11-24T08:00:00Z");
const before = "2026-11-23T15:00:00.000Z";
const url = (n: number) => `https://www.linkedin.com/in/p-${n}`;
const rules = { archiveUnknown: false, archiveAfterMissingExports: 2 };
const planRules = { priorityDepartments: [], maxArchivePercent: 100, maxArchiveCount: 1000, allowMassArchive: false };

function row(n: number, over: Partial<RosterPerson> = {}): DesiredPerson {
  return {
    line: n + 2,
    index: n,
    profileUrl: url(n),
    employeeId: `E${n}`,
    name: `Person ${n}`,
    email: `p${n}@example.com`,
    department: "Engineering",
    title: "Engineer",
    status: "Active",
    tracked: true,
    ...over,
  };
}

const untracked = (n: number): ServicePerson => ({ id: 100 + n, profileUrl: url(n), tracked: false, archived: false });
const hold = (n: number, over: Partial<KeptUntracked> = {}): KeptUntracked => ({
  employeeId: 100 + n,
  stoppedBy: "U0123ABC",
  stoppedAt: before,
  ...over,
});

function billing(left = 200): Billing {
  return {
    organizationId: 1,
    seats: {},
    plan: { status: "active", perSeatUsd: 5 },
    estimate: {},
    trial: { onFreeTrial: false },
    seatSettlement: { chargeFailed: false },
    apiSeatAllowance: { perDay: 200, usedLast24h: 0, left },
  } as Billing;
}

/** The diff of `desired` against `current`, then the holds settled over it, as reconcileOnce does. */
function settle(
  desired: DesiredPerson[],
  current: ServicePerson[],
  holds: Map<string, KeptUntracked>,
  exclusions = new Map(),
) {
  // Everyone was in an earlier export: a leaver is ours to archive.
  const memory = { ...EMPTY_MEMORY, seen: new Set(current.map((p) => p.profileUrl)) };
  const diff = diffRoster({ desired, exclusions, current, memory, rules, now: started });
  const byUrl = new Map(desired.map((p) => [p.profileUrl, p]));
  return {
    diff,
    settled: settleHolds({ holds, desired: { people: desired, byUrl }, current, diff, startedAt: started }),
  };
}

const trackUrls = (diff: RosterDiff) => diff.track.map((t) => t.person.profileUrl);

describe("rowSignature", () => {
  it("changes with the fields that matter and only with them", () => {
    const base = rowSignature(row(1));
    expect(rowSignature(row(1))).toBe(base);
    // Another line, position or manager, or the email's case: the same row for a hold.
    expect(rowSignature(row(1, { line: 90, index: 7, managerEmail: "boss@example.com" }))).toBe(base);
    expect(rowSignature(row(1, { email: "P1@Example.com" }))).toBe(base);
    for (const change of [
      { name: "Person One" },
      { email: "other@example.com" },
      { employeeId: "E999" },
      { department: "Sales" },
      { title: "Manager" },
      { status: "On Leave" },
      { terminationDate: "2027-01-31" },
      { tracked: false },
    ] satisfies Partial<RosterPerson>[]) {
      expect(rowSignature(row(1, change)), JSON.stringify(change)).not.toBe(base);
    }
    expect(base).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("settleHolds", () => {
  it("keeps a held person untracked: no track, the row's signature noted on the first run, kept after", () => {
    const desired = [row(1), row(2)];
    const current = [untracked(1), untracked(2)];
    const first = settle(desired, current, new Map([[url(1), hold(1)]]));
    expect(trackUrls(first.diff)).toEqual([url(1), url(2)]);
    expect(trackUrls(first.settled.diff)).toEqual([url(2)]);
    expect(first.settled.kept).toEqual([
      {
        url: url(1),
        id: 101,
        who: { line: 3, name: "Person 1", employeeId: "E1", department: "Engineering" },
        stoppedBy: "U0123ABC",
        stoppedAt: before,
      },
    ]);
    expect(first.settled.ended).toEqual([]);
    expect(first.settled.record).toEqual([[url(1), { ...hold(1), rowSignature: rowSignature(row(1)) }]]);

    // The next run, same row (a new export of it, another line): still kept, nothing to write.
    const noted = new Map([[url(1), { ...hold(1), rowSignature: rowSignature(row(1)) }]]);
    const again = settle([row(1, { line: 40 }), row(2)], current, noted);
    expect(trackUrls(again.settled.diff)).toEqual([url(2)]);
    expect(again.settled.kept.map((k) => k.url)).toEqual([url(1)]);
    expect(again.settled.record).toEqual([]);
    expect([...again.settled.standing.keys()]).toEqual([url(1)]);
  });

  it("ends the hold when the row changed since: the track is planned again", () => {
    const noted = new Map([[url(1), hold(1, { rowSignature: rowSignature(row(1)) })]]);
    const { settled } = settle([row(1, { department: "Sales" })], [untracked(1)], noted);
    expect(trackUrls(settled.diff)).toEqual([url(1)]);
    expect(settled.kept).toEqual([]);
    expect(settled.ended).toMatchObject([{ url: url(1), id: 101, cause: "row-changed", stoppedBy: "U0123ABC" }]);
    expect(settled.standing.size).toBe(0);
  });

  it("ends the hold when someone tracked the person again, unless the stop is newer than the run", () => {
    const tracked = { ...untracked(1), tracked: true };
    const again = settle([row(1)], [tracked], new Map([[url(1), hold(1)]]));
    expect(again.settled.ended).toMatchObject([{ url: url(1), cause: "tracked-again" }]);
    expect(again.settled.diff.track).toEqual([]);

    // Stopped after this run began: the roster read may be older than the stop; the hold stays.
    const late = new Map([[url(1), hold(1, { stoppedAt: "2026-11-24T08:00:05.000Z" })]]);
    const racing = settle([row(1)], [tracked], late);
    expect(racing.settled.ended).toEqual([]);
    expect([...racing.settled.standing.keys()]).toEqual([url(1)]);
  });

  it("never blocks an archive: a terminated person is archived, and the hold ends once that is done", () => {
    const gone = row(1);
    const exclusions = new Map([
      [url(1), { person: gone, reason: "terminated" as const, detail: "status Terminated" }],
    ]);
    const { settled } = settle([row(2)], [untracked(1), untracked(2)], new Map([[url(1), hold(1)]]), exclusions);
    expect(settled.diff.archive.map((a) => a.profileUrl)).toEqual([url(1)]);
    expect(settled.ended).toEqual([]);
    const budget = seatBudget({ billing: billing(), now: started });
    const plan = planReconcile({ diff: settled.diff, budget, rules: planRules });
    expect(plan.steps.flatMap((s) => (s.kind === "archive" ? [s.url] : []))).toEqual([url(1)]);

    const done = {
      counts: {} as never,
      deferred: [],
      refusals: [],
      failures: [],
      writeRequests: 1,
      interrupted: false,
    };
    expect(holdsEndedByArchive(settled.standing, plan.steps, done)).toMatchObject([{ url: url(1), cause: "archived" }]);
    // Not done: failed, or the run was cut short (the next run sees the service and decides).
    const failed = {
      ...done,
      failures: [{ change: "archive" as const, url: url(1), who: {}, message: "x", unconfirmed: true }],
    };
    expect(holdsEndedByArchive(settled.standing, plan.steps, failed)).toEqual([]);
    expect(holdsEndedByArchive(settled.standing, plan.steps, { ...done, interrupted: true })).toEqual([]);
    // A dry run: the planned archive would end it.
    expect(holdsEndedByArchive(settled.standing, [archiveStep(101, url(1))], undefined)).toHaveLength(1);
  });

  it("ends the hold of someone archived or erased on the service, and of another row for the profile", () => {
    const holds = new Map([
      [url(1), hold(1)],
      [url(2), hold(2)],
      [url(3), hold(3)],
    ]);
    const current = [
      { ...untracked(1), archived: true },
      { ...untracked(3), id: 999 },
    ];
    const { settled } = settle([row(1), row(3)], current, holds);
    expect(settled.ended.map((e) => [e.url, e.cause])).toEqual([
      [url(1), "archived"],
      [url(2), "erased"],
      [url(3), "other-row"],
    ]);
    // The rehire is revived as the row says: the hold is gone with the archive.
    expect(settled.diff.revive.map((r) => r.person.profileUrl)).toEqual([url(1)]);
    expect(settled.standing.size).toBe(0);
  });

  it("keeps the hold of a person not in scope in this export, with no signature yet", () => {
    const { settled } = settle([row(2)], [untracked(1), untracked(2)], new Map([[url(1), hold(1)]]));
    expect(settled.ended).toEqual([]);
    expect(settled.kept).toEqual([]);
    expect(settled.record).toEqual([]);
    // Missing from this export: waits for the missing count like anyone, hold or not.
    expect(settled.diff.waiting).toBe(1);
    expect([...settled.standing.keys()]).toEqual([url(1)]);
  });

  it("gives a held person no seat: the room goes to the others", () => {
    const desired = [row(1), row(2), row(3)];
    const current = [untracked(1), untracked(2), untracked(3)];
    const { settled } = settle(desired, current, new Map([[url(1), hold(1)]]));
    const budget = seatBudget({ billing: billing(2), now: started });
    const plan = planReconcile({ diff: settled.diff, budget, rules: planRules });
    expect(plan.steps.map((s) => (s.kind === "add" ? s.kind : [s.kind, s.url]))).toEqual([
      ["track", url(2)],
      ["track", url(3)],
    ]);
    expect(plan.deferred).toEqual([]);
    expect(plan.seatDelta).toBe(2);
  });
});
