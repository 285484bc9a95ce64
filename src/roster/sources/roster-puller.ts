import type { Config } from "../../config/schema.js";
import type { Metrics } from "../../daemon/metrics.js";
import type { Logger } from "../../logger.js";
import { observedPull, type PullExport } from "./observed-pull.js";
import { pullDirFor, rosterSource, type SourceContext } from "./open-source.js";

/**
 * The configured pull, timed, counted and logged: what reconcile calls once per run when
 * `roster.source` is not `file`. Undefined for a file source.
 */
export function rosterPuller(
  config: Config,
  env: NodeJS.ProcessEnv,
  logger?: Logger,
  metrics?: Metrics,
  seams: Partial<Pick<SourceContext, "http" | "now" | "pullDir">> = {},
): PullExport | undefined {
  const source = rosterSource(config.roster.source, { env, pullDir: pullDirFor(config), ...seams });
  if (source === undefined) return undefined;
  return observedPull(
    source,
    logger,
    metrics && {
      pulled(type, outcome, seconds) {
        metrics.rosterPulls.inc({ source: type, outcome });
        metrics.rosterPullSeconds.observe({ source: type }, seconds);
      },
    },
  );
}

/** "roster file /data/x.csv" or "the bamboohr source": what a message calls the export's origin. */
export function rosterOrigin(config: Config): string | undefined {
  if (config.roster.source.type !== "file") return `the roster source ${config.roster.source.type}`;
  return config.roster.file === undefined ? undefined : `roster file ${config.roster.file}`;
}
