import type { Billing } from "../api/schemas.js";
import { EXIT_OK, EXIT_PARTIAL, type ExitCode } from "../errors.js";
import type { ApplyCounts, ApplyResult, Refusal, StepFailure } from "./apply-plan.js";
import { countBy } from "./count-by.js";
import type { HeldPlan, HeldPlanLifts } from "./held-plans.js";
import type {
  DeferredItem,
  EndedHold,
  Finding,
  GuardApproval,
  GuardLift,
  KeptPerson,
  Named,
  PlanStep,
  ReconcilePlan,
  SlackApproval,
  StepKind,
  StepReason,
  Who,
} from "./plan-types.js";
import { describeReason } from "./plan-words.js";
import type { RosterFile } from "./read-roster.js";
import { attentionOf } from "./report-attention.js";
import type { RowProblem, RowProblemReason } from "./roster-rows.js";
import type { BillingState, SeatBudget } from "./seat-budget.js";

/** One person of the plan as the report lists them: the change, who, and why in words. */
export interface ReportStep {
  readonly change: StepKind;
  readonly url: string;
  readonly who: Who;
  readonly tracked?: boolean;
  readonly reason: StepReason;
  /** The reason in words (`left (missing from 2 exports since 2026-11-20)`). */
  readonly why: string;
}

/** What this run knows of the export itself: the fingerprint rule, and how old it is. */
export interface ExportInfo {
  readonly fingerprint: string;
  readonly modifiedAt: string;
  /** The first run that read this export (this one when `newExport`). */
  readonly firstReadAt: string;
  /** True on the first run of this export: its row problems and held archives are reported now. */
  readonly newExport: boolean;
  /** Days since the export was written or first read, whichever is older (whole days). */
  readonly ageDays: number;
  readonly ageSeconds: number;
  /** Unchanged for longer than `roster.staleAfter`: the HRIS export job may have stopped. */
  readonly stale: boolean;
}

/** How each approval of the mass-archive guard is named to a person. */
export const APPROVAL_MEANS: Readonly<Record<GuardApproval, string>> = {
  flag: "--allow-mass-archive",
  config: "roster.approveMassArchive",
  slack: "an approval in Slack",
};

/** The mass-archive guard lifted by an approval: by which means, for how many people, and the limits passed. */
export interface GuardLiftReport extends GuardLift {
  readonly by: GuardApproval;
  /** `--allow-mass-archive` or `roster.approveMassArchive`. */
  readonly means: string;
}

/** The guard lifted, in words: the finding of the report, the ops post and the log. */
export function guardLiftedMessage(lift: GuardLiftReport): string {
  return (
    `mass-archive guard lifted by ${lift.means} for ${lift.archives} ${lift.archives === 1 ? "person" : "people"}: ` +
    `archiving ${lift.archives} of the ${lift.managed} people managed from the HRIS export (${lift.percent} %) is over the limit of ` +
    `${lift.maxArchiveCount} people or ${lift.maxArchivePercent} %`
  );
}

/** Everything one reconciliation did or would do: logged, printed, posted to the ops channel. */
export interface ReconcileReport {
  readonly dryRun: boolean;
  readonly file: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly export?: ExportInfo;
  readonly rows: {
    readonly read: number;
    readonly inScope: number;
    readonly byReason: Partial<Record<RowProblemReason, number>>;
    /** Every row problem, in file order, without the work email (kept only to match rows). */
    readonly problems: readonly RowProblem[];
    /** False on a later run of the same export: its problems were reported on the first run. */
    readonly reported: boolean;
  };
  readonly notices: readonly string[];
  /** Where a pulled export came from (`roster.source`), with the source's facts. */
  readonly source?: SourceInfo;
  /** The mapping the export was read with (`auto` says which vendor it recognised). */
  readonly mapping?: { readonly preset: string; readonly title: string; readonly how: string };
  readonly billing: {
    readonly state: BillingState;
    readonly planStatus: string | undefined;
    readonly perSeatUsd: number;
    /** From /billing before the apply: the daemon exports them as gauges. */
    readonly billableSeats?: number | undefined;
    readonly unbilledSeats?: number | undefined;
  };
  readonly planned: Readonly<Record<StepKind, number>>;
  /** Every person of the plan, named, with the reason: complete (text and Slack collapse it). */
  readonly steps: readonly ReportStep[];
  readonly seatDelta: number;
  readonly monthlyCostDeltaUsd: number;
  readonly guardedArchives: number;
  /** Who the mass-archive guard held back, measured against the people managed from the export. */
  readonly guard?: { readonly managed: number; readonly percent: number; readonly people: readonly ReportStep[] };
  /** The guard lifted by an approval (the flag, the config or Slack): its archives are in `steps`. */
  readonly guardLifted?: GuardLiftReport;
  /** The plan this run held for a person to approve in Slack (the daemon's runs only). */
  readonly heldPlan?: HeldPlanSummary;
  /** This run applied a held plan approved in Slack: the approver, the plan, when. */
  readonly approvedInSlack?: SlackApproval;
  /** Due for archiving but held: their row is still in the file, broken (see the findings). */
  readonly heldForBrokenRows: number;
  readonly waitingToArchive: number;
  readonly unknownLeftAlone: number;
  /** Stopped by hand in Slack, their row unchanged: no track step although the row asks for one. */
  readonly keptUntracked: readonly KeptPerson[];
  /** Holds this run ended (a dry run: would end), and why: normal planning resumes for them. */
  readonly holdsEnded: readonly EndedHold[];
  readonly applied?: ApplyCounts & { readonly unconfirmed: number };
  readonly deferred: {
    readonly total: number;
    readonly byReason: Record<string, number>;
    readonly items: readonly DeferredItem[];
  };
  readonly findings: readonly Finding[];
  /** Every person the service said no to, with its reason, known or not. */
  readonly refusals: readonly Refusal[];
  /** Every person of a step whose request failed (a lost bulk answer names all 50). */
  readonly failures: readonly StepFailure[];
  readonly requests: number;
  readonly writeRequests: number;
  readonly interrupted: boolean;
  readonly resumedRun?: string;
  readonly retryAfterSeconds?: number;
  /** What a person should look at; empty: a routine run. */
  readonly attention: readonly string[];
  readonly outcome: "routine" | "needs-attention";
  /**
   * True when this run repeats the last report posted (no write, nothing new): its ops post is
   * skipped (report-noise). Absent in dry runs.
   */
  readonly quiet?: boolean;
  readonly exitCode: ExitCode;
}

