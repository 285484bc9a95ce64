import type { Config } from "../config/schema.js";
import { canonicalProfileUrl } from "./canonical-profile-url.js";
import type { ResolvedColumns, RosterField } from "./roster-columns.js";

/** One person of the HRIS file, with the canonical profile URL the roster is matched on. */
export interface RosterPerson {
  /** 1-based line (CSV, NDJSON) or record number (JSON array) where the row starts. */
  readonly line: number;
  /** Position among valid rows: "file order" for priorities. */
  readonly index: number;
  readonly profileUrl: string;
  readonly employeeId?: string;
  readonly name?: string;
  readonly email?: string;
  readonly department?: string;
  readonly title?: string;
  readonly location?: string;
  readonly managerEmail?: string;
  readonly status?: string;
}

export const ROW_PROBLEM_REASONS = [
  "missing-url",
  "invalid-url",
  "opaque-id-url",
  "formula-cell",
  "duplicate",
  "terminated",
  "out-of-scope",
] as const;
export type RowProblemReason = (typeof ROW_PROBLEM_REASONS)[number];

/** Reasons that need someone to fix the file (exit code 3); the others are expected exclusions. */
export const ROW_ERROR_REASONS: ReadonlySet<RowProblemReason> = new Set([
  "invalid-url",
  "opaque-id-url",
  "formula-cell",
  "duplicate",
]);

export interface RowProblem {
  readonly line: number;
  readonly reason: RowProblemReason;
  readonly message: string;
  readonly employeeId?: string;
}

export interface RosterRows {
  /** Rows in scope, one per person, in file order. */
  readonly people: readonly RosterPerson[];
  /** Valid rows out of scope (terminated, filtered): known to the HRIS, not wanted on the roster. */
  readonly excluded: readonly RosterPerson[];
  readonly problems: readonly RowProblem[];
  readonly rowCount: number;
}

export type IncludeRules = Config["roster"]["include"];

const TERMINATED = /terminat|inactive|separat|resign|former|deceased|retired|dismiss|^left$|^ended$/i;
const FORMULA = /^[=+\-@\t\r]/;

type Cells = readonly (string | undefined)[];

function cell(cells: Cells, columns: ResolvedColumns, field: RosterField): string | undefined {
  const index = columns[field];
  if (index === undefined) return undefined;
  const value = cells[index]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function lowerSet(values: readonly string[]): ReadonlySet<string> {
  return new Set(values.map((v) => v.trim().toLowerCase()));
}

/**
 * Accumulates HRIS rows one at a time (so files can be streamed) into people in scope, exclusions and
 * row problems. Pure: `now` decides whether a termination date has passed.
 */
export class RosterRowCollector {
  private readonly people: RosterPerson[] = [];
  private readonly excluded: RosterPerson[] = [];
  private readonly problems: RowProblem[] = [];
  private readonly firstLineOf = new Map<string, number>();
  private readonly statuses: ReadonlySet<string>;
  private readonly departments: ReadonlySet<string>;
  private readonly locations: ReadonlySet<string>;
  private rowCount = 0;

  constructor(
    private readonly columns: ResolvedColumns,
    include: IncludeRules,
    private readonly now: Date,
  ) {
    this.statuses = lowerSet(include.statuses);
    this.departments = lowerSet(include.departments);
    this.locations = lowerSet(include.locations);
  }

  add(line: number, cells: Cells): void {
    this.rowCount += 1;
    const employeeId = cell(cells, this.columns, "employeeId");
    const who = employeeId === undefined ? {} : { employeeId };
    const raw = cell(cells, this.columns, "profileUrl");
    if (raw === undefined) {
      this.problems.push({ line, reason: "missing-url", message: "no profile URL", ...who });
      return;
    }
    if (FORMULA.test(raw)) {
      this.problems.push({
        line,
        reason: "formula-cell",
        message: `the profile URL cell holds a spreadsheet formula (${clip(raw)}); it is treated as text and never evaluated`,
        ...who,
      });
      return;
    }
    const canonical = canonicalProfileUrl(raw);
    if (!canonical.ok) {
      const reason = canonical.reason === "opaque-id" ? "opaque-id-url" : "invalid-url";
      this.problems.push({ line, reason, message: canonical.message, ...who });
      return;
    }
    const person = this.person(line, canonical.url, cells, employeeId);
    const exclusion = this.exclusion(person, cells);
    if (exclusion) {
      this.excluded.push(person);
      this.problems.push({ line, reason: exclusion.reason, message: exclusion.message, ...who });
      return;
    }
    const first = this.firstLineOf.get(person.profileUrl);
    if (first !== undefined) {
      this.problems.push({
        line,
        reason: "duplicate",
        message: `same person as line ${first} (${person.profileUrl}); only the first row is used`,
        ...who,
      });
      return;
    }
    this.firstLineOf.set(person.profileUrl, line);
    this.people.push(person);
  }

  finish(): RosterRows {
    return { people: this.people, excluded: this.excluded, problems: this.problems, rowCount: this.rowCount };
  }

  private person(line: number, profileUrl: string, cells: Cells, employeeId: string | undefined): RosterPerson {
    const c = (field: RosterField) => cell(cells, this.columns, field);
    const joined = [c("firstName"), c("lastName")].filter((p) => p !== undefined).join(" ");
    const fields: Record<string, string | undefined> = {
      employeeId,
      name: c("name") ?? (joined === "" ? undefined : joined),
      email: c("email"),
      department: c("department"),
      title: c("title"),
      location: c("location"),
      managerEmail: c("managerEmail"),
      status: c("status"),
    };
    const person: Record<string, string | number> = { line, index: this.people.length, profileUrl };
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) person[key] = value;
    return person as unknown as RosterPerson;
  }

  private exclusion(
    person: RosterPerson,
    cells: Cells,
  ): { reason: "terminated" | "out-of-scope"; message: string } | undefined {
    const ended = cell(cells, this.columns, "terminationDate");
    if (ended !== undefined) {
      const at = Date.parse(ended);
      if (!Number.isNaN(at) && at <= this.now.getTime()) {
        return { reason: "terminated", message: `terminated on ${ended}` };
      }
    }
    const status = person.status?.toLowerCase();
    if (status !== undefined && !this.statuses.has(status)) {
      return TERMINATED.test(status)
        ? { reason: "terminated", message: `status "${person.status}"` }
        : { reason: "out-of-scope", message: `status "${person.status}" is not in roster.include.statuses` };
    }
    if (this.departments.size > 0 && !this.departments.has(person.department?.toLowerCase() ?? "")) {
      return {
        reason: "out-of-scope",
        message: `department "${person.department ?? ""}" is not in roster.include.departments`,
      };
    }
    if (this.locations.size > 0 && !this.locations.has(person.location?.toLowerCase() ?? "")) {
      return {
        reason: "out-of-scope",
        message: `location "${person.location ?? ""}" is not in roster.include.locations`,
      };
    }
    return undefined;
  }
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
