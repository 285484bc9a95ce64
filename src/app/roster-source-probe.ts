import { type Every, everyInterval } from "../alerts/hris-source.js";
import type { Config } from "../config/schema.js";
import { RosterFileError, RosterSourceAuthError } from "../errors.js";
import type { Logger } from "../logger.js";
import { readRoster, rosterReadOptions } from "../roster/read-roster.js";
import type { PullExport } from "../roster/sources/observed-pull.js";

/** How often a roster file that could not be read at start is tried again, until it reads. */
export const ROSTER_PROBE_RETRY_MS = 60_000;

export interface RosterProbeDeps {
  readonly roster: Config["roster"];
  /** The roster file when the source is `file`. */
  readonly file?: string | undefined;
  /** The pull when the source is an HRIS (`roster.source`). */
  readonly pullExport?: PullExport | undefined;
  readonly logger: Logger;
  /**
   * The needs-operator note (/readyz, metric): a sentence naming the source and the kind of problem
   * (never a line of the file: /readyz answers anyone who can reach the ops port), or undefined
   * once the source reads.
   */
  readonly onProblem: (note: string | undefined) => void;
  /** Tests drive the retry timer instead of waiting. */
  readonly every?: Every | undefined;
}

/**
 * The roster source, read once at start: a wrong path, an unreadable file or an HRIS that refuses
 * the credential would otherwise show nowhere until the first scheduled reconcile (by default the
 * next night), while alerts flow and /readyz says ready. A file that fails is read again every
 * minute until it reads; a pull is tried once (the next reconcile pulls again and clears the note).
 * A pull that failed for another reason (an outage) is left to the reconcile schedule.
 */
export function probeRosterSource(deps: RosterProbeDeps): { stop(): void } {
  let stopRetry: (() => void) | undefined;
  const stop = () => {
    stopRetry?.();
    stopRetry = undefined;
  };
  const attempt = async (): Promise<boolean> => {
    try {
      if (deps.pullExport) await deps.pullExport();
      else if (deps.file) await readRoster(rosterReadOptions(deps.roster, deps.file, new Date()));
      deps.onProblem(undefined);
      return true;
    } catch (error) {
      const note = problemNote(error);
      if (note !== undefined) {
        deps.logger.error({ err: error }, `roster source unusable at start: ${note}`);
        deps.onProblem(note);
      }
      return note === undefined;
    }
  };
  void attempt().then((fine) => {
    if (fine || deps.pullExport || !deps.file) return;
    stopRetry = (deps.every ?? everyInterval)(ROSTER_PROBE_RETRY_MS, async () => {
      if (await attempt()) stop();
    });
  });
  return { stop };
}

/** The note for a problem only an operator fixes; undefined for anything that may cure itself. */
function problemNote(error: unknown): string | undefined {
  if (error instanceof RosterFileError) {
    return `the roster file ${error.file} cannot be used (${error.problem}); reconciliation cannot run until it is fixed, the daemon's log and retention-sync check say why`;
  }
  if (error instanceof RosterSourceAuthError) return `${error.message}; reconciliation cannot run until it is fixed`;
  return undefined;
}
