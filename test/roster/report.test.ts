import { describe, expect, it } from "vitest";
import type { Billing } from "../../src/api/schemas.js";
import type { ApplyResult } from "../../src/roster/apply-plan.js";
import { diffRoster, EMPTY_MEMORY } from "../../src/roster/diff-roster.js";
import { planReconcile, refusedPlan } from "../../src/roster/plan-reconcile.js";
import type { ReconcilePlan } from "../../src/roster/plan-types.js";
import type { RosterFile } from "../../src/roster/read-roster.js";
import { buildReport, type ReconcileOutcome, type ReconcileReport, reportedProblems } from "../../src/roster/report.js";
import { attentionOf, reportExitCode } from "../../src/roster/report-attention.js";
import { renderReportSlack, SLACK_LIST_LIMIT, slackCodeText } from "../../src/roster/report-slack.js";
import { renderReportText } from "../../src/roster/report-text.js";
import type { RosterPerson } from "../../src/roster/roster-rows.js";
import { DEFAULT_SEAT_USD, refusedBudget, seatBudget } from "../../src/roster/seat-budget.js";

const url = (n: number) => `https://www.linkedin.com/in/p-${n}`;
const startedAt = new Date("2026-11-23T02:00:00.000Z");
const finishedAt = new Date("2026-11-23T02:00:04.200Z");

function person(n: number, over: Partial<RosterPerson> = {}): RosterPerson {
  return {
    line: n + 1,
    index: n - 1,
    profileUrl: url(n),
    tracked: true,
    name: `Person ${n}`,
    employeeId: `E${n}`,
    department: "Eng",
    ...over,
  };
}

function rosterOf(people: RosterPerson[], problems: RosterFile["problems"] = []): RosterFile {
  return {
    file: "/data/hris.csv",
    format: "csv",
    fingerprint: "f1",
    modifiedAt: startedAt.toISOString(),
    notices: [],
    mapping: { preset: "generic", title: "generic column names (preset generic)", how: "named in roster.mapping" },
    rowCount: people.length + problems.length,
    people,
    byUrl: new Map(people.map((p) => [p.profileUrl, p])),
    excluded: [],
    exclusions: new Map(),
    problems,
  };
}

const roster = rosterOf(
  [1, 2, 3].map((n) => person(n)),
  [{ line: 5, reason: "invalid-url", message: "not a LinkedIn URL", email: "x@example.com" }],
);

const billing = (over: { perSeatUsd?: number; chargeFailed?: boolean; left?: number } = {}): Billing =>
  ({
    organizationId: 1,
    seats: { billable: 42 },
    plan: { status: "active", perSeatUsd: over.perSeatUsd ?? 5 },
    estimate: {},
    trial: { onFreeTrial: false },
    seatSettlement: { chargeFailed: over.chargeFailed ?? false, unbilledSeats: 3 },
    apiSeatAllowance: { perDay: 200, usedLast24h: 0, left: over.left ?? 200 },
  }) as Billing;
const rules = { priorityDepartments: [], maxArchivePercent: 10, maxArchiveCount: 50, allowMassArchive: false };
const diffRules = { archiveUnknown: false, archiveAfterMissingExports: 2 };

function planFor(file: RosterFile, b: Billing): { plan: ReconcilePlan; budget: ReturnType<typeof seatBudget> } {
  const diff = diffRoster({ desired: file, current: [], memory: EMPTY_MEMORY, rules: diffRules, now: startedAt });
  const budget = seatBudget({ billing: b, now: startedAt });
  return { plan: planReconcile({ diff, budget, rules }), budget };
}

const outcome = (over: Partial<ReconcileOutcome> & Pick<ReconcileOutcome, "plan" | "budget">): ReconcileOutcome => ({
  dryRun: false,
  file: roster.file,
  startedAt,
  finishedAt,
  roster,
  readRequests: 3,
  ...over,
});

