/**
 * Who an HRIS row is, besides its profile URL. When a row's URL breaks, its employee id and work
 * email are all that still tie it to the person on the service it belongs to.
 */
export interface RowIdentity {
  readonly employeeId?: string;
  /** Lower-cased: HRIS exports change the case of addresses between runs. */
  readonly email?: string;
}

/** The identity of a row (values already trimmed, formulas already dropped), without empty fields. */
export function rowIdentity(employeeId: string | undefined, email: string | undefined): RowIdentity {
  const mail = email?.trim().toLowerCase();
  const id = employeeId === "" ? undefined : employeeId;
  // Object literals rather than spreads: this runs for every row of 100,000-row files.
  if (mail === undefined || mail === "") return id === undefined ? {} : { employeeId: id };
  return id === undefined ? { email: mail } : { employeeId: id, email: mail };
}

/** A usable row of the file: its canonical URL and what identifies it. */
export interface IdentifiedRow {
  readonly profileUrl: string;
  readonly employeeId?: string | undefined;
  readonly email?: string | undefined;
}

/**
 * The identities after a new file: each row's identity under its profile URL (a field the row
 * leaves empty keeps its remembered value). Identities of URLs neither in the file nor on the
 * service are dropped: only people on the service can be archived, and leavers must not make the
 * memory grow forever. Pure.
 */
export function rememberIdentities(
  previous: Readonly<Record<string, RowIdentity>>,
  rows: readonly IdentifiedRow[],
  onService: readonly { readonly profileUrl: string }[],
): Record<string, RowIdentity> {
  const out: Record<string, RowIdentity> = {};
  const remembered = Object.keys(previous);
  if (remembered.length > 0) {
    const keep = new Set<string>();
    for (const person of onService) keep.add(person.profileUrl);
    for (const row of rows) keep.add(row.profileUrl);
    for (const url of remembered) {
      const identity = previous[url];
      if (identity !== undefined && keep.has(url)) out[url] = identity;
    }
  }
  for (const row of rows) {
    const before = out[row.profileUrl];
    const employeeId = row.employeeId === "" ? undefined : row.employeeId;
    const merged = rowIdentity(employeeId ?? before?.employeeId, row.email?.trim() ? row.email : before?.email);
    if (merged.employeeId !== undefined || merged.email !== undefined) out[row.profileUrl] = merged;
  }
  return out;
}
