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
import { profileUrl, type RosterShape, serviceSlug } from "./roster-fixture.js";

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

/**
 * The service roster as reconcile would have listed it: an input, built before measuring. Its URLs
 * are flat strings, as JSON.parse makes them from the list pages (template literals would make
 * rope strings, which the first hash lookup would flatten inside the measurement).
 */
export function servicePeople(shape: RosterShape): ServicePerson[] {
  const flat = (text: string) => Buffer.from(text).toString();
  return Array.from({ length: shape.size }, (_, i) => ({
    id: 1_000_000 + i,
    profileUrl: flat(profileUrl(serviceSlug(i))),
    tracked: i >= shape.rehires,
    archived: i < shape.rehires,
  }));
}

/** A full garbage collection (with --expose-gc), then the process's RSS: where a measurement starts. */
export function settledRss(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss;
}
