/** Reading one field of a row: cells as the CSV and JSON readers hand them over. */
import type { ResolvedColumns, RosterField } from "./roster-columns.js";

/** A JSON value that is not text (an object or a list) where a cell was expected. */
export interface NonText {
  readonly nonText: "an object" | "a list";
}
export type Cell = string | NonText | undefined;
export type Cells = readonly Cell[];

/** The field's first column holding something: text that is not blank, or a JSON object or list. */
export function rawCell(cells: Cells, columns: ResolvedColumns, field: RosterField): Cell {
  const indexes = columns[field];
  if (indexes === undefined) return undefined;
  for (const index of indexes) {
    const value = cells[index];
    if (value !== undefined && (typeof value !== "string" || value.trim() !== "")) return value;
  }
  return undefined;
}

export function cell(cells: Cells, columns: ResolvedColumns, field: RosterField): string | undefined {
  const value = rawCell(cells, columns, field);
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** A cheap first look (one character) before the regular expression, for the 99.9 % of plain cells. */
export function mayBeFormula(value: string): boolean {
  const first = value.charCodeAt(0);
  // = @ + - and white space (a formula may hide behind leading blanks)
  return first === 61 || first === 64 || first === 43 || first === 45 || first <= 32;
}

/** Names a formula without echoing it: `HYPERLINK`, or the character it starts with. */
export function formulaLabel(value: string): string {
  const name = /^[=+\-@]\s*([A-Za-z_][A-Za-z0-9_.]{0,30})\s*\(/.exec(value)?.[1];
  return name === undefined ? `starting with "${value[0] ?? ""}"` : `${name.toUpperCase()}(...)`;
}
