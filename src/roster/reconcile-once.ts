import { randomUUID } from "node:crypto";
import type { Logger } from "../logger.js";
import { type ApplyResult, applyPlan } from "./apply-plan.js";
import { approvablePlan } from "./approvable-plan.js";
import { withPlannedArchiveTimes } from "./diff-roster.js";
import { type HeldPlan, holdPlan } from "./held-plans.js";
import { keptUntrackedNow, settleKeptUntracked } from "./kept-untracked.js";
import { type PlannedRun, type PlanRunOptions, planRun, type ReconcileDeps, type RunPlan } from "./plan-run.js";
import type { PlanStep } from "./plan-types.js";
import { JOURNAL_NAMESPACE } from "./reconcile-journal.js";
import { APPROVAL_MEANS, buildReport, guardLiftedMessage, type ReconcileReport } from "./report.js";
import { quietRepeat } from "./report-noise.js";
import { billingSummary, savedPlan } from "./saved-plan.js";
import { holdsEndedByArchive } from "./settle-holds.js";
import { saveRosterMemory } from "./stored-roster-memory.js";

export type { PlannedRun, PlanRunOptions, ReconcileDeps, RunPlan };
export { planRun };

export interface ApplyRunOptions {
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
  readonly onProgress?: (done: number, total: number, step: PlanStep) => void;
  /**
   * The daemon's runs: a run that needs a person (the guard held archives, an operator's cap
   * deferred adds) keeps the plan that person may approve in Slack (`roster.heldPlans`).
   */
  readonly holdForApproval?: boolean;
}

/** Plan and apply in one go: what `reconcile` without `--dry-run` or `--plan`, and the demo, run. */
export type ReconcileOptions = Omit<PlanRunOptions, "preview" | "approvedInSlack"> & ApplyRunOptions;

/** One reconciliation, HRIS file to service roster: `planRun`, then `applyRun` of that plan. */
export async function reconcileOnce(deps: ReconcileDeps, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  return applyRun(deps, await planRun(deps, options), options);
}

/** The report of a plan that is not applied (`--dry-run`). */
export function previewRun(
  deps: ReconcileDeps,
  run: RunPlan,
  options: { readonly now?: () => Date } = {},
): ReconcileReport {
  const finishedAt = (options.now ?? (() => new Date()))();
  if (run.kind === "refused") return refusedReport(run, true, finishedAt);
  // A dry run says which holds its archives would end: every planned one.
  const archivedHolds = holdsEndedByArchive(run.holds.standing, run.plan.steps, undefined);
  const report = buildReport({
    ...outcomeOf(run),
    dryRun: true,
    finishedAt,
    holdsEnded: [...run.holds.ended, ...archivedHolds],
  });
  logReport(deps.logger, report);
  return report;
}

/**
 * Applies a planned run: the roster memory and the holds first (write-ahead), then the steps
 * through the journal, then what the apply ended; returns the report. A refused run (402) applies
 * nothing.
 */
export async function applyRun(
  deps: ReconcileDeps,
  run: RunPlan,
  options: ApplyRunOptions = {},
): Promise<ReconcileReport> {
  const now = options.now ?? (() => new Date());
  if (run.kind === "refused") return refusedReport(run, false, now());
  const { store, logger } = deps;
  // A run a person must approve: the plan they may approve in Slack, held after the apply below.
  const approvable =
    options.holdForApproval === true
      ? approvablePlan({
          diff: run.holds.diff,
          billing: run.service.billing,
          rules: deps.config.roster,
          now: run.started,
          plan: run.plan,
        })
      : undefined;
  const applied = await applySteps(deps, run, options, now);
  // A hold ends once its person is archived: after the apply, only for archives done.
  const archivedHolds = holdsEndedByArchive(run.holds.standing, run.plan.steps, applied);
  if (archivedHolds.length > 0) {
    try {
      await settleKeptUntracked(store, { end: archivedHolds });
    } catch (error) {
      // Not lost: the next run finds them archived on the service and ends the holds then.
      logger.warn({ component: "reconcile", err: error }, "holds of archived people not deleted; the next run does");
    }
  }
  // Held after the apply, as what is left for the approval; a run cut short is finished first.
  let held: HeldPlan | undefined;
  if (approvable && applied.interrupted !== true) {
    const inputs = { ...run.inputs, billing: billingSummary(approvable.budget) };
    held = await holdPlan(store, {
      heldAt: run.started.toISOString(),
      plan: savedPlan(inputs, approvable.plan, run.started),
      seatDelta: approvable.plan.seatDelta,
      monthlyCostDeltaUsd: approvable.plan.monthlyCostDeltaUsd,
      deferred: approvable.plan.deferred,
      lifts: approvable.lifts,
    });
  }
  const report = buildReport({
    ...outcomeOf(run),
    dryRun: false,
    finishedAt: now(),
    applied,
    holdsEnded: [...run.holds.ended, ...archivedHolds],
    ...(held ? { heldPlan: held } : {}),
  });
  const final = await quietRepeat(store, report);
  logReport(logger, final);
  return final;
}

