import type { Billing } from "../api/schemas.js";
import { EXIT_OK, EXIT_PARTIAL, type ExitCode } from "../errors.js";
import type { SlackMessage } from "../slack/slack-message.js";
import type { ApplyCounts, ApplyResult } from "./apply-plan.js";
import { ROW_ERROR_REASONS, type RowProblem, type RowProblemReason } from "./collect-roster-rows.js";
import type { DeferredItem, Finding, ReconcilePlan } from "./plan-types.js";
import type { RosterFile } from "./read-roster.js";
import type { BillingState, SeatBudget } from "./seat-budget.js";

/** Everything one reconciliation did or would do: logged, printed, posted to the ops channel. */
export interface ReconcileReport {
  readonly dryRun: boolean;
  readonly file: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly rows: {
    readonly read: number;
    readonly inScope: number;
    readonly byReason: Partial<Record<RowProblemReason, number>>;
    readonly problems: readonly RowProblem[];
  };
  readonly notices: readonly string[];
  readonly billing: {
    readonly state: BillingState;
    readonly planStatus: string | undefined;
    readonly perSeatUsd: number;
    /** From /billing before the apply: the daemon exports them as gauges. */
    readonly billableSeats?: number | undefined;
    readonly unbilledSeats?: number | undefined;
  };
  readonly planned: Readonly<Record<"add" | "revive" | "track" | "untrack" | "archive" | "erase", number>>;
  /** Who would be archived or erased (first 50): what a reviewer of a dry run checks first. */
  readonly removals?: ReadonlyArray<{ readonly change: "archive" | "erase"; readonly url: string }>;
  readonly seatDelta: number;
  readonly monthlyCostDeltaUsd: number;
  readonly guardedArchives: number;
  /** Due for archiving but held: their row is still in the file, broken (see the findings). */
  readonly heldForBrokenRows: number;
  readonly waitingToArchive: number;
  readonly unknownLeftAlone: number;
  readonly applied?: ApplyCounts;
  readonly deferred: {
    readonly total: number;
    readonly byReason: Record<string, number>;
    readonly items: readonly DeferredItem[];
  };
  readonly findings: readonly Finding[];
  readonly failures: ApplyResult["failures"];
  readonly serviceRowErrors: ApplyResult["rowErrors"];
  readonly requests: number;
  readonly writeRequests: number;
  readonly interrupted: boolean;
  readonly resumedRun?: string;
  readonly retryAfterSeconds?: number;
  readonly exitCode: ExitCode;
}

/**
 * What one reconciliation got to, whatever the outcome: applied (in full, or stopped part-way:
 * `applied.interrupted`, `applied.failures`), a dry run (no `applied`), held by a guard (the plan's
 * findings), or refused by the service before anything was planned (`refusedPlan`, `refusedBudget`).
 */
export interface ReconcileOutcome {
  readonly dryRun: boolean;
  readonly file: string;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly roster: RosterFile;
  /** The run's seat budget: its state, plan status and seat price. */
  readonly budget: SeatBudget;
  /** The /billing answer the budget was made from; absent when the service refused to be read. */
  readonly billing?: Billing | undefined;
  readonly plan: ReconcilePlan;
  readonly applied?: ApplyResult | undefined;
  /** Read calls made (roster pages, /billing), a refused one included. */
  readonly readRequests: number;
  /** The interrupted run this one finished. */
  readonly resumedRun?: string | undefined;
}

