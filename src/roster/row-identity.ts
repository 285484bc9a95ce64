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
  return {
    ...(employeeId === undefined || employeeId === "" ? {} : { employeeId }),
    ...(mail === undefined || mail === "" ? {} : { email: mail }),
  };
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
  const keep = new Set([...onService.map((p) => p.profileUrl), ...rows.map((r) => r.profileUrl)]);
  const out: Record<string, RowIdentity> = {};
  for (const [url, identity] of Object.entries(previous)) if (keep.has(url)) out[url] = identity;
  for (const row of rows) {
    const fresh = rowIdentity(row.employeeId, row.email);
    const merged = { ...out[row.profileUrl], ...fresh };
    if (merged.employeeId !== undefined || merged.email !== undefined) out[row.profileUrl] = merged;
  }
  return out;
}