/**
 * One write of the memory, before the service changes (write-ahead), holding all this run
 * learned: this export counted, everyone it may add known as `seen` with their identities, and
 * the plan's archive times. Were it written after the apply, a crash in between (the journal lets
 * the next run finish the work) would lose it, and if the export read after the restart no longer
 * lists someone this run added, they would count as from other sources, never to be archived (and
 * this export would not count as a missing one). See the integration test "a run cut short".
 */
async function applySteps(
  deps: ReconcileDeps,
  run: PlannedRun,
  options: ApplyRunOptions,
  now: () => Date,
): Promise<ApplyResult> {
  const { store, logger, client } = deps;
  const { plan, approval, approvedInSlack } = run;
  await saveRosterMemory(store, withPlannedArchiveTimes(run.memory, plan.steps, now()));
  // Also before the apply: the holds' decisions rest only on what this run read (export, roster),
  // so a run cut short and finished by the next one decides the same; a hold ended here has its
  // person planned as usual (a track now, or by the next run after a crash).
  await settleKeptUntracked(store, { record: run.holds.record, end: run.holds.ended });
  // An approval that let archives over the limit through is logged and journaled with the apply.
  const lifted = plan.guardLifted;
  const lift =
    lifted && approval
      ? {
          by: approval,
          means: APPROVAL_MEANS[approval],
          archives: lifted.archives,
          ...(approvedInSlack ? { approvedBy: approvedInSlack.userId, plan: approvedInSlack.planId } : {}),
        }
      : undefined;
  if (lifted && lift) {
    logger.warn({ component: "reconcile", guardLifted: lift }, guardLiftedMessage({ ...lifted, ...lift }));
  }
  return applyPlan(plan, {
    ...(lift ? { guardLifted: lift } : {}),
    client,
    journal: store.namespace(JOURNAL_NAMESPACE),
    logger,
    runId: randomUUID(),
    fingerprint: run.roster.fingerprint,
    now,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    heldNow: (url) => keptUntrackedNow(store, url),
  });
}

/** What the report says of a planned run, applied or not. */
function outcomeOf(run: PlannedRun) {
  const { pulled } = run;
  const source = run.inputs.source;
  return {
    file: pulled?.origin ?? run.file,
    ...(pulled && source ? { source: { type: source.type, origin: pulled.origin, facts: pulled.facts } } : {}),
    startedAt: run.started,
    roster: run.roster,
    export: run.exported,
    budget: run.budget,
    billing: run.service.billing,
    plan: run.plan,
    readRequests: run.readRequests,
    resumedRun: run.resumedRun,
    findings: run.findings,
    notices: run.notices,
    approval: run.approval,
    ...(run.approvedInSlack ? { approvedInSlack: run.approvedInSlack } : {}),
  };
}

/** Spec 5.8: with no subscription or trial the whole API answers 402; reported, nothing changed. */
function refusedReport(run: Extract<RunPlan, { kind: "refused" }>, dryRun: boolean, finishedAt: Date): ReconcileReport {
  return buildReport({
    dryRun,
    file: run.file,
    startedAt: run.started,
    finishedAt,
    roster: run.roster,
    budget: run.budget,
    plan: run.plan,
    readRequests: run.readRequests,
  });
}

function logReport(logger: Logger, report: ReconcileReport): void {
  logger.info(
    {
      component: "reconcile",
      report: {
        ...report,
        rows: { ...report.rows, problems: undefined },
        steps: undefined,
        guard: report.guard ? { ...report.guard, people: undefined } : undefined,
        deferred: { ...report.deferred, items: undefined },
        refusals: report.refusals.length,
        failures: report.failures.length,
        keptUntracked: report.keptUntracked.length,
        holdsEnded: report.holdsEnded.length,
      },
    },
    "reconcile finished",
  );
}
