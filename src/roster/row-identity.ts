/**
 * Who an HRIS row is, besides its profile URL. When a row's URL breaks, its employee id and work
 * email are all that still tie it to the person on the service it belongs to; the name and
 * department of their last row are how a report names someone who is no longer in the file.
 */
export interface RowIdentity {
  readonly employeeId?: string;
  /** Lower-cased: HRIS exports change the case of addresses between runs. */
  readonly email?: string;
  /** The HRIS name on their last row. */
  readonly name?: string;
  readonly department?: string;
}

/** The identity of a row (values already trimmed, formulas already dropped), without empty fields. */
export function rowIdentity(employeeId: string | undefined, email: string | undefined): RowIdentity {
  const mail = email?.trim().toLowerCase();
  const id = employeeId === "" ? undefined : employeeId;
  // Object literals rather than spreads: this runs for every problem row.
  if (mail === undefined || mail === "") return id === undefined ? {} : { employeeId: id };
  return id === undefined ? { email: mail } : { employeeId: id, email: mail };
}

/** A usable row of the file: its canonical URL and what identifies it. */
export interface IdentifiedRow {
  readonly profileUrl: string;
  readonly employeeId?: string | undefined;
  readonly email?: string | undefined;
  readonly name?: string | undefined;
  readonly department?: string | undefined;
}

const text = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : value;

/**
 * A row's identity over the one remembered for its URL: a field the row leaves empty keeps its
 * remembered value. Undefined when neither says anything. An unchanged identity is returned as it
 * was, so that a remembered object lives on instead of a copy.
 */
export function mergedIdentity(row: IdentifiedRow, before: RowIdentity | undefined): RowIdentity | undefined {
  const employeeId = text(row.employeeId) ?? before?.employeeId;
  const email = text(row.email)?.trim().toLowerCase() ?? before?.email;
  const name = text(row.name) ?? before?.name;
  const department = text(row.department) ?? before?.department;
  if (employeeId === undefined && email === undefined && name === undefined && department === undefined) {
    return undefined;
  }
  if (
    before !== undefined &&
    before.employeeId === employeeId &&
    before.email === email &&
    before.name === name &&
    before.department === department
  ) {
    return before;
  }
  const out: { -readonly [K in keyof RowIdentity]: RowIdentity[K] } = {};
  if (employeeId !== undefined) out.employeeId = employeeId;
  if (email !== undefined) out.email = email;
  if (name !== undefined) out.name = name;
  if (department !== undefined) out.department = department;
  return out;
}
