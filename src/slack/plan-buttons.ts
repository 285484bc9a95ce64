/**
 * The buttons of a reconcile report that holds a plan for a person (Review, Approve) and the
 * record kept of such a message once posted (namespace `slack.posted`). Here, below both, because
 * the roster flow draws them and the buttons' machinery reads them, and neither imports the other.
 */
export const PLAN_ACTION_IDS = {
  review: "rs_plan_review",
  approve: "rs_plan_approve",
} as const;

/** The block of the two buttons, and the context line that replaces it once the plan is settled. */
export const PLAN_BLOCK_IDS = {
  actions: "rs_plan_actions",
  mark: "rs_plan_mark",
} as const;

/** A held plan's id: 8 lowercase hex characters (`heldPlanId`). */
export const PLAN_ID = /^[0-9a-f]{8}$/;

/**
 * The record of a report posted with plan buttons. `people` is empty so that a person's button
 * pressed on it (there is none) finds nobody; `plan` is the one plan its buttons act on.
 */
export interface PostedPlanRecord {
  readonly v: 1;
  readonly people: readonly [];
  readonly plan: string;
}

export function postedPlanRecord(planId: string): PostedPlanRecord {
  return { v: 1, people: [], plan: planId };
}

/** The plan a posted message's record names, or undefined (no record, or a message about people). */
export function recordedPlan(record: unknown): string | undefined {
  const plan = (record as { plan?: unknown } | null | undefined)?.plan;
  return typeof plan === "string" && PLAN_ID.test(plan) ? plan : undefined;
}
