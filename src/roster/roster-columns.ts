import { RosterFileError } from "../errors.js";
import { normalizeName } from "./mapping/field-path.js";

/** The fields a roster row can carry; only `profileUrl` is required. */
export const ROSTER_FIELDS = [
  "profileUrl",
  "employeeId",
  "name",
  "firstName",
  "lastName",
  "email",
  "department",
  "title",
  "location",
  "managerEmail",
  /** The record's status: Active/Inactive, or a flag where true is active. */
  "status",
  /** The employment status or type: Full-Time, Contractor, Terminated... */
  "employmentStatus",
  /** A flag that is true when the person has left (Merge's remote_was_deleted, Gusto's terminated). */
  "left",
  "terminationDate",
] as const;
export type RosterField = (typeof ROSTER_FIELDS)[number];

/** Per field, the header names (CSV) or paths (JSON) to try in order. */
export type FieldMapping = Readonly<Record<RosterField, readonly string[]>>;

/**
 * Which columns (CSV indexes; for JSON, the field's own cell) hold each field, in the mapping's
 * order: a row reads the first of them that holds a value.
 */
export type ResolvedColumns = Partial<Record<RosterField, readonly number[]>>;

/** Header comparison: case-insensitive, ignoring spaces, `_` and `-`. */
export const normalizeHeader = normalizeName;

/** Finds each field's columns in a header row, in the order the mapping lists them. */
export function resolveColumns(headers: readonly string[], fields: FieldMapping): ResolvedColumns {
  const positions = new Map<string, number>();
  headers.forEach((header, index) => {
    const key = normalizeHeader(header);
    if (key !== "" && !positions.has(key)) positions.set(key, index);
  });
  const resolved: Partial<Record<RosterField, number[]>> = {};
  for (const field of ROSTER_FIELDS) {
    const indexes = fields[field]
      .map((candidate) => positions.get(normalizeHeader(candidate)))
      .filter((index): index is number => index !== undefined);
    if (indexes.length > 0) resolved[field] = [...new Set(indexes)];
  }
  return resolved;
}

const SHOWN_HEADERS = 20;

/** Quotes the first names of a header or a record's keys for a message. */
export function shownNames(names: readonly string[]): string {
  const shown = names.slice(0, SHOWN_HEADERS).map((h) => JSON.stringify(h.length > 40 ? `${h.slice(0, 37)}...` : h));
  const more = names.length > SHOWN_HEADERS ? ` and ${names.length - SHOWN_HEADERS} more` : "";
  return `${shown.join(", ")}${more}`;
}

/** The refusal of a file without a profile URL column or key, naming what it does have. */
export function noProfileColumn(
  file: string,
  found: readonly string[],
  fields: FieldMapping,
  mappingName: string,
): RosterFileError {
  return new RosterFileError(
    file,
    `has no profile URL column. Found columns: ${shownNames(found)}. Expected one of (mapping ${mappingName}): ${fields.profileUrl.join(", ")}. ` +
      'Name the LinkedIn column or path in roster.mapping, e.g. mapping: { preset: auto, profileUrl: ["Your Column"] } ' +
      "(a JSON path such as custom_fields[name=LinkedIn].value works too).",
  );
}
