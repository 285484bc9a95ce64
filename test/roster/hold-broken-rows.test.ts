import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Billing } from "../../src/api/schemas.js";
import { configSchema } from "../../src/config/schema.js";
import {
  advanceMemory,
  type DesiredPerson,
  diffRoster,
  EMPTY_MEMORY,
  type RosterMemory,
  type ServicePerson,
} from "../../src/roster/diff-roster.js";
import { HELD_FINDINGS_LIMIT } from "../../src/roster/hold-broken-rows.js";
import { type PlanRules, planReconcile } from "../../src/roster/plan-reconcile.js";
import { readRoster, rosterReadOptions } from "../../src/roster/read-roster.js";
import type { RowProblem } from "../../src/roster/roster-rows.js";
import { seatBudget } from "../../src/roster/seat-budget.js";
import { parseStoredMemory } from "../../src/roster/stored-roster-memory.js";
import { rosterDir } from "../helpers/roster-files.js";

const now = new Date("2026-11-23T10:00:00Z");
const url = (n: number) => `https://www.linkedin.com/in/p-${n}`;
const rules = { archiveUnknown: false, archiveAfterMissingExports: 1 };
const planRules: PlanRules = {
  priorityDepartments: [],
  maxArchivePercent: 100,
  maxArchiveCount: 10_000,
  allowMassArchive: false,
};
const budget = seatBudget({
  billing: {
    organizationId: 1,
    seats: {},
    plan: { status: "active", perSeatUsd: 5 },
    estimate: {},
    trial: { onFreeTrial: false, seatsLeft: 0, seatLimit: 100 },
    seatSettlement: { chargeFailed: false },
    apiSeatAllowance: { perDay: 200, usedLast24h: 0, left: 200 },
  } as Billing,
  now,
});

function person(n: number, who: { employeeId?: string; email?: string } = {}): DesiredPerson {
  return { line: n + 2, index: n, profileUrl: url(n), tracked: true, ...who };
}
const live = (n: number): ServicePerson => ({ id: n + 1, profileUrl: url(n), tracked: true, archived: false });
const problem = (line: number, reason: RowProblem["reason"], who: Omit<RowProblem, "line" | "reason" | "message">) => ({
  line,
  reason,
  message: "broken",
  ...who,
});

let exports = 0;
/** The memory after each of `files` (new exports, one fingerprint each), starting from `memory`. */
function afterFiles(memory: RosterMemory, files: DesiredPerson[][], current: ServicePerson[]): RosterMemory {
  return files.reduce((m, desired) => {
    exports += 1;
    return advanceMemory(m, { fingerprint: `export-${exports}`, desired, known: [] }, current, now);
  }, memory);
}

// p-0 E0, p-1 E1 (email P1@Example.com), p-2 E2, p-3 (no identity), p-4 E4: all on the service.
const staff = [
  person(0, { employeeId: "E0" }),
  person(1, { employeeId: "E1", email: "P1@Example.com" }),
  person(2, { employeeId: "E2" }),
  person(3),
  person(4, { employeeId: "E4" }),
];
const current = staff.map((_, n) => live(n));

describe("reconcile memory: row identities", () => {
  it("remembers employee id and lower-cased email per profile URL, for desired and known rows, once per new file", () => {
    const known = [{ profileUrl: url(9), employeeId: "E9", email: "Left@Example.com" }];
    const m = advanceMemory(EMPTY_MEMORY, { fingerprint: "a", desired: staff, known }, current, now);
    expect(Object.fromEntries(m.identities)).toEqual({
      [url(0)]: { employeeId: "E0" },
      [url(1)]: { employeeId: "E1", email: "p1@example.com" },
      [url(2)]: { employeeId: "E2" },
      [url(4)]: { employeeId: "E4" },
      [url(9)]: { employeeId: "E9", email: "left@example.com" },
    });
    // The same file again changes nothing, even with other identities in it.
    const rerun = advanceMemory(
      m,
      { fingerprint: "a", desired: [person(0, { employeeId: "X" })], known: [] },
      current,
      now,
    );
    expect(rerun.identities).toEqual(m.identities);
  });

  it("keeps a remembered field a new row leaves empty, and forgets URLs neither in the file nor on the service", () => {
    const m1 = afterFiles(EMPTY_MEMORY, [[...staff, person(7, { employeeId: "E7" })]], current);
    expect(m1.identities.get(url(7))).toEqual({ employeeId: "E7" });
    const m2 = afterFiles(m1, [[person(1, { email: "new@example.com" }), person(0)]], current);
    expect(m2.identities.get(url(1))).toEqual({ employeeId: "E1", email: "new@example.com" });
    expect(m2.identities.get(url(0))).toEqual({ employeeId: "E0" });
    // p-7 was never added to the service and is not in this file: nothing can archive them.
    expect(m2.identities.has(url(7))).toBe(false);
    expect(m2.identities.has(url(4))).toBe(true);
  });
});

