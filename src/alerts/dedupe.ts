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

/** How far ahead of our clock a detection time may be and still move a cursor (clock skew). */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/**
 * The new cursor of a lens: the latest `detectedAt` handled, never moving backwards, and never past
 * `limitMs` (now plus clock skew): one change dated 9999-12-31 would otherwise stop the lens for good.
 */
export function nextCursor(
  current: string | undefined,
  handled: ReadonlyArray<{ readonly detectedAt: string }>,
  limitMs = Number.POSITIVE_INFINITY,
): string | undefined {
  let best = current;
  let bestMs = current === undefined ? Number.NEGATIVE_INFINITY : Date.parse(current);
  for (const item of handled) {
    const ms = Date.parse(item.detectedAt);
    if (!Number.isNaN(ms) && ms > bestMs && ms <= limitMs) {
      best = new Date(ms).toISOString();
      bestMs = ms;
    }
  }
  return best;
}

/**
 * Where a lens's polling starts: its cursor, or `lookbackStart` on the first poll and when the stored
 * cursor is unreadable or beyond `limitMs` (written by an older version from a far-future change);
 * replaying the look-back is safe because handled changes are deduped.
 */
export function pollStart(
  cursor: string | undefined,
  lookbackStart: string,
  limitMs: number,
): { since: string; reason?: "first-poll" | "cursor-in-future" | "cursor-unreadable" } {
  if (cursor === undefined) return { since: lookbackStart, reason: "first-poll" };
  const ms = Date.parse(cursor);
  if (Number.isNaN(ms)) return { since: lookbackStart, reason: "cursor-unreadable" };
  if (ms > limitMs) return { since: lookbackStart, reason: "cursor-in-future" };
  return { since: cursor };
}
