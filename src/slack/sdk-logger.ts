import type { LogLevel, Logger as SlackLogger } from "@slack/web-api";
import type { Logger } from "../logger.js";

type OurLevel = "trace" | "debug" | "info" | "warn";

/**
 * A Slack SDK logger (the Web API's and Socket Mode's share one interface) over ours, each SDK level
 * written at the level its caller chooses: the SDKs log what their callers already report once, with
 * the fix, so they speak a level or two lower. The SDK's own level is kept for its `getLevel` only.
 */
export function sdkLogger(
  logger: Logger,
  levels: Readonly<Record<"debug" | "info" | "warn" | "error", OurLevel>>,
  initial: LogLevel,
): SlackLogger {
  let level = initial;
  const at =
    (ours: OurLevel) =>
    (...msg: unknown[]) =>
      logger[ours](msg.map(String).join(" "));
  return {
    debug: at(levels.debug),
    info: at(levels.info),
    warn: at(levels.warn),
    error: at(levels.error),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
