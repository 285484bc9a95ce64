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
}

/**
 * Where a lens's pass reads from: its cursor less the overlap, or `now - lookback` on the first
 * poll and when the stored cursor is unreadable or beyond now plus clock skew (written from a
 * far-future change by an older version). Replaying is safe: handled changes are deduped.
 */
export function pollWindow(input: {
  readonly stored: string | undefined;
  readonly nowMs: number;
  readonly lookbackMs: number;
  readonly overlapMs: number;
}): PollWindow {
  const { stored, nowMs } = input;
  const lookback = new Date(nowMs - input.lookbackMs).toISOString();
  if (stored === undefined) return { since: lookback, cursor: undefined, reason: "first-poll" };
  const ms = Date.parse(stored);
  if (Number.isNaN(ms)) return { since: lookback, cursor: undefined, reason: "cursor-unreadable" };
  if (ms > nowMs + MAX_CLOCK_SKEW_MS) return { since: lookback, cursor: undefined, reason: "cursor-in-future" };
  return { since: new Date(ms - input.overlapMs).toISOString(), cursor: stored };
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
