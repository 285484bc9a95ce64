import type { RetentionClient } from "../api/client.js";
import type { Lens } from "./lens.js";

export type LensListClient = Pick<RetentionClient, "me">;

/** How long a lens list read from the service is used before a pass reads it again. */
export const LENS_LIST_REFRESH_MS = 5 * 60_000;

/**
 * The lenses right now: the own company plus every competitor workspace reachable through the key,
 * both from `GET /me` (spec 2.2), one request (`GET /competitors` would add the tracked counts, which
 * polling does not need).
 */
export async function currentLenses(client: LensListClient): Promise<Lens[]> {
  const me = await client.me();
  return [
    { kind: "retention", organizationId: me.organization.id },
    ...me.competitors.map(
      (c): Lens => ({
        kind: "poaching",
        organizationId: c.id,
        competitor: { id: c.id, name: c.name ?? `Competitor #${c.id}` },
      }),
    ),
  ];
}

/**
 * The lens list kept across poll passes. The own organization and the competitor workspaces
 * almost never change, yet reading them costs a request of the shared API budget on every pass; so a list is used until it is `refreshMs` old (by the pass's clock, not the wall clock),
 * and read again at once after `invalidate` (a lens failed to read: its workspace may be gone).
 * A failed read throws, so the pass fails as it would without the cache: no stale list is used.
 */
export class LensList {
  private kept: { readonly lenses: readonly Lens[]; readonly readAtMs: number } | undefined;
  private readonly refreshMs: number;

  constructor(
    private readonly client: LensListClient,
    options: { readonly refreshMs?: number } = {},
  ) {
    this.refreshMs = options.refreshMs ?? LENS_LIST_REFRESH_MS;
  }

  /** The lenses of a pass at `nowMs`: the kept list while it is younger than the refresh interval, else read again. */
  async current(nowMs: number): Promise<readonly Lens[]> {
    const kept = this.kept;
    // A clock that went back makes the list stale too: reading it again is never wrong.
    if (kept && nowMs >= kept.readAtMs && nowMs - kept.readAtMs < this.refreshMs) return kept.lenses;
    this.kept = undefined;
    const lenses = await currentLenses(this.client);
    this.kept = { lenses, readAtMs: nowMs };
    return lenses;
  }

  /** The next pass reads the list again. */
  invalidate(): void {
    this.kept = undefined;
  }
}
