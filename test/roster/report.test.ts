import { describe, expect, it } from "vitest";
import type { Billing } from "../../src/api/schemas.js";
import type { ApplyResult } from "../../src/roster/apply-plan.js";
import { diffRoster, EMPTY_MEMORY } from "../../src/roster/diff-roster.js";
import { planReconcile, refusedPlan } from "../../src/roster/plan-reconcile.js";
import type { ReconcilePlan } from "../../src/roster/plan-types.js";
import type { RosterFile } from "../../src/roster/read-roster.js";
import {
  buildReport,
  type ReconcileOutcome,
  type ReconcileReport,
  renderReportSlack,
  renderReportText,
  reportExitCode,
  reportedProblems,
  slackCodeText,
} from "../../src/roster/report.js";
import { DEFAULT_SEAT_USD, refusedBudget, seatBudget } from "../../src/roster/seat-budget.js";

const base: ReconcileReport = {
  dryRun: false,
  file: "/data/hris.csv",
  startedAt: "2026-11-23T02:00:00.000Z",
  durationMs: 4200,
  rows: {
    read: 12,
    inScope: 10,
    byReason: { "invalid-url": 1, terminated: 1 },
    problems: [{ line: 7, reason: "invalid-url", message: "not a LinkedIn URL" }],
  },
  notices: ["the file is semicolon-separated, not comma-separated; read it as such"],
  billing: { state: "paying", planStatus: "active", perSeatUsd: 5 },
  planned: { add: 9, revive: 1, track: 0, untrack: 0, archive: 2, erase: 0 },
  seatDelta: 8,
  monthlyCostDeltaUsd: 40,
  guardedArchives: 0,
  heldForBrokenRows: 0,
  waitingToArchive: 3,
  unknownLeftAlone: 4,
  applied: {
    addedTracked: 7,
    addedUntracked: 0,
    alreadyPresent: 0,
    revived: 1,
    tracked: 0,
    untracked: 0,
    archived: 2,
    erased: 0,
  },
  deferred: { total: 2, byReason: { "api-seat-allowance": 2 }, items: [] },
  findings: [],
  failures: [],
  serviceRowErrors: [],
  requests: 9,
  writeRequests: 4,
  interrupted: false,
  retryAfterSeconds: 3600,
  exitCode: 3,
};

