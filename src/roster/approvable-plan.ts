import type { Billing } from "../api/schemas.js";
import type { Config } from "../config/schema.js";
import type { RosterDiff } from "./diff-roster.js";
import type { HeldPlanLifts } from "./held-plans.js";
import { BULK_CHUNK, planReconcile } from "./plan-reconcile.js";
import { type Named, type PlanStep, type ReconcilePlan, stepPeople } from "./plan-types.js";
import { type DeferReason, type SeatBudget, seatBudget } from "./seat-budget.js";

/**
 * The plan a person may approve when a run is held: what the run would do were the mass-archive
 * guard and the operator's own caps (`roster.maxSeats`, `roster.maxMonthlyUsd`) lifted, less what
 * the run itself does. The service's limits (trial, daily seat allowance, billing state) stay: an
 * approval never asks the service for more than it allows.
 */

/** The deferrals an approval can lift: the operator's own caps. */
const OPERATOR_CAPS: ReadonlySet<DeferReason> = new Set<DeferReason>(["max-seats", "max-monthly-usd"]);
const CAP_SETTING: Readonly<Partial<Record<DeferReason, string>>> = {
  "max-seats": "roster.maxSeats",
  "max-monthly-usd": "roster.maxMonthlyUsd",
};

/** The budget of an approved plan: the service's caps and billing, without the operator's caps. */
export function approvedBudget(billing: Billing, now: Date): SeatBudget {
  return seatBudget({ billing, now });
}

/** One person-level action: what a run's plan and the approvable plan are compared by. */
const actionKey = (step: PlanStep, person: Named) =>
  `${step.kind}|${person.url}|${step.kind === "add" || step.kind === "revive" ? step.tracked : ""}`;

/** `all` less the people `done` has (the run applies them), adds chunked again by 50. */
function remainingSteps(all: readonly PlanStep[], done: readonly PlanStep[]): PlanStep[] {
  const doneKeys = new Set(done.flatMap((step) => stepPeople(step).map((person) => actionKey(step, person))));
  const out: PlanStep[] = [];
  for (const tracked of [true, false]) {
    const people = all
      .filter((step): step is Extract<PlanStep, { kind: "add" }> => step.kind === "add" && step.tracked === tracked)
      .flatMap((step) => step.people.filter((person) => !doneKeys.has(actionKey(step, person))));
    for (let i = 0; i < people.length; i += BULK_CHUNK) {
      out.push({ kind: "add", tracked, people: people.slice(i, i + BULK_CHUNK) });
    }
  }
  const others = all.filter((step) => step.kind !== "add" && !doneKeys.has(actionKey(step, step as Named)));
  // The planner's order: untracks and archives first (they free seats), then erases, revives, tracks, adds.
  return [...others, ...out];
}

/**
 * The plan to hold for approval, or undefined when the run needs no approval (nothing held by the
 * guard or by an operator's cap) or approving would change nothing (the service's limits bind).
 */
export function approvablePlan(input: {
  readonly diff: RosterDiff;
  readonly billing: Billing;
  readonly rules: Config["roster"];
  readonly now: Date;
  /** The run's own plan: what it applies without an approval. */
  readonly plan: ReconcilePlan;
}): { readonly plan: ReconcilePlan; readonly budget: SeatBudget; readonly lifts: HeldPlanLifts } | undefined {
  const { plan, rules } = input;
  const capped = [...new Set(plan.deferred.map((d) => d.reason).filter((reason) => OPERATOR_CAPS.has(reason)))];
  if (!plan.guard && capped.length === 0) return undefined;
  const budget = approvedBudget(input.billing, input.now);
  const full = planReconcile({ diff: input.diff, budget, rules: { ...rules, allowMassArchive: true } });
  const steps = remainingSteps(full.steps, plan.steps);
  if (steps.length === 0) return undefined;
  const seatDelta = full.seatDelta - plan.seatDelta;
  const held: ReconcilePlan = {
    ...full,
    steps,
    seatDelta,
    monthlyCostDeltaUsd: Math.round(seatDelta * budget.perSeatUsd * 100) / 100,
    ...(plan.keptUntracked ? { keptUntracked: plan.keptUntracked } : {}),
  };
  const guard = plan.guard
    ? { archives: plan.guard.people.length, managed: plan.guard.managed, percent: plan.guard.percent }
    : undefined;
  const caps = capped.flatMap((reason) => CAP_SETTING[reason] ?? []);
  return { plan: held, budget, lifts: { ...(guard ? { guard } : {}), caps } };
}
