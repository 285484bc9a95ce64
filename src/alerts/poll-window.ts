/**
 * Cursor decisions of a poll pass, pure (the clock is passed in). A lens's stored cursor is its
 * high-water mark: the service's feed has been read up to there. Each pass reads from the cursor
 * less an overlap (`alerts.cursorOverlap`), so a change the service makes visible after a pass,
 * dated before the cursor (detection lag), is still read; the ledger drops what was handled.
 */

/** How far ahead of our clock a detection time may be and still move a cursor (clock skew). */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/**
 * A pass that read its lens to the end moves the cursor at least to its start less this: the feed
 * was read up to then, whatever it held. The margin covers a service clock a little behind ours;
 * the overlap covers the rest.
 */
export const PASS_START_MARGIN_MS = 60_000;

export type PollStartReason = "first-poll" | "cursor-in-future" | "cursor-unreadable";

export interface PollWindow {
  /** `since` of the `/changes` query. */
  readonly since: string;
  /** The stored cursor when it can be trusted; undefined on a first poll or when it was dropped. */
  readonly cursor: string | undefined;
  /** Why the look-back was used instead of the cursor. */
  readonly reason?: PollStartReason;
  /**
   * Where the look-back began, while it still bounds the window (the cursor less the overlap is
   * before it): the pass stores it with its cursor so the next pass does not read further back.
   */
  readonly lookbackStart?: string;
}

/**
 * Where a lens's pass reads from: its cursor less the overlap, or `now - lookback` on the first
 * poll and when the stored cursor is unreadable or beyond now plus clock skew (written from a
 * far-future change by an older version). Replaying is safe: handled changes are deduped.
 *
 * The overlap never reaches back before where the look-back began (`storedLookbackStart`): the
 * passes right after a first poll would otherwise post the changes of the overlap that the
 * look-back left out on purpose (10 minutes of them with a 2-minute look-back).
 */
export function pollWindow(input: {
  readonly stored: string | undefined;
  readonly storedLookbackStart?: string | undefined;
  readonly nowMs: number;
  readonly lookbackMs: number;
  readonly overlapMs: number;
}): PollWindow {
  const { stored, nowMs } = input;
  const lookback = new Date(nowMs - input.lookbackMs).toISOString();
  const fromLookback = (reason: PollStartReason): PollWindow => ({
    since: lookback,
    cursor: undefined,
    reason,
    lookbackStart: lookback,
  });
  if (stored === undefined) return fromLookback("first-poll");
  const ms = Date.parse(stored);
  if (Number.isNaN(ms)) return fromLookback("cursor-unreadable");
  if (ms > nowMs + MAX_CLOCK_SKEW_MS) return fromLookback("cursor-in-future");
  const overlapped = ms - input.overlapMs;
  const floor = input.storedLookbackStart === undefined ? Number.NaN : Date.parse(input.storedLookbackStart);
  // A look-back start beyond now is not one this daemon wrote (a clock set back): no floor.
  if (!Number.isNaN(floor) && floor > overlapped && floor <= nowMs) {
    const since = new Date(floor).toISOString();
    return { since, cursor: stored, lookbackStart: since };
  }
  return { since: new Date(overlapped).toISOString(), cursor: stored };
}

/** The cursor namespace's key of where a lens's look-back began (kept next to its cursor). */
export function lookbackStartKey(lensCursorKey: string): string {
  return `${lensCursorKey}:lookback-start`;
}

/**
 * The cursor a pass that read its lens to the end commits: the latest of the cursor it started
 * from, the newest `detectedAt` it read (never past now plus clock skew: one change dated
 * 9999-12-31 would otherwise stop the lens for good) and its start less `PASS_START_MARGIN_MS`.
 * So every successful pass advances, an empty one too, and the cursor never moves backwards.
 */
export function passCursor(input: {
  readonly cursor: string | undefined;
  readonly items: ReadonlyArray<{ readonly detectedAt: string }>;
  readonly passStartMs: number;
  readonly nowMs: number;
}): string {
  const limitMs = input.nowMs + MAX_CLOCK_SKEW_MS;
  let best = input.passStartMs - PASS_START_MARGIN_MS;
  const current = input.cursor === undefined ? Number.NaN : Date.parse(input.cursor);
  if (!Number.isNaN(current) && current > best && current <= limitMs) best = current;
  for (const item of input.items) {
    const ms = Date.parse(item.detectedAt);
    if (!Number.isNaN(ms) && ms > best && ms <= limitMs) best = ms;
  }
  return new Date(best).toISOString();
}
