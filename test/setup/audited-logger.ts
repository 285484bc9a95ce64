/**
 * Stand-ins for src/logger.ts's `createLogger` and `silentLogger` (installed by log-audit.ts):
 * every logger runs at trace and every line it writes, after createLogger's own redaction and
 * scrubbing, goes to the audit; the original destination still gets only the lines at or above
 * the level asked for, so what tests and users see does not change.
 */
import { type DestinationStream, type Logger, pino } from "pino";
import type { CreateLoggerOptions } from "../../src/logger.js";
import { registerSecret } from "../helpers/known-secrets.js";
import { countLogger, recordLogChunk } from "../helpers/log-audit.js";

type CreateLogger = (options?: CreateLoggerOptions) => Logger;

const THRESHOLDS: Readonly<Record<string, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Number.POSITIVE_INFINITY,
};

/** pino writes `{"level":NN,` first; a chunk in another shape is passed on as before. */
function levelValue(chunk: string): number {
  if (!chunk.startsWith('{"level":')) return Number.POSITIVE_INFINITY;
  const value = Number(chunk.slice(9, 11));
  return Number.isNaN(value) ? Number.POSITIVE_INFINITY : value;
}

function secretLabel(value: string): string {
  if (value.startsWith("xox")) return "Slack token given to createLogger";
  if (value.startsWith("whsec_")) return "webhook secret given to createLogger";
  return "secret given to createLogger (API key?)";
}

export function auditedCreateLogger(original: CreateLogger): CreateLogger {
  return (options = {}) => {
    const threshold = THRESHOLDS[options.level ?? "info"];
    // An unknown level: leave the original to reject it exactly as before.
    if (threshold === undefined) return original(options);
    for (const secret of options.secrets ?? []) registerSecret(secret, secretLabel(secret));
    countLogger();
    const target = options.destination ?? pino.destination({ dest: 1, sync: true });
    const tee: DestinationStream = {
      write(chunk: string) {
        recordLogChunk(chunk);
        if (levelValue(chunk) >= threshold) target.write(chunk);
      },
    };
    return original({ ...options, level: "trace", destination: tee });
  };
}

/** The original is `pino({ level: "silent" })`: same options, at trace, into the audit only. */
export function auditedSilentLogger(): Logger {
  countLogger();
  return pino({ level: "trace" }, { write: recordLogChunk });
}