const appliedNothing: ApplyResult = {
  counts: {
    addedTracked: 0,
    addedUntracked: 0,
    alreadyPresent: 0,
    revived: 0,
    tracked: 0,
    untracked: 0,
    archived: 0,
    erased: 0,
  },
  deferred: [],
  refusals: [],
  failures: [],
  writeRequests: 0,
  interrupted: false,
};

/** A dry run report of `n` joiners, with no row problems. */
function joiners(n: number): ReconcileReport {
  const file = rosterOf(Array.from({ length: n }, (_, i) => person(i + 1)));
  const { plan, budget } = planFor(file, billing({ left: 100_000 }));
  return buildReport(outcome({ roster: file, plan, budget, billing: billing(), dryRun: true }));
}

describe("the text report names every step", () => {
  it("lists each person with HRIS name, employee id, department, URL and reason, and collapses long lists", () => {
    const report = joiners(40);
    expect(report.steps).toHaveLength(40);
    const text = renderReportText(report);
    expect(text).toMatch(/^Reconcile plan \(dry run, nothing changed\): \/data\/hris\.csv/);
    expect(text).toContain("  add (40):");
    expect(text).toContain(`    Person 1 (E1, Eng) ${url(1)} - joiner, line 2`);
    expect(text).toContain(`    Person 25 (E25, Eng) ${url(25)} - joiner, line 26`);
    expect(text).not.toContain(url(26));
    expect(text).toContain("    ...and 15 more, see --json");
    expect(text).toMatch(/seat delta \+40 \(\+200\.00 USD\/month\)/);
    expect(text).toContain("routine: nothing needs a person");
  });

  it("names refusals (known or not), failures, deferrals and the rows to fix; says what needs attention", () => {
    const { plan, budget } = planFor(roster, billing());
    const applied: ApplyResult = {
      ...appliedNothing,
      counts: { ...appliedNothing.counts, addedTracked: 1 },
      refusals: [
        {
          change: "add",
          url: url(2),
          who: { name: "Person 2", employeeId: "E2" },
          reason: "profile_unavailable",
          known: false,
          message: "refused for a reason this version does not know (profile_unavailable): private",
        },
      ],
      failures: [
        {
          change: "add",
          url: url(3),
          who: { name: "Person 3" },
          message: "no answer (socket hang up)",
          unconfirmed: true,
        },
      ],
      writeRequests: 1,
    };
    const report = buildReport(outcome({ plan, budget, billing: billing(), applied }));
    const text = renderReportText(report);
    expect(text).toContain("refused by the service (1):");
    expect(text).toContain(`add Person 2 (E2) ${url(2)}: UNKNOWN REASON profile_unavailable:`);
    expect(text).toContain(`add Person 3 ${url(3)}: no answer (socket hang up)`);
    expect(text).toContain("unconfirmed 1 (answer lost)");
    expect(text).toContain("rows to fix (1):");
    expect(text).toContain("line 5: invalid-url: not a LinkedIn URL");
    expect(report.attention).toEqual([
      "1 row of the export need fixing",
      "1 person refused by the service",
      "1 change failed or unconfirmed",
    ]);
    expect(text).toContain(`NEEDS ATTENTION: ${report.attention.join("; ")}`);
    expect(report.exitCode).toBe(3);
  });

  it("says row problems of an export already reported once, without listing them again or asking for attention", () => {
    const { plan, budget } = planFor(roster, billing());
    const again = buildReport(
      outcome({
        plan,
        budget,
        billing: billing(),
        export: {
          fingerprint: "f1",
          modifiedAt: startedAt.toISOString(),
          firstReadAt: "2026-11-22T02:00:00.000Z",
          newExport: false,
          ageDays: 1,
          ageSeconds: 86_400,
          stale: false,
        },
      }),
    );
    expect(again.rows.reported).toBe(false);
    expect(again.rows.problems).toHaveLength(1);
    expect(again.attention).toEqual([]);
    expect(again.exitCode).toBe(0);
    const text = renderReportText(again);
    expect(text).toContain("same export as before, first read 2026-11-22");
    expect(text).toContain("rows to fix: 1, reported when this export was first read (see --json)");
  });
});

