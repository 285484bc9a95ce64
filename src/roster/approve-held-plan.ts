import { StalePlanError } from "../errors.js";
import type { SlackMessage } from "../slack/slack-message.js";
import type { StateStore } from "../store/state-store.js";
import { checkSavedPlan } from "./check-saved-plan.js";
import { renderHeldPlanReview } from "./held-plan-review.js";
import { claimHeldPlan, type HeldPlan, loadHeldPlan, settleHeldPlan } from "./held-plans.js";
import type { SlackApproval } from "./plan-types.js";
import { applyRun, planRun, type ReconcileDeps } from "./reconcile-once.js";
import type { ReconcileReport } from "./report.js";

/**
 * Review and Approve of a held plan, for the Slack buttons (wired by the composition root: the
 * buttons' code does not import the roster flow). Approve claims the plan once (`claimHeldPlan`),
 * then applies it as `reconcile --plan` does a saved plan (`planRun`, `checkSavedPlan`,
 * `applyRun`): made again from what is true now, refused when a step differs.
 */

export type ApprovalResult =
  | { readonly outcome: "applied"; readonly planId: string; readonly summary: string; readonly report: ReconcileReport }
  /** Another approval claimed it first, or it was settled before: nothing more is done. */
  | { readonly outcome: "taken"; readonly planId: string; readonly plan: HeldPlan }
  /** The plan no longer matches what is true now: nothing was changed; each line names a difference. */
  | { readonly outcome: "stale"; readonly planId: string; readonly changes: readonly string[] }
  /** No such plan is kept (never held, or held over 90 days ago). */
  | { readonly outcome: "unknown"; readonly planId: string }
  | { readonly outcome: "failed"; readonly planId: string; readonly detail: string };

export interface ApprovalRun {
  /** As the daemon's scheduled runs: `roster.file`, or nothing for a pull source. */
  readonly file?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Posts the report of the apply to the ops channel. */
  readonly post?: ((report: ReconcileReport) => Promise<void>) | undefined;
  readonly nowMs?: () => number;
}

/** The held plan as Review shows it; undefined when no such plan is kept. */
export async function reviewHeldPlan(store: StateStore, planId: string): Promise<SlackMessage | undefined> {
  const held = await loadHeldPlan(store, planId);
  return held ? renderHeldPlanReview(held) : undefined;
}

/** `16 archived, 3 added; 1 refused by the service`: what an apply did, for the message and the journal. */
export function appliedWords(report: ReconcileReport): string {
  const a = report.applied;
  if (!a) return "nothing applied";
  const done = [
    [a.archived, "archived"],
    [a.addedTracked + a.addedUntracked, "added"],
    [a.revived, "revived"],
    [a.tracked, "tracked"],
    [a.untracked, "untracked"],
    [a.erased, "erased"],
  ] as const;
  const parts = done.filter(([n]) => n > 0).map(([n, verb]) => `${n} ${verb}`);
  const problems = [
    ...(report.refusals.length > 0 ? [`${report.refusals.length} refused by the service`] : []),
    ...(report.failures.length > 0 ? [`${report.failures.length} failed or unconfirmed`] : []),
    ...(report.interrupted ? ["interrupted: the next run finishes the work"] : []),
  ];
  return [parts.join(", ") || "nothing to change", ...problems].join("; ");
}

/** Applies a held plan once for the approver, or says why not. Never throws for the plan's sake. */
export async function approveHeldPlan(
  deps: ReconcileDeps,
  approval: SlackApproval,
  run: ApprovalRun = {},
): Promise<ApprovalResult> {
  const { store, logger } = deps;
  const planId = approval.planId;
  const nowMs = run.nowMs ?? Date.now;
  const approver = { userId: approval.userId, userName: approval.userName, at: approval.at };
  const claim = await claimHeldPlan(store, planId, approver, nowMs());
  if (!claim.claimed) {
    return claim.plan ? { outcome: "taken", planId, plan: claim.plan } : { outcome: "unknown", planId };
  }
  let report: ReconcileReport;
  try {
    const signal = run.signal ? { signal: run.signal } : {};
    const fresh = await planRun(deps, {
      ...(run.file !== undefined ? { file: run.file } : {}),
      ...signal,
      approvedInSlack: approval,
    });
    const saved = { plan: claim.plan.plan, path: `held plan ${planId}` };
    const checked = fresh.kind === "planned" ? checkSavedPlan(saved, fresh, deps.config.roster) : fresh;
    report = await applyRun(deps, checked, signal);
  } catch (error) {
    if (error instanceof StalePlanError) {
      const { steps, inputs } = error.differences;
      const changes = [...steps, ...inputs.map((d) => `because ${d}`)];
      await settleHeldPlan(store, claim.plan, "stale", changes.join("\n"));
      logger.warn(
        { component: "reconcile", plan: planId, differences: changes.length },
        "held plan stale: not applied",
      );
      return { outcome: "stale", planId, changes };
    }
    const detail = error instanceof Error ? error.message : String(error);
    await settleHeldPlan(store, claim.plan, "failed", detail).catch(() => undefined);
    logger.warn({ component: "reconcile", plan: planId, err: error }, "held plan could not be applied");
    return { outcome: "failed", planId, detail };
  }
  const summary = appliedWords(report);
  await settleHeldPlan(store, claim.plan, "applied", summary);
  logger.info({ component: "reconcile", plan: planId, user: approval.userId, summary }, "held plan applied");
  await run.post?.(report);
  return { outcome: "applied", planId, summary, report };
}
