/**
 * Dedupe decisions. A change has one identity for both paths (`chg:<change id>`, the key of the
 * API client's ChangeItem); a webhook event also has its own id (`evt_<change_id>_<n>`), stable
 * across the service's retries.
 */

/** Store key of a change identity. Poller and webhook receiver share it. */
export function changeKeyOf(changeId: number): string {
  return `chg:${changeId}`;
}

/** Store key of a webhook event id. */
export function eventKeyOf(eventId: string): string {
  return `evt:${eventId}`;
}

/** The change id inside an event id `evt_<change_id>_<n>`, for reduced payloads that carry no change id. */
export function changeIdFromEventId(eventId: string): number | undefined {
  const match = /^evt_(\d+)_\d+$/.exec(eventId);
  if (!match) return undefined;
  const id = Number(match[1]);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

export interface DedupeResult<T> {
  readonly fresh: T[];
  /** Items already handled earlier, or repeated inside this batch (pages shift while being drained). */
  readonly duplicates: number;
}

/**
 * Keeps, in order, each item none of whose keys was handled before or seen earlier in `items`. An
 * item can have several identities (a webhook event: its event id and its change id).
 */
export function selectFresh<T>(
  items: readonly T[],
  keysOf: (item: T) => readonly string[],
  alreadyHandled: ReadonlySet<string>,
): DedupeResult<T> {
  const seen = new Set<string>();
  const fresh: T[] = [];
  let duplicates = 0;
  for (const item of items) {
    const keys = keysOf(item);
    if (keys.some((key) => seen.has(key) || alreadyHandled.has(key))) {
      duplicates += 1;
      continue;
    }
    for (const key of keys) seen.add(key);
    fresh.push(item);
  }
  return { fresh, duplicates };
}

/** Changes in handling order: oldest first; ties keep a stable order by key. */
export function oldestFirst<T extends { readonly detectedAt: string; readonly key: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => {
    const byTime = Date.parse(a.detectedAt) - Date.parse(b.detectedAt);
    if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
    return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
  });
}