describe("diffRoster: archives held for broken rows", () => {
  const established = afterFiles(EMPTY_MEMORY, [staff], current);
  // The next file: p-0..p-4 all missing from the usable rows.
  const next = advanceMemory(established, { fingerprint: "next", desired: [], known: [] }, current, now);

  it("holds the candidates whose employee id or email is on a broken row; the others are archived", () => {
    const brokenRows = [
      problem(5, "invalid-url", { employeeId: "E0" }),
      problem(9, "missing-url", { email: "p1@example.com" }),
      problem(11, "formula-cell", { employeeId: "E1" }),
      // Expected exclusions are leavers, not broken rows.
      problem(12, "terminated", { employeeId: "E2" }),
      problem(13, "out-of-scope", { employeeId: "E4" }),
      // Someone the service never had.
      problem(14, "opaque-id-url", { employeeId: "E99" }),
    ];
    const diff = diffRoster({ desired: [], brokenRows, current, memory: next, rules, now });
    expect(diff.archive.map((a) => a.profileUrl)).toEqual([url(2), url(3), url(4)]);
    expect(diff.held).toEqual([
      {
        id: 1,
        profileUrl: url(0),
        tracked: true,
        missingExports: 1,
        who: { employeeId: "E0" },
        cause: "left",
        since: now.toISOString(),
        rows: [{ line: 5, reason: "invalid-url", by: "employeeId", value: "E0" }],
      },
      {
        id: 2,
        profileUrl: url(1),
        tracked: true,
        missingExports: 1,
        who: { employeeId: "E1" },
        cause: "left",
        since: now.toISOString(),
        rows: [
          { line: 9, reason: "missing-url", by: "email", value: "p1@example.com" },
          { line: 11, reason: "formula-cell", by: "employeeId", value: "E1" },
        ],
      },
    ]);
    const plan = planReconcile({ diff, budget, rules: planRules });
    expect(plan.steps.map((s) => (s.kind === "archive" ? s.url : s.kind))).toEqual([url(2), url(3), url(4)]);
    expect(plan.heldForBrokenRows).toBe(2);
    expect(plan.seatDelta).toBe(-3);
    expect(plan.findings).toEqual([
      {
        kind: "held-for-broken-row",
        severity: "warning",
        message: `line 5: the row of employee "E0" has an invalid profile URL; employee "E0" is on the roster as ${url(0)} and would be archived (missing from 1 export); fix the row, or remove it to archive them`,
      },
      {
        kind: "held-for-broken-row",
        severity: "warning",
        message:
          `line 9: the row of "p1@example.com" has no profile URL; line 11: the row of employee "E1" has a spreadsheet formula; ` +
          `"p1@example.com" is on the roster as ${url(1)} and would be archived (missing from 1 export); fix the rows, or remove them to archive them`,
      },
    ]);
  });

  it("keeps a held person missing: a fixed row brings them back, a removed row archives them", () => {
    const brokenRows = [problem(5, "invalid-url", { employeeId: "E0" })];
    const others = staff.slice(1);
    const m1 = advanceMemory(established, { fingerprint: "broken", desired: others, known: [] }, current, now);
    const held = diffRoster({ desired: others, brokenRows, current, memory: m1, rules, now });
    expect(held.held.map((h) => h.profileUrl)).toEqual([url(0)]);
    expect(held.archive).toEqual([]);
    expect(m1.missing.get(url(0))).toBe(1);

    const fixed = advanceMemory(m1, { fingerprint: "fixed", desired: staff, known: [] }, current, now);
    const nothing = diffRoster({ desired: staff, current, memory: fixed, rules, now });
    expect([nothing.archive, nothing.held, nothing.add]).toEqual([[], [], []]);
    expect(fixed.missing.size).toBe(0);

    const removed = advanceMemory(m1, { fingerprint: "removed", desired: others, known: [] }, current, now);
    const archived = diffRoster({ desired: others, brokenRows: [], current, memory: removed, rules, now });
    expect(archived.archive.map((a) => a.profileUrl)).toEqual([url(0)]);
    expect(archived.held).toEqual([]);
  });

  it("holds only people due for archiving: one still waiting for more missing files is not counted", () => {
    const brokenRows = [problem(5, "invalid-url", { employeeId: "E0" })];
    const diff = diffRoster({
      desired: staff.slice(1),
      brokenRows,
      current,
      memory: next,
      rules: { ...rules, archiveAfterMissingExports: 2 },
      now,
    });
    expect(diff.held).toEqual([]);
    expect(diff.waiting).toBe(1);
  });

  it("ignores ids and emails remembered for several people (placeholders such as N/A)", () => {
    const shared = [
      person(0, { employeeId: "N/A", email: "p0@example.com" }),
      person(1, { employeeId: "N/A" }),
      person(2, { employeeId: "E2", email: "hr@example.com" }),
      person(3, { employeeId: "E3", email: "hr@example.com" }),
    ];
    const service = shared.map((_, n) => live(n));
    const m = afterFiles(EMPTY_MEMORY, [shared, []], service);
    const brokenRows = [
      problem(5, "missing-url", { employeeId: "N/A" }),
      problem(6, "missing-url", { employeeId: "N/A", email: "p0@example.com" }),
      problem(7, "missing-url", { email: "hr@example.com" }),
    ];
    const diff = diffRoster({ desired: [], brokenRows, current: service, memory: m, rules, now });
    expect(diff.held.map((h) => [h.profileUrl, h.rows.map((r) => r.line)])).toEqual([[url(0), [6]]]);
    expect(diff.archive.map((a) => a.profileUrl)).toEqual([url(1), url(2), url(3)]);
  });

  it("works from a memory that records no identities: nobody is held until a file records them", () => {
    const stored = parseStoredMemory(
      JSON.parse(
        JSON.stringify({
          version: 2,
          lastFingerprint: "x",
          seen: [url(0)],
          missing: [[url(0), 3]],
          archivedAt: [],
          identities: { profileUrl: [], employeeId: [], email: [] },
        }),
      ),
    );
    if (!stored.ok) throw new Error(stored.problem);
    const old = stored.memory;
    const brokenRows = [problem(5, "invalid-url", { employeeId: "E0" })];
    const service = [live(0)];
    const before = diffRoster({ desired: [], brokenRows, current: service, memory: old, rules, now });
    expect(before.archive.map((a) => a.profileUrl)).toEqual([url(0)]);
    expect(before.held).toEqual([]);
    const recorded = afterFiles(old, [[person(0, { employeeId: "E0" })]], service);
    expect(Object.fromEntries(recorded.identities)).toEqual({ [url(0)]: { employeeId: "E0" } });
    expect(recorded.missing.size).toBe(0);
    const broken = afterFiles(recorded, [[]], service);
    const after = diffRoster({ desired: [], brokenRows, current: service, memory: broken, rules, now });
    expect(after.held.map((h) => h.profileUrl)).toEqual([url(0)]);
    expect(after.archive).toEqual([]);
  });

  it("sums up past the finding limit and keeps file values inert", () => {
    const count = HELD_FINDINGS_LIMIT + 3;
    const many = Array.from({ length: count }, (_, n) => person(n, { employeeId: `E\u202e${n}` }));
    const service = many.map((_, n) => live(n));
    const m = afterFiles(EMPTY_MEMORY, [many, []], service);
    const brokenRows = many.map((p, n) => problem(100 + n, "invalid-url", { employeeId: p.employeeId ?? "" }));
    const diff = diffRoster({ desired: [], brokenRows, current: service, memory: m, rules, now });
    const plan = planReconcile({ diff, budget, rules: { ...planRules, maxArchiveCount: 0 } });
    expect(plan.heldForBrokenRows).toBe(count);
    expect(plan.findings.map((f) => f.kind)).toEqual(Array(HELD_FINDINGS_LIMIT + 1).fill("held-for-broken-row"));
    expect(plan.findings[0]?.message).toMatch(/^line 100: the row of employee "E\\u202e0" has an invalid profile URL/);
    expect(plan.findings.at(-1)?.message).toBe(
      "3 more people not archived because their rows in this file are broken: see the row problems",
    );
    // Held people are not archives: the mass-archive guard has nothing to count.
    expect(plan.guardedArchives).toBe(0);
  });
});

describe("row problems carry the row identity", () => {
  let files: Awaited<ReturnType<typeof rosterDir>>;
  beforeAll(async () => {
    files = await rosterDir();
  });
  afterAll(async () => {
    await files.cleanup();
  });

  it("with the work email lower-cased, and a formula email dropped", async () => {
    const file = await files.write(
      "identity.csv",
      [
        "LinkedIn URL,Employee ID,Work Email",
        "https://www.linkedin.com/in/ok-1,E1,ok@example.com",
        "https://evil.example/in/x,E2, Jane.Doe@Example.COM ",
        ",E3,",
        'not a url,,=HYPERLINK("x")',
        "",
      ].join("\n"),
    );
    const roster = await readRoster(rosterReadOptions(configSchema.parse({}).roster, file, now));
    expect(roster.problems.map(({ message: _m, ...rest }) => rest)).toEqual([
      { line: 3, reason: "invalid-url", employeeId: "E2", email: "jane.doe@example.com" },
      { line: 4, reason: "missing-url", employeeId: "E3" },
      { line: 5, reason: "formula-cell" },
      { line: 5, reason: "invalid-url" },
    ]);
  });
});
