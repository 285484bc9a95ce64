/**
 * The roster as read from an HRIS export: the people in scope, the ones out of scope and why, and the
 * rows that could not be read. The collector (`collect-roster-rows.ts`) builds it; diff, reports and
 * the alerts' HR lookup read it.
 */
import type { RowIdentity } from "./row-identity.js";

/**
 * One person of the HRIS file, with the canonical profile URL the roster is matched on. Only what
 * reconcile and the alerts' HRIS lookup use is kept: a 1,000,000-row file holds a million of these.
 * Status and location decide the scope while the row is read and are not kept; the title is kept (one
 * shared string per distinct value) for the HR data on alert cards.
 */
export interface RosterPerson {
  /** 1-based line (CSV, NDJSON) or record number (JSON array) where the row starts. */
  readonly line: number;
  /** Position in `people` (in-scope rows) or `excluded`: "file order" for priorities. */
  readonly index: number;
  readonly profileUrl: string;
  readonly employeeId?: string;
  readonly name?: string;
  readonly email?: string;
  readonly department?: string;
  /** The HR job title: alert cards show it as HR data beside the profile's title. */
  readonly title?: string;
  readonly managerEmail?: string;
  /**
   * The status cell and termination date cell as written (an in-scope row: active, or a date to
   * come); read only for the people named in `RosterReadOptions.keepStatusOf`.
   */
  readonly status?: string;
  readonly terminationDate?: string;
  /** Whether the service should track them: false for `roster.untrackedDepartments`. */
  readonly tracked: boolean;
}

/** Why a valid row is not in scope: the HRIS says the person left, or a `roster.include` rule leaves them out. */
export interface Exclusion {
  readonly person: RosterPerson;
  readonly reason: "terminated" | "out-of-scope";
  /** What the row says, for a report: `status "Terminated"`, `terminated on "2026-10-31"`. */
  readonly detail: string;
}

/** Reasons that need someone to fix the file (exit code 3); the other reasons are expected exclusions. */
const ROW_ERROR_REASON_LIST = [
  "invalid-url",
  "opaque-id-url",
  "formula-cell",
  "malformed-row",
  "duplicate",
  "duplicate-id",
] as const;

export const ROW_PROBLEM_REASONS = ["missing-url", ...ROW_ERROR_REASON_LIST, "terminated", "out-of-scope"] as const;
export type RowProblemReason = (typeof ROW_PROBLEM_REASONS)[number];

export const ROW_ERROR_REASONS: ReadonlySet<RowProblemReason> = new Set(ROW_ERROR_REASON_LIST);

/** Carries the row's identity: a person whose row broke is matched by it, not archived (hold-broken-rows). */
export interface RowProblem extends RowIdentity {
  /** The line (CSV, NDJSON) or record number (JSON document). */
  readonly line: number;
  /** A JSON document's record: the line it starts on. */
  readonly sourceLine?: number;
  readonly reason: RowProblemReason;
  readonly message: string;
  /** The HRIS name on the row, when it has one: a report names whose row it is. */
  readonly name?: string;
}

export interface RosterRows {
  /** Rows in scope, one per person, in file order (`people[i].index === i`). */
  readonly people: readonly RosterPerson[];
  /** The same people by canonical profile URL: the one index reconcile looks them up in. */
  readonly byUrl: ReadonlyMap<string, RosterPerson>;
  /** Valid rows out of scope (terminated, filtered): known to the HRIS, not wanted on the roster. */
  readonly excluded: readonly RosterPerson[];
  /** Why each excluded profile URL is out of scope (the first row of a URL wins). */
  readonly exclusions: ReadonlyMap<string, Exclusion>;
  readonly problems: readonly RowProblem[];
  readonly rowCount: number;
}

/** Where a row problem is, for a report: `line 12`, or `record 12 (line 140)` in a JSON document. */
export function problemPlace(problem: Pick<RowProblem, "line" | "sourceLine">): string {
  return problem.sourceLine === undefined
    ? `line ${problem.line}`
    : `record ${problem.line} (line ${problem.sourceLine})`;
}
