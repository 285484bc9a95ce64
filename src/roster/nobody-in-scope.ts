import type { RosterRows } from "./roster-rows.js";

/**
 * Why a file with rows leaves nobody in scope, or undefined. Such a file is refused as a whole:
 * reconciling it would read as "everyone left" and archive the whole roster.
 */
export function nobodyInScope(rows: RosterRows): string | undefined {
  if (rows.rowCount === 0 || rows.people.length > 0) return undefined;
  // A short hint, not the file: two lines' problems, each cut short (RosterFileError masks what
  // looks like a secret in them; a file of `KEY=value` lines fails here).
  const examples = rows.problems
    .slice(0, 2)
    .map((p) => `line ${p.line}: ${p.message.length > 80 ? `${p.message.slice(0, 77)}...` : p.message}`)
    .join("; ");
  if (rows.excluded.length === 0) {
    return (
      `none of its ${rows.rowCount} rows has a usable profile URL (${examples}). ` +
      "Check that the profile URL column holds https://www.linkedin.com/in/<name> links and that every line uses the header's delimiter"
    );
  }
  const terminated = rows.problems.filter((p) => p.reason === "terminated").length;
  return (
    `none of its ${rows.rowCount} rows is in scope (${terminated} terminated, ${rows.excluded.length - terminated} out of scope; ${examples}). ` +
    "Check roster.include (statuses, departments, locations) and the status column"
  );
}
