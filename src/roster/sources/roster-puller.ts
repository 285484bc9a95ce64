import type { Config } from "../../config/schema.js";
import type { Logger } from "../../logger.js";
import { observedPull, type PullExport } from "./observed-pull.js";
import { pullDirFor, rosterSource, type SourceContext } from "./open-source.js";
import type { PullEvents } from "./pull-events.js";

/**
 * The configured pull, timed, logged and told to `events`: what reconcile calls once per run when
 * `roster.source` is not `file`. Undefined for a file source.
 */
export function rosterPuller(
  config: Config,
  env: NodeJS.ProcessEnv,
  logger?: Logger,
  events?: PullEvents,
  seams: Partial<Pick<SourceContext, "http" | "now" | "pullDir">> = {},
): PullExport | undefined {
  const source = rosterSource(config.roster.source, { env, pullDir: pullDirFor(config), ...seams });
  if (source === undefined) return undefined;
  return observedPull(source, logger, events);
}

/** "roster file /data/x.csv" or "the bamboohr source": what a message calls the export's origin. */
export function rosterOrigin(config: Config): string | undefined {
  if (config.roster.source.type !== "file") return `the roster source ${config.roster.source.type}`;
  return config.roster.file === undefined ? undefined : `roster file ${config.roster.file}`;
}