/** The report of any outcome: the one place a ReconcileReport is made. */
export function buildReport(outcome: ReconcileOutcome): ReconcileReport {
  const { roster, budget, billing, plan, applied, resumedRun } = outcome;
  const deferred = [...plan.deferred, ...(applied?.deferred ?? [])];
  const failures = applied?.failures ?? [];
  const serviceRowErrors = applied?.rowErrors ?? [];
  const interrupted = applied?.interrupted ?? false;
  const writeRequests = applied?.writeRequests ?? 0;
  return {
    dryRun: outcome.dryRun,
    file: outcome.file,
    startedAt: outcome.startedAt.toISOString(),
    durationMs: outcome.finishedAt.getTime() - outcome.startedAt.getTime(),
    rows: {
      read: roster.rowCount,
      inScope: roster.people.length,
      byReason: countBy(roster.problems, (p) => p.reason),
      problems: reportedProblems(roster.problems),
    },
    notices: roster.notices,
    billing: {
      state: budget.state,
      planStatus: budget.planStatus,
      perSeatUsd: budget.perSeatUsd,
      ...(billing
        ? { billableSeats: billing.seats.billable, unbilledSeats: billing.seatSettlement.unbilledSeats }
        : {}),
    },
    planned: plannedCounts(plan),
    removals: plannedRemovals(plan),
    seatDelta: plan.seatDelta,
    monthlyCostDeltaUsd: plan.monthlyCostDeltaUsd,
    guardedArchives: plan.guardedArchives,
    heldForBrokenRows: plan.heldForBrokenRows,
    waitingToArchive: plan.waitingToArchive,
    unknownLeftAlone: plan.unknownLeftAlone,
    ...(applied ? { applied: applied.counts } : {}),
    deferred: { total: deferred.length, byReason: countBy(deferred, (d) => d.reason), items: limitList(deferred) },
    findings: plan.findings,
    failures,
    serviceRowErrors,
    requests: outcome.readRequests + writeRequests,
    writeRequests,
    interrupted,
    ...(resumedRun ? { resumedRun } : {}),
    ...(applied?.retryAfterSeconds !== undefined ? { retryAfterSeconds: applied.retryAfterSeconds } : {}),
    exitCode: reportExitCode({
      deferred: deferred.length,
      held: plan.heldForBrokenRows,
      findings: plan.findings,
      problems: roster.problems,
      failures: failures.length,
      serviceRowErrors: serviceRowErrors.length,
      interrupted,
    }),
  };
}

const LIST_LIMIT = 50;

export function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
}

/** Exit code 3 when anything was deferred, refused, guarded, held, failed or interrupted. */
export function reportExitCode(parts: {
  deferred: number;
  /** Archives held for broken rows: even a row without a URL then needs someone to fix it. */
  held: number;
  findings: readonly Finding[];
  problems: readonly RowProblem[];
  failures: number;
  serviceRowErrors: number;
  interrupted: boolean;
}): ExitCode {
  const attention =
    parts.deferred > 0 ||
    parts.held > 0 ||
    parts.findings.some((f) => f.severity === "error") ||
    parts.problems.some((p) => ROW_ERROR_REASONS.has(p.reason)) ||
    parts.failures > 0 ||
    parts.serviceRowErrors > 0 ||
    parts.interrupted;
  return attention ? EXIT_PARTIAL : EXIT_OK;
}

export function plannedCounts(plan: ReconcilePlan): ReconcileReport["planned"] {
  const planned = { add: 0, revive: 0, track: 0, untrack: 0, archive: 0, erase: 0 };
  for (const step of plan.steps) planned[step.kind] += step.kind === "add" ? step.urls.length : 1;
  return planned;
}

export function plannedRemovals(plan: ReconcilePlan): NonNullable<ReconcileReport["removals"]> {
  const out: Array<{ change: "archive" | "erase"; url: string }> = [];
  for (const step of plan.steps)
    if (step.kind === "archive" || step.kind === "erase") out.push({ change: step.kind, url: step.url });
  return limitList(out);
}

export function limitList<T>(items: readonly T[]): T[] {
  return items.slice(0, LIST_LIMIT);
}

/** The row problems a report lists: the first 50, without the work email (kept only to match rows). */
export function reportedProblems(problems: readonly RowProblem[]): RowProblem[] {
  return limitList(problems).map(({ email: _email, ...rest }) => rest);
}

function usd(value: number): string {
  return `${value < 0 ? "-" : "+"}${Math.abs(value).toFixed(2)} USD/month`;
}

