import type { Logger } from "./logger.js";
import { type RefusalLine, type RefusalReason, type RefusalSample, RefusalTally } from "./refusal-tally.js";

/** One warn line at the first refusal, then one count per minute at most: a flood cannot fill the disk. */
export const REFUSAL_LOG_WINDOW_MS = 60_000;

export interface RefusalLog {
  /** Counts one refused request (every one reaches `onRefused`); logs it only as the tally says. */
  refuse(sample: RefusalSample): void;
  /** Logs what was counted and not yet logged, and stops the timer (the server closes). */
  close(): void;
}

/**
 * The refusals of one HTTP server (`server`: "ops" or "webhook"), logged through a RefusalTally
 * and counted one by one through `onRefused` (the metric).
 */
export function createRefusalLog(options: {
  readonly server: string;
  readonly logger: Logger;
  readonly onRefused?: ((reason: RefusalReason) => void) | undefined;
  readonly windowMs?: number;
  readonly now?: () => number;
}): RefusalLog {
  const windowMs = options.windowMs ?? REFUSAL_LOG_WINDOW_MS;
  const now = options.now ?? Date.now;
  const tally = new RefusalTally(windowMs, now);
  const windowSeconds = Math.round(windowMs / 1000);
  let timer: NodeJS.Timeout | undefined;

  const write = (lines: readonly RefusalLine[]) => {
    for (const { kind, ...counts } of lines) {
      const fields = { server: options.server, ...counts, windowSeconds };
      if (kind === "first") {
        options.logger.warn(
          fields,
          `${options.server} request refused (${counts.sample.reason}); refusals in the next ${windowSeconds} s are logged as one count`,
        );
      } else {
        options.logger.warn(fields, `${options.server} requests refused after the one logged: ${counts.refused}`);
      }
    }
  };
  // A timer fired a little early finds the window still open and waits again.
  const schedule = () => {
    const endsAt = tally.windowEndsAt;
    if (timer !== undefined || endsAt === undefined) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        write(tally.due());
        schedule();
      },
      Math.max(1, endsAt - now()),
    );
    timer.unref();
  };

  return {
    refuse(sample) {
      options.onRefused?.(sample.reason);
      write(tally.add(sample));
      schedule();
    },
    close() {
      clearTimeout(timer);
      timer = undefined;
      write(tally.drain());
    },
  };
}