describe("the Slack ops post", () => {
  it("tells routine from needs-attention in its headline", () => {
    expect(renderReportSlack(joiners(3)).text).toBe(":white_check_mark: Roster reconcile (dry run), routine: 3 to add");
    const { plan, budget } = planFor(roster, billing());
    const attention = buildReport(outcome({ plan, budget, billing: billing(), applied: appliedNothing }));
    expect(renderReportSlack(attention).text).toBe(
      ":warning: Roster reconcile needs attention: 1 row of the export need fixing",
    );
    const charge = planFor(roster, billing({ chargeFailed: true }));
    const blocked = buildReport(outcome({ ...charge, billing: billing({ chargeFailed: true }) }));
    expect(renderReportSlack(blocked).text).toMatch(/rotating_light.*charge failed/);
  });

  it("names the people of each change, collapsed to a few with a pointer to --json", () => {
    const message = renderReportSlack(joiners(40));
    const body = JSON.stringify(message.blocks);
    expect(body).toContain(`Person 1 (E1, Eng) ${url(1)} - joiner, line 2`);
    expect(body).toContain(`Person ${SLACK_LIST_LIMIT} (E${SLACK_LIST_LIMIT}`);
    expect(body).not.toContain(url(SLACK_LIST_LIMIT + 1));
    expect(body).toContain(`...and ${40 - SLACK_LIST_LIMIT} more, see --json`);
    for (const block of message.blocks) {
      if (block.type === "section") expect(block.text.text.length).toBeLessThanOrEqual(3000);
    }
  });

  it("keeps HRIS text inert: escaped, verbatim, unable to close the code block", () => {
    const file = rosterOf(
      [person(1, { name: "<!channel> ```x``` & co" })],
      [{ line: 9, reason: "invalid-url", message: '"<http://evil.example|click>" is not a URL' }],
    );
    const { plan, budget } = planFor(file, billing());
    const message = renderReportSlack(buildReport(outcome({ roster: file, plan, budget, dryRun: true })));
    const sections = message.blocks.flatMap((b) => (b.type === "section" ? [b.text] : []));
    const lists = sections.slice(1);
    for (const text of lists) {
      expect(text.verbatim).toBe(true);
      const code = text.text.slice(text.text.indexOf("```") + 3, -3);
      expect(code).not.toMatch(/[<>`]/);
    }
    const body = lists.map((t) => t.text).join("\n");
    expect(body).toContain("&lt;!channel&gt; '''x''' &amp; co");
    expect(body).toContain('line 9: invalid-url: "&lt;http://evil.example|click&gt;" is not a URL');
    expect(slackCodeText("a<b>&`")).toBe("a&lt;b&gt;&amp;'");
  });

  it("cuts a list that would pass a section's 3,000 characters, and says how many more", () => {
    const long = "x".repeat(300);
    const report = joiners(12);
    const wide: ReconcileReport = {
      ...report,
      steps: report.steps.map((s) => ({ ...s, who: { ...s.who, name: long } })),
    };
    const add = renderReportSlack(wide).blocks[2];
    expect(add?.type).toBe("section");
    const text = add?.type === "section" ? add.text.text : "";
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(text).toMatch(/\.\.\.and \d+ more, see --json```$/);
  });
});

describe("attention and the exit code", () => {
  const clean = {
    findings: [],
    deferred: [],
    problems: [],
    reported: true,
    held: 0,
    refusals: 0,
    failures: 0,
    interrupted: false,
  };
  const deferred = (reason: "api-seat-allowance" | "max-seats" | "interrupted") => [
    { url: url(1), change: "add" as const, tracked: true, reason },
  ];

  it("exits 3 only when something needs a person", () => {
    expect(reportExitCode(clean)).toBe(0);
    expect(reportExitCode({ ...clean, problems: [{ line: 2, reason: "terminated", message: "" }] })).toBe(0);
    expect(reportExitCode({ ...clean, problems: [{ line: 2, reason: "missing-url", message: "" }] })).toBe(0);
    expect(reportExitCode({ ...clean, problems: [{ line: 2, reason: "duplicate", message: "" }] })).toBe(3);
    expect(reportExitCode({ ...clean, interrupted: true })).toBe(3);
    expect(reportExitCode({ ...clean, refusals: 1 })).toBe(3);
    expect(reportExitCode({ ...clean, failures: 1 })).toBe(3);
    expect(reportExitCode({ ...clean, held: 1 })).toBe(3);
  });

  it("takes a daily allowance's deferral as routine, and a cap the operator set as needing attention", () => {
    expect(attentionOf({ ...clean, deferred: deferred("api-seat-allowance") })).toEqual([]);
    expect(attentionOf({ ...clean, deferred: deferred("max-seats") })).toEqual([
      "1 change deferred until a cap or billing changes (max-seats 1)",
    ]);
  });

  it("counts broken rows and held archives once per export", () => {
    const duplicate = [{ line: 2, reason: "duplicate" as const, message: "" }];
    expect(reportExitCode({ ...clean, problems: duplicate, held: 1, reported: false })).toBe(0);
  });

  it("needs attention for a stale export, a guard and a blocked billing, not for a read-only key in a dry run", () => {
    const finding = (kind: "stale-export" | "mass-archive-guard" | "billing-blocked" | "read-only-key") => ({
      kind,
      severity: kind === "stale-export" || kind === "read-only-key" ? ("warning" as const) : ("error" as const),
      message: `${kind} message`,
    });
    expect(attentionOf({ ...clean, findings: [finding("stale-export")] })).toEqual(["stale-export message"]);
    expect(attentionOf({ ...clean, findings: [finding("mass-archive-guard")] })).toHaveLength(1);
    expect(attentionOf({ ...clean, findings: [finding("billing-blocked")] })).toHaveLength(1);
    expect(attentionOf({ ...clean, findings: [finding("read-only-key")] })).toEqual([]);
  });
});

describe("buildReport: one report for every outcome", () => {
  it("lists every row problem without the work email kept to match them", () => {
    const problems = [
      { line: 4, reason: "missing-url" as const, message: "no profile URL", employeeId: "E1", email: "a@b.c" },
    ];
    expect(reportedProblems(problems)).toEqual([
      { line: 4, reason: "missing-url", message: "no profile URL", employeeId: "E1" },
    ]);
  });

  it("a plan blocked by a failed charge: the price and seat counts /billing gave, the requests made", () => {
    const b = billing({ perSeatUsd: 7.5, chargeFailed: true });
    const { plan, budget } = planFor(roster, b);
    const report = buildReport(outcome({ plan, budget, billing: b, applied: appliedNothing, readRequests: 4 }));
    expect(report.billing).toEqual({
      state: "charge-failed",
      planStatus: "active",
      perSeatUsd: 7.5,
      billableSeats: 42,
      unbilledSeats: 3,
    });
    expect(report.requests).toBe(4);
    expect(report.planned).toEqual({ add: 0, revive: 0, track: 0, untrack: 0, archive: 0, erase: 0 });
    expect(report.deferred).toMatchObject({ total: 3, byReason: { "charge-failed": 3 } });
    expect(report.deferred.items.map((d) => d.who?.name)).toEqual(["Person 1", "Person 2", "Person 3"]);
    expect(report.findings.map((f) => f.kind)).toEqual(["billing-blocked"]);
    expect(report.exitCode).toBe(3);
    expect(report.durationMs).toBe(4200);
    expect(report.rows).toEqual({
      read: 4,
      inScope: 3,
      byReason: { "invalid-url": 1 },
      problems: [{ line: 5, reason: "invalid-url", message: "not a LinkedIn URL" }],
      reported: true,
    });
  });

  it("a run the service refused (402 on the reads): the list price without /billing, every read counted", () => {
    const report = buildReport(
      outcome({ plan: refusedPlan("SUBSCRIPTION_INACTIVE"), budget: refusedBudget("SUBSCRIPTION_INACTIVE") }),
    );
    expect(report.billing).toEqual({ state: "inactive", planStatus: undefined, perSeatUsd: DEFAULT_SEAT_USD });
    expect(report.requests).toBe(3);
    expect(report.applied).toBeUndefined();
    expect(report.findings.map((f) => f.kind)).toEqual(["billing-blocked"]);
    expect(report.exitCode).toBe(3);
    expect(buildReport(outcome({ plan: refusedPlan(undefined), budget: refusedBudget(undefined) })).billing.state).toBe(
      "charge-failed",
    );
  });

  it("a dry run and an applied run of the same plan differ only by what was applied", () => {
    const b = billing();
    const { plan, budget } = planFor(roster, b);
    const dry = buildReport(outcome({ plan, budget, billing: b, dryRun: true }));
    expect(dry).toMatchObject({ dryRun: true, planned: { add: 3 }, seatDelta: 3, monthlyCostDeltaUsd: 15 });
    expect(dry.steps.map((s) => [s.change, s.url, s.why])).toEqual([1, 2, 3].map((n) => ["add", url(n), "joiner"]));
    expect(dry.applied).toBeUndefined();
    const applied = { ...appliedNothing, counts: { ...appliedNothing.counts, addedTracked: 3 }, writeRequests: 1 };
    const done = buildReport(outcome({ plan, budget, billing: b, applied }));
    expect(done).toEqual({
      ...dry,
      dryRun: false,
      applied: { ...applied.counts, unconfirmed: 0 },
      requests: 4,
      writeRequests: 1,
    });
  });

  it("a plan held by the deletion guard: nobody archived, who would have been, over the people managed", () => {
    const current = [1, 2, 3].map((n) => ({ id: n, profileUrl: url(n), tracked: true, archived: false }));
    const memory = {
      ...EMPTY_MEMORY,
      seen: new Set(current.map((c) => c.profileUrl)),
      missing: new Map([
        [url(2), 2],
        [url(3), 2],
      ]),
      identities: new Map([[url(2), { name: "Person 2", employeeId: "E2", department: "Eng" }]]),
    };
    const diff = diffRoster({ desired: roster.people.slice(0, 1), current, memory, rules: diffRules, now: startedAt });
    const budget = seatBudget({ billing: billing(), now: startedAt });
    const plan = planReconcile({ diff, budget, rules });
    const report = buildReport(outcome({ plan, budget, billing: billing(), applied: appliedNothing }));
    expect(report).toMatchObject({ guardedArchives: 2, planned: { archive: 0 }, steps: [], exitCode: 3 });
    expect(report.guard).toMatchObject({ managed: 3, percent: 66.7 });
    expect(report.guard?.people.map((p) => p.why)).toEqual([
      "left (missing from 2 exports)",
      "left (missing from 2 exports)",
    ]);
    expect(report.findings.map((f) => f.kind)).toEqual(["mass-archive-guard"]);
    expect(renderReportText(report)).toContain(`    Person 2 (E2, Eng) ${url(2)} - left (missing from 2 exports)`);
    expect(JSON.stringify(renderReportSlack(report).blocks)).toContain(
      "Held by the mass-archive guard (2 of 3 managed",
    );
  });

  it("a run stopped part-way: the plan's and the apply's deferrals together, failures, Retry-After, the resumed run", () => {
    const { plan, budget } = planFor(roster, billing());
    const applied: ApplyResult = {
      ...appliedNothing,
      deferred: [{ url: url(3), change: "add", tracked: true, reason: "interrupted" }],
      failures: [{ change: "add", url: url(2), who: {}, message: "boom", unconfirmed: false }],
      writeRequests: 2,
      interrupted: true,
      retryAfterSeconds: 60,
    };
    const report = buildReport(outcome({ plan, budget, billing: billing(), applied, resumedRun: "run-1" }));
    expect(report).toMatchObject({
      interrupted: true,
      resumedRun: "run-1",
      retryAfterSeconds: 60,
      requests: 5,
      writeRequests: 2,
      deferred: { total: 1, byReason: { interrupted: 1 } },
      failures: [{ change: "add", url: url(2), message: "boom" }],
      exitCode: 3,
    });
  });
});