/**
 * What one reconciliation got to, whatever the outcome: applied (in full, or stopped part-way:
 * `applied.interrupted`, `applied.failures`), a dry run (no `applied`), held by a guard (the plan's
 * findings), or refused by the service before anything was planned (`refusedPlan`, `refusedBudget`).
 */
/** A pulled export's source, for the report: where it came from and the source's facts (pages, ETag, file). */
export interface SourceInfo {
  readonly type: string;
  readonly origin: string;
  readonly facts: Readonly<Record<string, string | number | boolean>>;
}

export interface ReconcileOutcome {
  readonly dryRun: boolean;
  readonly file: string;
  readonly source?: SourceInfo;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly roster: RosterFile;
  readonly export?: ExportInfo | undefined;
  /** The run's seat budget: its state, plan status and seat price. */
  readonly budget: SeatBudget;
  /** The /billing answer the budget was made from; absent when the service refused to be read. */
  readonly billing?: Billing | undefined;
  readonly plan: ReconcilePlan;
  readonly applied?: ApplyResult | undefined;
  /** Read calls made (/me, roster pages, /billing), a refused one included. */
  readonly readRequests: number;
  /** The interrupted run this one finished. */
  readonly resumedRun?: string | undefined;
  /** Findings of the run itself (a stale export, a read-only key in a dry run), besides the plan's. */
  readonly findings?: readonly Finding[] | undefined;
  readonly notices?: readonly string[] | undefined;
  /** Holds of people stopped in Slack that this run ended (the kept ones are in `plan.keptUntracked`). */
  readonly holdsEnded?: readonly EndedHold[] | undefined;
  /** The approval the run had (it lifts the guard when the plan's archives are over the limit). */
  readonly approval?: GuardApproval | undefined;
  readonly approvedInSlack?: SlackApproval | undefined;
  readonly heldPlan?: HeldPlan | undefined;
}

/** A held plan as the report carries it: its id, what approving it does and lifts. */
export interface HeldPlanSummary {
  readonly id: string;
  readonly planned: Readonly<Record<StepKind, number>>;
  readonly deferred: number;
  readonly seatDelta: number;
  readonly monthlyCostDeltaUsd: number;
  readonly lifts: HeldPlanLifts;
}

export function reportStep(change: StepKind, person: Named, tracked?: boolean): ReportStep {
  return {
    change,
    url: person.url,
    who: person.who,
    ...(tracked === undefined ? {} : { tracked }),
    reason: person.reason,
    why: describeReason(person.reason),
  };
}

/** The plan's steps, one entry per person, in plan order. */
export function reportSteps(steps: readonly PlanStep[]): ReportStep[] {
  const out: ReportStep[] = [];
  for (const step of steps) {
    if (step.kind === "add") for (const p of step.people) out.push(reportStep("add", p, step.tracked));
    else if (step.kind === "revive" || step.kind === "archive") out.push(reportStep(step.kind, step, step.tracked));
    else out.push(reportStep(step.kind, step));
  }
  return out;
}

