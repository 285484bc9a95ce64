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
  previous: ReadonlyMap<string, RowIdentity>,
  rowLists: ReadonlyArray<readonly IdentifiedRow[]>,
  onService: readonly { readonly profileUrl: string }[],
): Map<string, RowIdentity> {
  const out = new Map<string, RowIdentity>();
  if (previous.size > 0) {
    const keep = new Set<string>();
    for (const person of onService) keep.add(person.profileUrl);
    for (const rows of rowLists) for (const row of rows) keep.add(row.profileUrl);
    for (const [url, identity] of previous) if (keep.has(url)) out.set(url, identity);
  }
  for (const rows of rowLists) {
    for (const row of rows) {
      const before = out.get(row.profileUrl);
      const employeeId = row.employeeId === "" ? undefined : row.employeeId;
      const merged = rowIdentity(employeeId ?? before?.employeeId, row.email?.trim() ? row.email : before?.email);
      if (merged.employeeId === undefined && merged.email === undefined) continue;
      // An unchanged identity keeps the object it had: the fresh copy dies young instead of living on.
      const same = before !== undefined && before.employeeId === merged.employeeId && before.email === merged.email;
      out.set(row.profileUrl, same ? before : merged);
    }
  }
  return out;
}
