import type { DeferReason } from "./seat-budget.js";

// The plan's types only: apply, the report, hold-broken-rows (which makes findings) and the roster
// memory in diff-roster (which reads steps) name them without importing the planner, which
// imports hold-broken-rows and diff-roster (no import circle).

/** Who a step is about: their HRIS row in this export, or what the memory kept of their last one. */
export interface Who {
  readonly name?: string;
  readonly employeeId?: string;
  readonly department?: string;
  /** Their row in this export, when they have one. */
  readonly line?: number;
}

/** Why a step is planned: what a person approving the plan reads next to the name. */
export type StepReason =
  | { readonly why: "joiner" }
  | { readonly why: "rehire"; readonly archivedSince?: string }
  | { readonly why: "left"; readonly missingExports: number; readonly since?: string }
  /** On the service, never in an HRIS export, archived because of `roster.archiveUnknown`. */
  | { readonly why: "unknown"; readonly missingExports: number; readonly since?: string }
  | { readonly why: "terminated"; readonly detail: string }
  | { readonly why: "out-of-scope"; readonly detail: string; readonly missingExports: number; readonly since?: string }
  | { readonly why: "untracked-department"; readonly department?: string }
  | { readonly why: "tracked-department"; readonly department?: string }
  | { readonly why: "erase"; readonly archivedSince: string; readonly days: number };

/** One person of a step: profile URL, who they are, why. */
export interface Named {
  readonly url: string;
  readonly who: Who;
  readonly reason: StepReason;
}

export type PlanStep =
  | { readonly kind: "add"; readonly tracked: boolean; readonly people: readonly Named[] }
  | ({ readonly kind: "revive"; readonly tracked: boolean; readonly id: number } & Named)
  | ({ readonly kind: "track"; readonly id: number } & Named)
  | ({ readonly kind: "untrack"; readonly id: number } & Named)
  | ({ readonly kind: "archive"; readonly id: number; readonly tracked: boolean } & Named)
  | ({ readonly kind: "erase"; readonly id: number } & Named);

export type StepKind = PlanStep["kind"];

/** The people of a step: the chunk of an add, else the one person. */
export function stepPeople(step: PlanStep): readonly Named[] {
  return step.kind === "add" ? step.people : [step];
}

export interface DeferredItem {
  readonly url: string;
  readonly who?: Who;
  readonly change: "add" | "revive" | "track";
  readonly tracked: boolean;
  readonly reason: DeferReason;
}

export type FindingKind =
  | "mass-archive-guard"
  | "mass-archive-guard-lifted"
  | "billing-blocked"
  | "capped"
  | "held-for-broken-row"
  | "stale-export"
  | "read-only-key";

export interface Finding {
  readonly kind: FindingKind;
  readonly severity: "warning" | "error";
  readonly message: string;
}

/** The archives the mass-archive guard held back, and the measure it took. */
export interface GuardHold {
  /** People managed from the HRIS export (live on the service, seen in an export): the denominator. */
  readonly managed: number;
  readonly percent: number;
  readonly people: readonly (Named & { readonly id: number; readonly tracked: boolean })[];
}

/** Archives over the mass-archive limit that an approval let through, and the measure and limits they passed. */
export interface GuardLift {
  readonly archives: number;
  readonly managed: number;
  readonly percent: number;
  readonly maxArchiveCount: number;
  readonly maxArchivePercent: number;
}

/**
 * Who lifted the mass-archive guard: the operator's `--allow-mass-archive` on this command line,
 * the standing `roster.approveMassArchive`, or a person's Approve in Slack of a held plan. Never a
 * plan file: approval is given when applying.
 */
export type GuardApproval = "flag" | "config" | "slack";

/** A held plan approved in Slack: which plan, by whom (a Slack user id, and the name Slack gave), when (ISO). */
export interface SlackApproval {
  readonly planId: string;
  readonly userId: string;
  readonly userName?: string | undefined;
  readonly at: string;
}

/**
 * A person stopped by hand in Slack (the `roster.keptUntracked` hold) whom the HRIS row would have
 * tracked again: the plan has no track step for them. `id` is the service's; `stoppedBy` a Slack user id.
 */
export interface KeptPerson {
  readonly url: string;
  readonly id: number;
  readonly who: Who;
  readonly stoppedBy: string;
  readonly stoppedAt: string;
}

/**
 * Why a hold ends: the HRIS row changed since the first run after the stop, someone tracked the
 * person again on the service, the person was archived or erased, or the service holds another row
 * for the profile than the one stopped (erased and added again).
 */
export type HoldEndCause = "row-changed" | "tracked-again" | "archived" | "erased" | "other-row";

/** A hold this run ends (a real run deletes it; normal planning resumes for the person). */
export interface EndedHold extends KeptPerson {
  readonly cause: HoldEndCause;
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
  /** Who the guard held back, when it did. */
  readonly guard?: GuardHold;
  /** The archives over the limit an approval let through, when it did. */
  readonly guardLifted?: GuardLift;
  /** Archives not done because the person's row is still in the file, unusable (a finding each). */
  readonly heldForBrokenRows: number;
  readonly waitingToArchive: number;
  readonly unknownLeftAlone: number;
  /** People stopped by hand in Slack whom the plan leaves untracked (no track step): shown, never applied. */
  readonly keptUntracked?: readonly KeptPerson[];
}