/** A readable text table for stdout and `--dry-run`. */
export function renderReportText(r: ReconcileReport): string {
  const lines: string[] = [];
  lines.push(`${r.dryRun ? "Reconcile plan (dry run, nothing changed)" : "Reconcile report"}: ${r.file}`);
  lines.push(`  rows read ${r.rows.read}, in scope ${r.rows.inScope}`);
  for (const [reason, n] of Object.entries(r.rows.byReason)) lines.push(`  rows ${reason.padEnd(14)} ${n}`);
  for (const notice of r.notices) lines.push(`  note: ${notice}`);
  lines.push(
    `  billing: ${r.billing.state} (plan ${r.billing.planStatus ?? "unknown"}, ${r.billing.perSeatUsd} USD/seat)`,
  );
  lines.push("");
  lines.push(`  change      planned${r.applied ? "   done" : ""}`);
  const done: Record<string, number | undefined> = r.applied
    ? {
        add: r.applied.addedTracked + r.applied.addedUntracked,
        revive: r.applied.revived,
        track: r.applied.tracked,
        untrack: r.applied.untracked,
        archive: r.applied.archived,
        erase: r.applied.erased,
      }
    : {};
  for (const [kind, n] of Object.entries(r.planned)) {
    lines.push(`  ${kind.padEnd(10)} ${String(n).padStart(8)}${r.applied ? String(done[kind] ?? 0).padStart(7) : ""}`);
  }
  if (r.applied) {
    lines.push(
      `  added tracked ${r.applied.addedTracked}, untracked ${r.applied.addedUntracked}, already there ${r.applied.alreadyPresent}`,
    );
  }
  lines.push(`  seat delta ${r.seatDelta >= 0 ? "+" : ""}${r.seatDelta} (${usd(r.monthlyCostDeltaUsd)})`);
  if (r.heldForBrokenRows > 0)
    lines.push(`  archives held for broken rows: ${r.heldForBrokenRows} (still in the file; see the warnings)`);
  if (r.waitingToArchive > 0)
    lines.push(`  missing from the file, archived after more missing files: ${r.waitingToArchive}`);
  if (r.unknownLeftAlone > 0) lines.push(`  on the roster from other sources, left alone: ${r.unknownLeftAlone}`);
  if (r.deferred.total > 0) {
    const why = Object.entries(r.deferred.byReason)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ");
    lines.push(`  deferred to a later run: ${r.deferred.total} (${why})`);
  }
  if (r.retryAfterSeconds !== undefined) lines.push(`  the service allows more adds in ${r.retryAfterSeconds} s`);
  for (const f of r.findings) lines.push(`  ${f.severity.toUpperCase()}: ${f.message}`);
  for (const f of limitList(r.failures)) lines.push(`  failed ${f.step} ${f.url}: ${f.message}`);
  for (const p of limitList(r.rows.problems.filter((p) => ROW_ERROR_REASONS.has(p.reason)))) {
    lines.push(`  line ${p.line}: ${p.reason}: ${p.message}`);
  }
  if (r.interrupted) lines.push("  INTERRUPTED: the next run finishes the work");
  if (r.resumedRun) lines.push(`  finished the interrupted run ${r.resumedRun}`);
  lines.push(`  ${r.requests} requests (${r.writeRequests} writes) in ${(r.durationMs / 1000).toFixed(1)} s`);
  return `${lines.join("\n")}\n`;
}

/**
 * Text for a Slack mrkdwn code block. Values from the HRIS file reach the report (cell excerpts in
 * row problems): Slack's control characters are escaped (its formatting guide) and backticks are
 * replaced, so nothing can close the code block, link, or mention anyone.
 */
export function slackCodeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/`/g, "'");
}

/** The report as one Slack ops-channel message (plain text fallback plus a code block). */
export function renderReportSlack(r: ReconcileReport): SlackMessage {
  const headline = r.findings.some((f) => f.kind === "billing-blocked" && f.message.includes("charge"))
    ? ":rotating_light: Roster reconcile: a seat charge failed, no one can be added"
    : `${r.exitCode === EXIT_OK ? ":white_check_mark:" : ":warning:"} Roster reconcile${r.dryRun ? " (dry run)" : ""}`;
  // Cut below Slack's 3,000-character section limit, never inside an escape.
  const body = slackCodeText(renderReportText(r))
    .slice(0, 2900)
    .replace(/&[a-z]*$/, "");
  return {
    text: headline,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `*${headline}*` } },
      // verbatim: Slack must not turn URLs or channel names in the body into links.
      { type: "section", text: { type: "mrkdwn", text: `\`\`\`${body}\`\`\``, verbatim: true } },
    ],
  };
}
