import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Billing } from "../../src/api/schemas.js";
import {
  advanceMemory,
  type DesiredPerson,
  diffRoster,
  EMPTY_MEMORY,
  type ServicePerson,
} from "../../src/roster/diff-roster.js";
import { type PlanRules, planReconcile } from "../../src/roster/plan-reconcile.js";
import type { ReconcilePlan } from "../../src/roster/plan-types.js";
import { seatBudget } from "../../src/roster/seat-budget.js";

const now = new Date("2026-11-23T10:00:00Z");
const url = (n: number) => `https://www.linkedin.com/in/p-${n}`;
const rules: PlanRules = {
  priorityDepartments: ["Sales"],
  maxArchivePercent: 100,
  maxArchiveCount: 10_000,
  allowMassArchive: false,
};
const diffRules = { archiveUnknown: false, archiveAfterMissingExports: 1 };

function billing(over: {
  status?: string;
  trial?: boolean;
  seatsLeft?: number;
  left?: number;
  chargeFailed?: boolean;
}): Billing {
  return {
    organizationId: 1,
    seats: {},
    plan: { status: over.status ?? "active", perSeatUsd: 5 },
    estimate: {},
    trial: { onFreeTrial: over.trial ?? false, seatsLeft: over.seatsLeft ?? 0, seatLimit: 100 },
    seatSettlement: { chargeFailed: over.chargeFailed ?? false },
    apiSeatAllowance: { perDay: 200, usedLast24h: 0, left: over.left ?? 200 },
  } as Billing;
}

/** The service after a plan: the reference model the plan is checked against. */
function apply(current: ServicePerson[], plan: ReconcilePlan): ServicePerson[] {
  const byId = new Map(current.map((p) => [p.id, { ...p }]));
  let next = 10_000;
  for (const s of plan.steps) {
    if (s.kind === "add")
      for (const { url: u } of s.people)
        byId.set(next++, { id: next, profileUrl: u, tracked: s.tracked, archived: false });
    else {
      const p = byId.get(s.id);
      if (!p) throw new Error(`no ${s.id}`);
      if (s.kind === "revive") Object.assign(p, { archived: false, tracked: s.tracked });
      if (s.kind === "track") p.tracked = true;
      if (s.kind === "untrack") p.tracked = false;
      if (s.kind === "archive") Object.assign(p, { archived: true, tracked: false });
      if (s.kind === "erase") byId.delete(s.id);
    }
  }
  return [...byId.values()];
}

