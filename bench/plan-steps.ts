import type { Billing } from "../src/api/spec-records.js";
import type { Config } from "../src/config/schema.js";
import {
  advanceMemory,
  diffRoster,
  EMPTY_MEMORY,
  type RosterMemory,
  type ServicePerson,
} from "../src/roster/diff-roster.js";
import { planReconcile } from "../src/roster/plan-reconcile.js";
import type { ReconcilePlan } from "../src/roster/plan-types.js";
import type { RosterFile } from "../src/roster/read-roster.js";
import { seatBudget } from "../src/roster/seat-budget.js";

/**
 * What a reconcile run does after reading its export, as `reconcileOnce` does it: the memory over
 * the reader's own indexes (byUrl, exclusions: no second copy), the diff, the seat budget and the
 * plan. The plan and pull benchmarks measure it the same way.
 */
export function planFromRoster(
  roster: RosterFile,
  current: readonly ServicePerson[],
  billing: Billing,
  rules: Config["roster"],
  now: Date,
): { memory: RosterMemory; plan: ReconcilePlan } {
  const memory = advanceMemory(
    EMPTY_MEMORY,
    { fingerprint: roster.fingerprint, desired: roster, known: roster.exclusions },
    current,
    now,
  );
  const diff = diffRoster({
    desired: roster,
    exclusions: roster.exclusions,
    brokenRows: roster.problems,
    current,
    memory,
    rules,
    now,
  });
  const budget = seatBudget({ billing, maxSeats: rules.maxSeats, maxMonthlyUsd: rules.maxMonthlyUsd, now });
  return { memory, plan: planReconcile({ diff, budget, rules: { ...rules, allowMassArchive: true } }) };
}
