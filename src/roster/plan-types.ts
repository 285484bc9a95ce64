import type { DeferReason } from "./seat-budget.js";

// The plan's types only: apply, the report, hold-broken-rows (which makes findings) and the roster
// memory in diff-roster (which reads steps) name them without importing the planner, which
// imports hold-broken-rows and diff-roster (no import circle).

export type PlanStep =
  | { readonly kind: "add"; readonly tracked: boolean; readonly urls: readonly string[] }
  | { readonly kind: "revive"; readonly tracked: boolean; readonly id: number; readonly url: string }
  | { readonly kind: "track"; readonly id: number; readonly url: string }
  | { readonly kind: "untrack"; readonly id: number; readonly url: string }
  | { readonly kind: "archive"; readonly id: number; readonly url: string; readonly tracked: boolean }
  | { readonly kind: "erase"; readonly id: number; readonly url: string };

export interface DeferredItem {
  readonly url: string;
  readonly line?: number;
  readonly change: "add" | "revive" | "track";
  readonly tracked: boolean;
  readonly reason: DeferReason;
}

export interface Finding {
  readonly kind: "mass-archive-guard" | "billing-blocked" | "capped" | "held-for-broken-row";
  readonly severity: "warning" | "error";
  readonly message: string;
}

/** The reconcile plan as a value: `planReconcile` makes it, `--dry-run` prints it, `applyPlan` executes it. */
export interface ReconcilePlan {
  readonly steps: readonly PlanStep[];
  /** Net change of tracked seats if every step succeeds. */
  readonly seatDelta: number;
  readonly monthlyCostDeltaUsd: number;
  readonly deferred: readonly DeferredItem[];
  readonly findings: readonly Finding[];
  /** Archives held back by the deletion guard. */
  readonly guardedArchives: number;
  /** Archives not done because the person's row is still in the file, unusable (a finding each). */
  readonly heldForBrokenRows: number;
  readonly waitingToArchive: number;
  readonly unknownLeftAlone: number;
}