const scenario = fc.record({
  desired: fc.uniqueArray(
    fc.record({ n: fc.integer({ min: 0, max: 60 }), dept: fc.constantFrom("Eng", "Sales", "Support") }),
    { selector: (p) => p.n, maxLength: 40 },
  ),
  current: fc.uniqueArray(
    fc.record({ n: fc.integer({ min: 0, max: 60 }), tracked: fc.boolean(), archived: fc.boolean() }),
    { selector: (p) => p.n, maxLength: 40 },
  ),
  left: fc.integer({ min: 0, max: 30 }),
  maxSeats: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
  maxMonthlyUsd: fc.option(fc.integer({ min: 0, max: 250 }), { nil: undefined }),
  trial: fc.boolean(),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function setup(s: Scenario) {
  const desired: DesiredPerson[] = s.desired.map((d, index) => ({
    line: index + 2,
    index,
    profileUrl: url(d.n),
    department: d.dept,
    tracked: d.dept !== "Support",
  }));
  const current: ServicePerson[] = s.current.map((c) => ({
    id: c.n + 1,
    profileUrl: url(c.n),
    tracked: c.tracked && !c.archived,
    archived: c.archived,
  }));
  const memory = { ...EMPTY_MEMORY, seen: new Set(current.map((c) => c.profileUrl)) };
  const counted = advanceMemory(memory, { fingerprint: "f1", desired, known: [] }, current, now);
  const b = billing(s.trial ? { trial: true, seatsLeft: s.left } : { left: s.left });
  const budget = seatBudget({ billing: b, maxSeats: s.maxSeats, maxMonthlyUsd: s.maxMonthlyUsd, now });
  return { desired, current, counted, budget };
}

describe("planReconcile", () => {
  it("reaches the desired state within every cap, and a second plan is empty", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { desired, current, counted, budget } = setup(s);
        const plan = planReconcile({
          diff: diffRoster({ desired, current, memory: counted, rules: diffRules, now }),
          budget,
          rules,
        });
        const after = apply(current, plan);
        const live = after.filter((p) => !p.archived);
        const trackedBefore = current.filter((p) => p.tracked).length;
        const trackedAfter = live.filter((p) => p.tracked).length;
        // Never over a cap.
        const added =
          plan.steps.filter((x) => x.kind === "track" || (x.kind === "revive" && x.tracked)).length +
          plan.steps.reduce((n, x) => n + (x.kind === "add" && x.tracked ? x.people.length : 0), 0);
        expect(added).toBeLessThanOrEqual(s.left);
        if (s.maxSeats !== undefined) expect(trackedAfter).toBeLessThanOrEqual(Math.max(s.maxSeats, trackedBefore));
        if (s.maxMonthlyUsd !== undefined)
          expect(trackedAfter * 5).toBeLessThanOrEqual(Math.max(s.maxMonthlyUsd, trackedBefore * 5));
        expect(trackedAfter - trackedBefore).toBe(plan.seatDelta);
        for (const step of plan.steps) if (step.kind === "add") expect(step.people.length).toBeLessThanOrEqual(50);
        // Desired state reached, except what was deferred.
        const deferred = new Set(plan.deferred.map((d) => d.url));
        const liveByUrl = new Map(live.map((p) => [p.profileUrl, p]));
        for (const d of desired) {
          if (deferred.has(d.profileUrl)) continue;
          expect(liveByUrl.get(d.profileUrl)?.tracked, d.profileUrl).toBe(d.tracked);
        }
        const wanted = new Set(desired.map((d) => d.profileUrl));
        for (const p of live) expect(wanted.has(p.profileUrl), p.profileUrl).toBe(true);
        // A second plan on the same file with the budget consumed does nothing.
        const spent = seatBudget({
          billing: billing(s.trial ? { trial: true, seatsLeft: s.left - added } : { left: s.left - added }),
          maxSeats: s.maxSeats,
          maxMonthlyUsd: s.maxMonthlyUsd,
          now,
        });
        const memory2 = advanceMemory(counted, { fingerprint: "f1", desired, known: [] }, after, now);
        const again = planReconcile({
          diff: diffRoster({ desired, current: after, memory: memory2, rules: diffRules, now }),
          budget: spent,
          rules,
        });
        expect(again.steps).toEqual([]);
        expect(again.deferred.length).toBe(plan.deferred.length);
      }),
      { numRuns: 300 },
    );
  });

  it("puts priority departments first, then file order", () => {
    const desired: DesiredPerson[] = ["Eng", "Sales", "Eng", "Sales"].map((department, index) => ({
      line: index + 2,
      index,
      profileUrl: url(index),
      department,
      tracked: true,
    }));
    const diff = diffRoster({ desired, current: [], memory: EMPTY_MEMORY, rules: diffRules, now });
    const plan = planReconcile({ diff, budget: seatBudget({ billing: billing({ left: 3 }), now }), rules });
    expect(plan.steps).toEqual([
      {
        kind: "add",
        tracked: true,
        people: [
          { url: url(1), who: { line: 3, department: "Sales" }, reason: { why: "joiner" } },
          { url: url(3), who: { line: 5, department: "Sales" }, reason: { why: "joiner" } },
          { url: url(0), who: { line: 2, department: "Eng" }, reason: { why: "joiner" } },
        ],
      },
    ]);
    expect(plan.deferred).toEqual([
      expect.objectContaining({ url: url(2), reason: "api-seat-allowance", who: { line: 4, department: "Eng" } }),
    ]);
    expect(plan.monthlyCostDeltaUsd).toBe(15);
  });

  it("blocks every add on a failed charge or an inactive plan, but still untracks", () => {
    const desired: DesiredPerson[] = [
      { line: 2, index: 0, profileUrl: url(1), tracked: true },
      { line: 3, index: 1, profileUrl: url(2), tracked: false, department: "Support" },
    ];
    const current: ServicePerson[] = [{ id: 2, profileUrl: url(2), tracked: true, archived: false }];
    for (const [b, reason] of [
      [billing({ chargeFailed: true }), "charge-failed"],
      [billing({ status: "canceled" }), "subscription-inactive"],
    ] as const) {
      const plan = planReconcile({
        diff: diffRoster({ desired, current, memory: EMPTY_MEMORY, rules: diffRules, now }),
        budget: seatBudget({ billing: b, now }),
        rules,
      });
      expect(plan.steps).toEqual([
        {
          kind: "untrack",
          id: 2,
          url: url(2),
          who: { line: 3, department: "Support" },
          reason: { why: "untracked-department", department: "Support" },
        },
      ]);
      expect(plan.deferred).toEqual([expect.objectContaining({ url: url(1), reason })]);
      expect(plan.findings.map((f) => f.kind)).toEqual(["billing-blocked"]);
    }
  });

  it("holds back a mass archive until approved, and archives only after enough missing files", () => {
    const current: ServicePerson[] = Array.from({ length: 10 }, (_, i) => ({
      id: i + 1,
      profileUrl: url(i),
      tracked: true,
      archived: false,
    }));
    const desired: DesiredPerson[] = current
      .slice(0, 7)
      .map((c, index) => ({ line: index + 2, index, profileUrl: c.profileUrl, tracked: true }));
    const seen = { ...EMPTY_MEMORY, seen: new Set(current.map((c) => c.profileUrl)) };
    const twoRuns = { ...diffRules, archiveAfterMissingExports: 2 };
    const m1 = advanceMemory(seen, { fingerprint: "a", desired, known: [] }, current, now);
    const d1 = diffRoster({ desired, current, memory: m1, rules: twoRuns, now });
    expect(d1.archive).toEqual([]);
    expect(d1.waiting).toBe(3);
    const m1again = advanceMemory(m1, { fingerprint: "a", desired, known: [] }, current, now);
    expect(diffRoster({ desired, current, memory: m1again, rules: twoRuns, now }).archive).toEqual([]);
    const m2 = advanceMemory(m1, { fingerprint: "b", desired, known: [] }, current, now);
    const d2 = diffRoster({ desired, current, memory: m2, rules: twoRuns, now });
    expect(d2.archive.map((a) => a.id)).toEqual([8, 9, 10]);
    const budget = seatBudget({ billing: billing({}), now });
    const guarded = planReconcile({ diff: d2, budget, rules: { ...rules, maxArchivePercent: 10 } });
    expect(guarded.steps).toEqual([]);
    expect(guarded.guardedArchives).toBe(3);
    expect(guarded.findings[0]?.message).toMatch(/--allow-mass-archive/);
    // Measured against the 10 people managed from the export: 3 of 10 is 30 %.
    expect(guarded.guard).toMatchObject({ managed: 10, percent: 30 });
    expect(guarded.guard?.people.map((p) => [p.url, p.reason])).toEqual(
      [7, 8, 9].map((n) => [url(n), { why: "left", missingExports: 2, since: now.toISOString() }]),
    );
    expect(guarded.findings[0]?.message).toMatch(/3 of the 10 people managed from the HRIS export \(30\.0 %\)/);
    expect(guarded.findings[0]?.message).toContain(`(no name) ${url(7)}`);
    const approved = planReconcile({
      diff: d2,
      budget,
      rules: { ...rules, maxArchivePercent: 10, allowMassArchive: true },
    });
    expect(approved.steps.map((s) => s.kind)).toEqual(["archive", "archive", "archive"]);
    expect(approved.seatDelta).toBe(-3);
    // Lifted, not silent: the plan says what the approval let through and the limits it passed.
    expect(approved.guardLifted).toEqual({
      archives: 3,
      managed: 10,
      percent: 30,
      maxArchiveCount: rules.maxArchiveCount,
      maxArchivePercent: 10,
    });
    expect(guarded.guardLifted).toBeUndefined();
  });

  it("measures the guard against the people managed from the export, not the whole service roster", () => {
    // 34 people came from the HRIS export; 300 more are on the service from other doors.
    const fromFile: ServicePerson[] = Array.from({ length: 34 }, (_, i) => ({
      id: i + 1,
      profileUrl: url(i),
      tracked: true,
      archived: false,
    }));
    const others: ServicePerson[] = Array.from({ length: 300 }, (_, i) => ({
      id: 1000 + i,
      profileUrl: `https://www.linkedin.com/in/other-${i}`,
      tracked: true,
      archived: false,
    }));
    const current = [...fromFile, ...others];
    const desired: DesiredPerson[] = fromFile
      .slice(14)
      .map((c, index) => ({ line: index + 2, index, profileUrl: c.profileUrl, tracked: true }));
    const memory = {
      ...EMPTY_MEMORY,
      seen: new Set(fromFile.map((c) => c.profileUrl)),
      missing: new Map(fromFile.slice(0, 14).map((c) => [c.profileUrl, 2] as const)),
    };
    const diff = diffRoster({ desired, current, memory, rules: { ...diffRules, archiveAfterMissingExports: 2 }, now });
    expect(diff.archive).toHaveLength(14);
    const plan = planReconcile({
      diff,
      budget: seatBudget({ billing: billing({}), now }),
      rules: { ...rules, maxArchivePercent: 10 },
    });
    expect(plan.guardedArchives).toBe(14);
    expect(plan.guard).toMatchObject({ managed: 34, percent: 41.2 });
  });

  it("leaves people from other doors alone unless archiveUnknown, and erases long-archived people when asked", () => {
    const current: ServicePerson[] = [
      { id: 1, profileUrl: url(1), tracked: true, archived: false },
      { id: 2, profileUrl: url(2), tracked: false, archived: true },
    ];
    const memory = {
      ...EMPTY_MEMORY,
      seen: new Set([url(2)]),
      missing: new Map([[url(1), 5]]),
      archivedAt: new Map([[url(2), "2026-01-01T00:00:00Z"]]),
    };
    const plain = diffRoster({ desired: [], current, memory, rules: diffRules, now });
    expect(plain.unknown).toBe(1);
    expect(plain.archive).toEqual([]);
    expect(plain.erase).toEqual([]);
    const strict = diffRoster({
      desired: [],
      current,
      memory,
      rules: { ...diffRules, archiveUnknown: true, eraseArchivedAfterDays: 90 },
      now,
    });
    expect(strict.archive.map((a) => a.id)).toEqual([1]);
    expect(strict.erase.map((e) => e.id)).toEqual([2]);
  });
});
