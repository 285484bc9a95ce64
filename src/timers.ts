import { setMaxListeners } from "node:events";

/**
 * Timers that honour any delay. Node's `setTimeout` keeps delays in a signed 32-bit int: anything
 * above 2^31 - 1 ms (about 24.8 days) is replaced by 1 ms, with a warning, so a hostile
 * `Retry-After` or a long configured interval would fire at once, again and again. These helpers
 * chain timers of at most `MAX_TIMER_MS` instead.
 */

/** The longest delay one `setTimeout` honours. */
export const MAX_TIMER_MS = 2_147_483_647;

/** A delay as setTimeout can take it: NaN and negatives are 0; Infinity stays Infinity (never fires). */
function cleanDelay(ms: number): number {
  return Number.isNaN(ms) || ms < 0 ? 0 : ms;
}

/**
 * Calls `fire` once after `ms`, however long that is (chained timers past `MAX_TIMER_MS`).
 * Returns a function that cancels it. `unref` lets the process exit while it waits.
 */
export function startTimer(ms: number, fire: () => void, options: { unref?: boolean } = {}): () => void {
  let remaining = cleanDelay(ms);
  let timer: NodeJS.Timeout | undefined;
  const step = () => {
    const now = Math.min(remaining, MAX_TIMER_MS);
    remaining -= now;
    timer = setTimeout(() => {
      if (remaining > 0) step();
      else fire();
    }, now);
    if (options.unref) timer.unref();
  };
  step();
  return () => clearTimeout(timer);
}

/** Sleeps `ms` (any length). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => {
    startTimer(ms, resolve);
  });
}

/** Sleeps `ms` (any length), waking early (without error) when the signal aborts: shutdown never sits out a wait. */
export function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const cancel = startTimer(ms, done);
    function done() {
      cancel();
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * The controller of the daemon's one shutdown signal. Every channel's pacing wait and every
 * request in flight listens on it at the same time, so its listeners grow with the channels (each
 * manager's DM is a channel of its own), and Node's leak warning at 11 would be a false alarm in
 * the daemon's output. No limit is set: each wait removes its listener when it ends
 * (`sleepUnlessAborted` here, the API caller's back-off).
 */
export function createShutdownController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