/** The report of any outcome: the one place a ReconcileReport is made. */
export function buildReport(outcome: ReconcileOutcome): ReconcileReport {
  const { roster, budget, billing, plan, applied, resumedRun } = outcome;
  const deferred = [...plan.deferred, ...(applied?.deferred ?? [])];
  const failures = applied?.failures ?? [];
  const refusals = applied?.refusals ?? [];
  const interrupted = applied?.interrupted ?? false;
  const writeRequests = applied?.writeRequests ?? 0;
  const guardLifted: GuardLiftReport | undefined =
    plan.guardLifted && outcome.approval
      ? { ...plan.guardLifted, by: outcome.approval, means: APPROVAL_MEANS[outcome.approval] }
      : undefined;
  const lifted: Finding[] = guardLifted
    ? [{ kind: "mass-archive-guard-lifted", severity: "warning", message: guardLiftedMessage(guardLifted) }]
    : [];
  const findings = [...(outcome.findings ?? []), ...lifted, ...plan.findings];
  const reported = outcome.export?.newExport ?? true;
  const attention = attentionOf({
    findings,
    deferred,
    problems: roster.problems,
    reported,
    held: plan.heldForBrokenRows,
    refusals: refusals.length,
    failures: failures.length,
    interrupted,
  });
  const guard = plan.guard;
  return {
    dryRun: outcome.dryRun,
    file: outcome.file,
    ...(outcome.source ? { source: outcome.source } : {}),
    startedAt: outcome.startedAt.toISOString(),
    durationMs: outcome.finishedAt.getTime() - outcome.startedAt.getTime(),
    ...(outcome.export ? { export: outcome.export } : {}),
    rows: {
      read: roster.rowCount,
      inScope: roster.people.length,
      byReason: countBy(roster.problems, (p) => p.reason),
      problems: reportedProblems(roster.problems),
      reported,
    },
    notices: [...roster.notices, ...(outcome.notices ?? [])],
    mapping: roster.mapping,
    billing: {
      state: budget.state,
      planStatus: budget.planStatus,
      perSeatUsd: budget.perSeatUsd,
      ...(billing
        ? { billableSeats: billing.seats.billable, unbilledSeats: billing.seatSettlement.unbilledSeats }
        : {}),
    },
    planned: plannedCounts(plan),
    steps: reportSteps(plan.steps),
    seatDelta: plan.seatDelta,
    monthlyCostDeltaUsd: plan.monthlyCostDeltaUsd,
    guardedArchives: plan.guardedArchives,
    ...(guard
      ? {
          guard: {
            managed: guard.managed,
            percent: guard.percent,
            people: guard.people.map((p) => reportStep("archive", p, p.tracked)),
          },
        }
      : {}),
    ...(guardLifted ? { guardLifted } : {}),
    ...(outcome.heldPlan ? { heldPlan: heldPlanSummary(outcome.heldPlan) } : {}),
    ...(outcome.approvedInSlack ? { approvedInSlack: outcome.approvedInSlack } : {}),
    heldForBrokenRows: plan.heldForBrokenRows,
    waitingToArchive: plan.waitingToArchive,
    unknownLeftAlone: plan.unknownLeftAlone,
    keptUntracked: [...(plan.keptUntracked ?? []), ...(applied?.keptUntracked ?? [])],
    holdsEnded: outcome.holdsEnded ?? [],
    ...(applied ? { applied: { ...applied.counts, unconfirmed: failures.filter((f) => f.unconfirmed).length } } : {}),
    deferred: { total: deferred.length, byReason: countBy(deferred, (d) => d.reason), items: deferred },
    findings,
    refusals,
    failures,
    requests: outcome.readRequests + writeRequests,
    writeRequests,
    interrupted,
    ...(resumedRun ? { resumedRun } : {}),
    ...(applied?.retryAfterSeconds !== undefined ? { retryAfterSeconds: applied.retryAfterSeconds } : {}),
    attention,
    outcome: attention.length > 0 ? "needs-attention" : "routine",
    exitCode: attention.length > 0 ? EXIT_PARTIAL : EXIT_OK,
  };
}

function heldPlanSummary(held: HeldPlan): HeldPlanSummary {
  return {
    id: held.id,
    planned: plannedCounts({ steps: held.plan.steps }),
    deferred: held.deferred.length,
    seatDelta: held.seatDelta,
    monthlyCostDeltaUsd: held.monthlyCostDeltaUsd,
    lifts: held.lifts,
  };
}

export function plannedCounts(plan: Pick<ReconcilePlan, "steps">): ReconcileReport["planned"] {
  const planned = { add: 0, revive: 0, track: 0, untrack: 0, archive: 0, erase: 0 };
  for (const step of plan.steps) planned[step.kind] += step.kind === "add" ? step.people.length : 1;
  return planned;
}

/** The row problems a report lists: all of them, without the work email (kept only to match rows). */
export function reportedProblems(problems: readonly RowProblem[]): RowProblem[] {
  return problems.map(({ email: _email, ...rest }) => rest);
}
