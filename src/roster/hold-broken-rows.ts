import { quoteValue } from "./canonical-profile-url.js";
import type { Finding, Who } from "./plan-types.js";
import { ROW_ERROR_REASONS, type RowProblem, type RowProblemReason } from "./roster-rows.js";
import type { RowIdentity } from "./row-identity.js";

/**
 * Problems that can leave a person's own row unusable (or ambiguous) while they are still employed.
 * `terminated` and `out-of-scope` are deliberate exclusions: those people are meant to be archived.
 */
export const HOLDING_REASONS: ReadonlySet<RowProblemReason> = new Set<RowProblemReason>([
  ...ROW_ERROR_REASONS,
  "missing-url",
]);

/** A problem row of this file that carries the identity of an archive candidate. */
export interface HeldRow {
  readonly line: number;
  readonly reason: RowProblemReason;
  readonly by: "employeeId" | "email";
  readonly value: string;
}

/** An archive not done in this run: the person's row is still in the file, broken. */
export interface HeldArchive {
  readonly id: number;
  readonly profileUrl: string;
  readonly tracked: boolean;
  readonly missingExports: number;
  /** Who the memory says they are (their last good row). */
  readonly who?: Who;
  readonly rows: readonly HeldRow[];
}

function indexBy(problems: readonly RowProblem[], key: "employeeId" | "email"): Map<string, RowProblem[]> {
  const out = new Map<string, RowProblem[]>();
  for (const p of problems) {
    const value = p[key];
    if (value === undefined || !HOLDING_REASONS.has(p.reason)) continue;
    const list = out.get(value);
    if (list) list.push(p);
    else out.set(value, [p]);
  }
  return out;
}

/**
 * Which of the problem rows' values (`asked`) the memory holds for more than one profile URL. Only
 * those values are counted: no set of every id or email of a large roster is built.
 */
function shared(
  identities: ReadonlyMap<string, RowIdentity>,
  key: "employeeId" | "email",
  asked: ReadonlyMap<string, unknown>,
): Set<string> {
  const once = new Set<string>();
  const twice = new Set<string>();
  if (asked.size === 0) return twice;
  for (const identity of identities.values()) {
    const value = identity[key];
    if (value === undefined || !asked.has(value)) continue;
    if (once.has(value)) twice.add(value);
    else once.add(value);
  }
  return twice;
}

/**
 * Which problem rows of this file belong to the person remembered under a profile URL, matched by
 * employee id or work email. A value remembered for several profile URLs (a placeholder id such as
 * "N/A", a shared mailbox) identifies no one: matching on it would hold those leavers forever.
 */
export function brokenRowMatcher(
  problems: readonly RowProblem[],
  identities: ReadonlyMap<string, RowIdentity>,
): (profileUrl: string) => HeldRow[] {
  const byKey = { employeeId: indexBy(problems, "employeeId"), email: indexBy(problems, "email") };
  if (byKey.employeeId.size === 0 && byKey.email.size === 0) return () => [];
  const ambiguous = {
    employeeId: shared(identities, "employeeId", byKey.employeeId),
    email: shared(identities, "email", byKey.email),
  };
  return (profileUrl) => {
    const identity = identities.get(profileUrl);
    if (!identity) return [];
    const rows = new Map<number, HeldRow>();
    for (const by of ["employeeId", "email"] as const) {
      const value = identity[by];
      if (value === undefined || ambiguous[by].has(value)) continue;
      for (const p of byKey[by].get(value) ?? []) {
        if (!rows.has(p.line)) rows.set(p.line, { line: p.line, reason: p.reason, by, value });
      }
    }
    return [...rows.values()].sort((a, b) => a.line - b.line);
  };
}

const WHAT: Record<RowProblemReason, string> = {
  "missing-url": "no profile URL",
  "invalid-url": "an invalid profile URL",
  "opaque-id-url": "an opaque-id profile URL (/in/ACoAA...)",
  "formula-cell": "a spreadsheet formula",
  "malformed-row": "no fields",
  duplicate: "the same profile URL as an earlier row",
  "duplicate-id": "an employee id that another row also has",
  terminated: "a termination",
  "out-of-scope": "an out-of-scope status",
};

const whose = (row: HeldRow) => (row.by === "employeeId" ? `employee ${quoteValue(row.value)}` : quoteValue(row.value));

/** Findings past this many are summed up in one: the rows themselves are listed with the row problems. */
export const HELD_FINDINGS_LIMIT = 20;

/** One warning per held archive, in file order, naming the lines and what to do. */
export function heldFindings(held: readonly HeldArchive[]): Finding[] {
  const byLine = [...held].sort((a, b) => (a.rows[0]?.line ?? 0) - (b.rows[0]?.line ?? 0));
  const findings: Finding[] = byLine.slice(0, HELD_FINDINGS_LIMIT).map((h) => {
    const rows = h.rows.map((r) => `line ${r.line}: the row of ${whose(r)} has ${WHAT[r.reason]}`).join("; ");
    const first = h.rows[0];
    const who = h.who?.name !== undefined ? quoteValue(h.who.name) : first ? whose(first) : "this person";
    const fix = h.rows.length > 1 ? "fix the rows, or remove them" : "fix the row, or remove it";
    return {
      kind: "held-for-broken-row",
      severity: "warning",
      message: `${rows}; ${who} is on the roster as ${h.profileUrl} and would be archived (missing from ${h.missingExports} export${h.missingExports === 1 ? "" : "s"}); ${fix} to archive them`,
    };
  });
  const rest = held.length - HELD_FINDINGS_LIMIT;
  if (rest > 0) {
    findings.push({
      kind: "held-for-broken-row",
      severity: "warning",
      message: `${rest} more people not archived because their rows in this file are broken: see the row problems`,
    });
  }
  return findings;
}
