import { EXIT_OK, EXIT_PARTIAL, type ExitCode } from "../errors.js";
import { countBy } from "./count-by.js";
import type { DeferredItem, Finding } from "./plan-types.js";
import { ROW_ERROR_REASONS, type RowProblem } from "./roster-rows.js";
import type { DeferReason } from "./seat-budget.js";

/** Deferrals the service lifts by itself (daily allowances, a stop): routine, not a person's job. */
export const ROUTINE_DEFERRALS: ReadonlySet<DeferReason> = new Set<DeferReason>([
  "api-seat-allowance",
  "seat-quota-exceeded",
  "row-quota-exceeded",
]);

/**
 * What decides whether a run needs a person: the report's findings and interruption as the report
 * has them, its deferrals and row problems, and how many archives were held, people refused and
 * changes failed.
 */
export interface AttentionFacts {
  readonly findings: readonly Finding[];
  /** The run stopped before its plan was applied whole. */
  readonly interrupted: boolean;
  readonly deferred: readonly DeferredItem[];
  readonly problems: readonly RowProblem[];
  /** The first run of this export: its row problems and held archives are news. */
  readonly reported: boolean;
  readonly held: number;
  readonly refusals: number;
  readonly failures: number;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * What needs a person, in words; empty for a routine run. Row problems and archives held for broken
 * rows count once per export (`reported`): the same file read again is not news. Deferrals by a
 * daily allowance lift by themselves; a cap the operator set, a trial or billing does not.
 */
export function attentionOf(parts: AttentionFacts): string[] {
  const out: string[] = [];
  for (const f of parts.findings) {
    if (f.kind === "mass-archive-guard")
      out.push("the mass-archive guard holds archives back: approve or fix the export");
    else if (f.kind === "billing-blocked") out.push(`billing: ${f.message}`);
    else if (f.kind === "stale-export") out.push(f.message);
    else if (f.kind === "read-only-key" && f.severity === "error") out.push(f.message);
  }
  const stuck = parts.deferred.filter((d) => !ROUTINE_DEFERRALS.has(d.reason) && d.reason !== "interrupted");
  if (stuck.length > 0) {
    const why = Object.entries(countBy(stuck, (d) => d.reason))
      .map(([reason, n]) => `${reason} ${n}`)
      .join(", ");
    out.push(`${plural(stuck.length, "change")} deferred until a cap or billing changes (${why})`);
  }
  if (parts.reported) {
    const errors = parts.problems.filter((p) => ROW_ERROR_REASONS.has(p.reason)).length;
    if (errors > 0) out.push(`${plural(errors, "row")} of the export need fixing`);
    if (parts.held > 0) out.push(`${plural(parts.held, "archive")} held for broken rows`);
  }
  if (parts.refusals > 0) out.push(`${plural(parts.refusals, "person", "people")} refused by the service`);
  if (parts.failures > 0) out.push(`${plural(parts.failures, "change")} failed or unconfirmed`);
  if (parts.interrupted) out.push("interrupted: the next run finishes the work");
  return out;
}

/** Exit code 3 exactly when something needs attention (`attentionOf`), else 0. */
export function reportExitCode(parts: AttentionFacts): ExitCode {
  return attentionOf(parts).length > 0 ? EXIT_PARTIAL : EXIT_OK;
}