describe("report", () => {
  it("renders counts, deltas, deferrals with their reason, and row errors with line numbers", () => {
    const text = renderReportText(base);
    expect(text).toMatch(/^Reconcile report: \/data\/hris\.csv/);
    expect(text).toMatch(/add\s+9\s+7/);
    expect(text).toMatch(/seat delta \+8 \(\+40\.00 USD\/month\)/);
    expect(text).toMatch(/deferred to a later run: 2 \(api-seat-allowance 2\)/);
    expect(text).toMatch(/line 7: invalid-url/);
    expect(text).toMatch(/semicolon/);
    expect(text).toMatch(/9 requests \(4 writes\) in 4\.2 s/);
    const { applied: _applied, ...planOnly } = base;
    expect(renderReportText({ ...planOnly, dryRun: true })).toMatch(/dry run, nothing changed/);
  });

  it("makes a loud Slack headline for a failed charge", () => {
    const message = renderReportSlack({
      ...base,
      findings: [{ kind: "billing-blocked", severity: "error", message: "a seat charge failed: no one can be added" }],
    });
    expect(message.text).toMatch(/rotating_light.*charge failed/);
    expect(JSON.stringify(message.blocks)).toContain("seat delta");
  });

  it("exits 3 only when something needs attention", () => {
    const clean = {
      deferred: 0,
      held: 0,
      findings: [],
      problems: [],
      failures: 0,
      serviceRowErrors: 0,
      interrupted: false,
    };
    expect(reportExitCode(clean)).toBe(0);
    expect(reportExitCode({ ...clean, problems: [{ line: 2, reason: "terminated", message: "" }] })).toBe(0);
    expect(reportExitCode({ ...clean, problems: [{ line: 2, reason: "duplicate", message: "" }] })).toBe(3);
    expect(reportExitCode({ ...clean, deferred: 1 })).toBe(3);
    expect(reportExitCode({ ...clean, interrupted: true })).toBe(3);
    // A held archive needs a fix even when its row only lacks a URL (an expected reason on its own).
    const noUrl = [{ line: 2, reason: "missing-url" as const, message: "" }];
    expect(reportExitCode({ ...clean, problems: noUrl })).toBe(0);
    expect(reportExitCode({ ...clean, problems: noUrl, held: 1 })).toBe(3);
  });

  it("shows archives held for broken rows, with the finding, in the text and Slack reports", () => {
    const message =
      'line 17: the row of employee "E000123" has an invalid profile URL; employee "E000123" is on the roster as ' +
      "https://www.linkedin.com/in/jane-doe; fix the row, or remove it to archive them";
    const held: ReconcileReport = {
      ...base,
      heldForBrokenRows: 1,
      findings: [{ kind: "held-for-broken-row", severity: "warning", message }],
    };
    const text = renderReportText(held);
    expect(text).toContain("archives held for broken rows: 1 (still in the file; see the warnings)");
    expect(text).toContain(`WARNING: ${message}`);
    expect(renderReportText(base)).not.toMatch(/held for broken rows/);
    const slack = renderReportSlack(held);
    expect(slack.text).toMatch(/:warning:/);
    const body = JSON.stringify(slack.blocks);
    expect(body).toContain("archives held for broken rows: 1");
    expect(body).toContain("line 17: the row of employee");
  });

  it("lists row problems without the work email kept to match them", () => {
    const problems = [
      { line: 4, reason: "missing-url" as const, message: "no profile URL", employeeId: "E1", email: "a@b.c" },
    ];
    expect(reportedProblems(problems)).toEqual([
      { line: 4, reason: "missing-url", message: "no profile URL", employeeId: "E1" },
    ]);
  });
  it("keeps HRIS text inert in Slack: escaped, verbatim, unable to close the code block", () => {
    const message = renderReportSlack({
      ...base,
      rows: {
        ...base.rows,
        problems: [
          {
            line: 9,
            reason: "invalid-url",
            message: '"<http://evil.example|click> <!channel> ```x``` & co" is not a URL',
          },
        ],
      },
    });
    const body = (message.blocks[1] as { text: { text: string; verbatim?: boolean } }).text;
    expect(body.verbatim).toBe(true);
    expect(body.text).toContain(
      "line 9: invalid-url: \"&lt;http://evil.example|click&gt; &lt;!channel&gt; '''x''' &amp; co\" is not a URL",
    );
    expect(body.text.slice(3, -3)).not.toMatch(/[<>`]/);
    expect(slackCodeText("a<b>&`")).toBe("a&lt;b&gt;&amp;'");
  });

  it("cuts a long Slack body under the section limit without breaking an escape", () => {
    const reportWith = (pad: number): ReconcileReport => ({
      ...base,
      rows: {
        ...base.rows,
        problems: Array.from({ length: 50 }, (_, i) => ({
          line: i + 2,
          reason: "invalid-url" as const,
          message: `"${"x".repeat(i === 0 ? pad : 0)}${"<".repeat(60)}" is not a URL`,
        })),
      },
    });
    // A report whose plain cut at 2,900 characters would land inside an "&lt;".
    const pad = [0, 1, 2, 3].find((p) => /&l?t?$/.test(slackCodeText(renderReportText(reportWith(p))).slice(0, 2900)));
    expect(pad).toBeDefined();
    const report = reportWith(pad ?? 0);
    const message = renderReportSlack(report);
    const text = (message.blocks[1] as { text: { text: string } }).text.text;
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(text.slice(3, -3)).toMatch(/&lt;$/);
  });
});

describe("buildReport: one report for every outcome", () => {
  const url = (n: number) => `https://www.linkedin.com/in/p-${n}`;
  const startedAt = new Date("2026-11-23T02:00:00.000Z");
  const finishedAt = new Date("2026-11-23T02:00:04.200Z");
  const roster: RosterFile = {
    file: "/data/hris.csv",
    format: "csv",
    fingerprint: "f1",
    notices: [],
    rowCount: 4,
    people: [1, 2, 3].map((n) => ({ line: n + 1, index: n - 1, profileUrl: url(n), tracked: true })),
    excluded: [],
    problems: [{ line: 5, reason: "invalid-url", message: "not a LinkedIn URL", email: "x@example.com" }],
  };
  const billing = (over: { perSeatUsd: number; chargeFailed: boolean }): Billing =>
    ({
      organizationId: 1,
      seats: { billable: 42 },
      plan: { status: "active", perSeatUsd: over.perSeatUsd },
      estimate: {},
      trial: { onFreeTrial: false },
      seatSettlement: { chargeFailed: over.chargeFailed, unbilledSeats: 3 },
      apiSeatAllowance: { perDay: 200, usedLast24h: 0, left: 200 },
    }) as Billing;
  const rules = { priorityDepartments: [], maxArchivePercent: 10, maxArchiveCount: 50, allowMassArchive: false };
  const planFor = (b: Billing): { plan: ReconcilePlan; budget: ReturnType<typeof seatBudget> } => {
    const diff = diffRoster({
      desired: roster.people,
      current: [],
      memory: EMPTY_MEMORY,
      rules: { archiveUnknown: false, archiveAfterMissingRuns: 2 },
      now: startedAt,
    });
    const budget = seatBudget({ billing: b, now: startedAt });
    return { plan: planReconcile({ diff, budget, rules }), budget };
  };
  const outcome = (over: Partial<ReconcileOutcome> & Pick<ReconcileOutcome, "plan" | "budget">): ReconcileOutcome => ({
    dryRun: false,
    file: roster.file,
    startedAt,
    finishedAt,
    roster,
    readRequests: 2,
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
    rowErrors: [],
    failures: [],
    writeRequests: 0,
    interrupted: false,
  };

  it("a plan blocked by a failed charge: the price and seat counts /billing gave, the requests made", () => {
    const b = billing({ perSeatUsd: 7.5, chargeFailed: true });
    const { plan, budget } = planFor(b);
    const report = buildReport(outcome({ plan, budget, billing: b, applied: appliedNothing, readRequests: 4 }));
    expect(report.billing).toEqual({
      state: "charge-failed",
      planStatus: "active",
      perSeatUsd: 7.5,
      billableSeats: 42,
      unbilledSeats: 3,
    });
    expect(report.requests).toBe(4);
    expect(report.writeRequests).toBe(0);
    expect(report.planned).toEqual({ add: 0, revive: 0, track: 0, untrack: 0, archive: 0, erase: 0 });
    expect(report.deferred).toMatchObject({ total: 3, byReason: { "charge-failed": 3 } });
    expect(report.findings.map((f) => f.kind)).toEqual(["billing-blocked"]);
    expect(report.exitCode).toBe(3);
    expect(report.durationMs).toBe(4200);
    // The work email of a row problem stays out of the report.
    expect(report.rows).toEqual({
      read: 4,
      inScope: 3,
      byReason: { "invalid-url": 1 },
      problems: [{ line: 5, reason: "invalid-url", message: "not a LinkedIn URL" }],
    });
  });

  it("a run the service refused (402 on the reads): the list price without /billing, every read counted", () => {
    const report = buildReport(
      outcome({
        plan: refusedPlan("SUBSCRIPTION_INACTIVE"),
        budget: refusedBudget("SUBSCRIPTION_INACTIVE"),
        readRequests: 3,
      }),
    );
    expect(report.billing).toEqual({ state: "inactive", planStatus: undefined, perSeatUsd: DEFAULT_SEAT_USD });
    expect(report.requests).toBe(3);
    expect(report.applied).toBeUndefined();
    expect(report.findings).toEqual([
      {
        kind: "billing-blocked",
        severity: "error",
        message:
          "the service refused access (SUBSCRIPTION_INACTIVE): no active subscription or trial; nothing was changed",
      },
    ]);
    expect(report.exitCode).toBe(3);
    expect(buildReport(outcome({ plan: refusedPlan(undefined), budget: refusedBudget(undefined) })).billing.state).toBe(
      "charge-failed",
    );
  });

  it("a dry run and an applied run of the same plan differ only by what was applied", () => {
    const b = billing({ perSeatUsd: 5, chargeFailed: false });
    const { plan, budget } = planFor(b);
    const dry = buildReport(outcome({ plan, budget, billing: b, dryRun: true }));
    expect(dry).toMatchObject({ dryRun: true, planned: { add: 3 }, seatDelta: 3, monthlyCostDeltaUsd: 15 });
    expect(dry.applied).toBeUndefined();
    expect(dry.requests).toBe(2);
    expect(dry.exitCode).toBe(3); // the invalid-url row
    const applied = { ...appliedNothing, counts: { ...appliedNothing.counts, addedTracked: 3 }, writeRequests: 1 };
    const done = buildReport(outcome({ plan, budget, billing: b, applied }));
    expect(done).toEqual({ ...dry, dryRun: false, applied: applied.counts, requests: 3, writeRequests: 1 });
  });

  it("a plan held by the deletion guard: nobody archived, the guard's finding", () => {
    const b = billing({ perSeatUsd: 5, chargeFailed: false });
    const current = [1, 2, 3].map((n) => ({ id: n, profileUrl: url(n), tracked: true, archived: false }));
    const memory = {
      ...EMPTY_MEMORY,
      seen: new Set(current.map((c) => c.profileUrl)),
      missing: new Map([
        [url(2), 2],
        [url(3), 2],
      ]),
    };
    const diff = diffRoster({
      desired: roster.people.slice(0, 1),
      current,
      memory,
      rules: { archiveUnknown: false, archiveAfterMissingRuns: 2 },
      now: startedAt,
    });
    const budget = seatBudget({ billing: b, now: startedAt });
    const plan = planReconcile({ diff, budget, rules });
    const report = buildReport(outcome({ plan, budget, billing: b, applied: appliedNothing }));
    expect(report).toMatchObject({ guardedArchives: 2, planned: { archive: 0 }, removals: [], exitCode: 3 });
    expect(report.findings.map((f) => f.kind)).toEqual(["mass-archive-guard"]);
  });

  it("a run stopped part-way: the plan's and the apply's deferrals together, failures, Retry-After, the resumed run", () => {
    const b = billing({ perSeatUsd: 5, chargeFailed: false });
    const { plan, budget } = planFor(b);
    const applied: ApplyResult = {
      ...appliedNothing,
      deferred: [{ url: url(3), change: "add", tracked: true, reason: "interrupted" }],
      failures: [{ step: "add", url: url(2), message: "boom" }],
      writeRequests: 2,
      interrupted: true,
      retryAfterSeconds: 60,
    };
    const report = buildReport(outcome({ plan, budget, billing: b, applied, resumedRun: "run-1" }));
    expect(report).toMatchObject({
      interrupted: true,
      resumedRun: "run-1",
      retryAfterSeconds: 60,
      requests: 4,
      writeRequests: 2,
      deferred: { total: 1, byReason: { interrupted: 1 } },
      failures: [{ step: "add", url: url(2), message: "boom" }],
      exitCode: 3,
    });
  });
});
