import type { Config } from "../config/schema.js";
import { IGNORED_APPROVAL, PlanNeedsApprovalError, StalePlanError } from "../errors.js";
import type { PlannedRun } from "./plan-run.js";
import { planDifferences, type SavedPlan } from "./saved-plan.js";

/** A plan saved earlier (`--out`, or held for an approval in Slack) and where it was read from. */
export interface SavedPlanSource {
  readonly plan: SavedPlan;
  readonly path: string;
}

/**
 * `--plan` and the approval of a held plan: the plan made now (`fresh`) must have exactly the saved
 * steps, or nothing is applied (StalePlanError names the differences; PlanNeedsApprovalError when
 * only the guard holds them). Returns the run that applies the saved steps, with notices of the
 * inputs that changed without changing a step.
 */
export function checkSavedPlan(saved: SavedPlanSource, fresh: PlannedRun, rules: Config["roster"]): PlannedRun {
  const { plan, inputs } = fresh;
  const differences = planDifferences(saved.plan, { inputs, plan });
  const ignoredApproval = saved.plan.ignoredApproval === true;
  if (plan.guard && differences.heldByGuard > 0 && differences.heldByGuard === differences.steps.length) {
    // The plan is right but unapproved: the guard holds its archives, as it would in a plain run.
    throw new PlanNeedsApprovalError(
      saved.path,
      { archives: plan.guard.people.length, managed: plan.guard.managed, percent: plan.guard.percent },
      rules,
      ignoredApproval,
    );
  }
  // A pulled export is pulled again for --plan: a different content is another export, refused
  // even where no step differs (a file's new copy of the same rows is only noted).
  const pulledAnother = fresh.pulled !== undefined && saved.plan.fingerprint !== inputs.fingerprint;
  if (differences.steps.length > 0 || pulledAnother) throw new StalePlanError(saved.path, differences);
  const notices = [
    ...fresh.notices,
    ...differences.inputs.map((d) => `since the plan was made ${d}, but no step changed`),
    ...(ignoredApproval ? [IGNORED_APPROVAL] : []),
  ];
  // The saved steps, which are the steps made now (checked above), are what is applied.
  return { ...fresh, notices, plan: { ...plan, steps: saved.plan.steps } };
}
