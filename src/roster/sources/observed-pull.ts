import { RosterSourceAuthError } from "../../errors.js";
import type { Logger } from "../../logger.js";
import type { PullEvents, PullOutcome } from "./pull-events.js";
import type { PulledExport, RosterSource } from "./roster-source.js";

/** Pulls the export once for a run; what reconcile, `check` and the daemon call. */
export type PullExport = (signal?: AbortSignal) => Promise<PulledExport>;

/** A source's pull, timed, counted and logged (origin and facts only: never a credential). */
export function observedPull(source: RosterSource, logger?: Logger, events?: PullEvents): PullExport {
  return async (signal) => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const pulled = await source.pull(signal);
      const outcome: PullOutcome = pulled.facts.notModified === true ? "not_modified" : "ok";
      events?.emit("pulled", { source: source.type, outcome, seconds: seconds() });
      logger?.info(
        {
          component: "roster-source",
          source: source.type,
          origin: pulled.origin,
          facts: pulled.facts,
          seconds: seconds(),
        },
        "roster export pulled",
      );
      return pulled;
    } catch (error) {
      const outcome: PullOutcome = error instanceof RosterSourceAuthError ? "refused" : "failed";
      events?.emit("pulled", { source: source.type, outcome, seconds: seconds() });
      logger?.warn(
        { component: "roster-source", source: source.type, err: error },
        "roster pull failed: nothing reconciled",
      );
      throw error;
    }
  };
}
