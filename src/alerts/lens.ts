/**
 * The two ways the service reads the same signals (spec 1): the own roster (retention) and a
 * competitor workspace (poaching). A lens is also the unit of polling: one cursor per lens.
 */
export type Lens =
  | { readonly kind: "retention"; readonly organizationId: number }
  | {
      readonly kind: "poaching";
      readonly organizationId: number;
      readonly competitor: { readonly id: number; readonly name: string };
    };

export type LensKind = Lens["kind"];

/** Stable store key of a lens (cursor namespace): `retention:<org>` or `poaching:<org>`. */
export function lensKey(lens: Lens): string {
  return `${lens.kind}:${lens.organizationId}`;
}

/** A short human label: "Retention" or "Poaching · Acme Corp". */
export function lensLabel(lens: Lens): string {
  return lens.kind === "retention" ? "Retention" : `Poaching · ${lens.competitor.name}`;
}
