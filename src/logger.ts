import { type DestinationStream, type Logger, pino } from "pino";

export type { Logger } from "pino";

/**
 * Paths pino censors wherever they appear in a log object, in case a secret reaches a log call
 * as a field. Values are also scrubbed as text (see `secretScrubber`), which covers secrets
 * inside error messages and stacks.
 */
const REDACT_PATHS = [
  "apiKey",
  "key",
  "token",
  "secret",
  "secrets",
  "appToken",
  "signingSecret",
  "authorization",
  "Authorization",
  "*.apiKey",
  "*.key",
  "*.token",
  "*.secret",
  "*.secrets",
  "*.appToken",
  "*.signingSecret",
  "*.authorization",
  "*.Authorization",
  "headers.authorization",
  "*.headers.authorization",
  "config.api.key",
  "config.slack.token",
  "config.alerts.webhook.secrets",
  "config.slack.appToken",
  "config.slack.interactivity.signingSecret",
];

const CENSOR = "[redacted]";

/** Replaces every occurrence of each known secret in a string. Secrets shorter than 6 chars are ignored (too likely to collide). */
export function secretScrubber(secrets: readonly string[]): (text: string) => string {
  const usable = [...new Set(secrets.filter((s) => s.length >= 6))].sort((a, b) => b.length - a.length);
  if (usable.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const secret of usable) out = out.split(secret).join(CENSOR);
    return out;
  };
}

export interface CreateLoggerOptions {
  readonly level?: string;
  /** Concrete secret values to scrub from every line (API key, Slack token, webhook secrets). */
  readonly secrets?: readonly string[];
  /** Where lines go; stdout by default. Tests pass a capture stream. */
  readonly destination?: DestinationStream;
  readonly base?: Record<string, unknown>;
}

/**
 * The process logger: pino JSON, key-path redaction, and a last-line scrub of secret values so
 * that a secret inside an error message or a URL never reaches the output.
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const scrub = secretScrubber(options.secrets ?? []);
  const target = options.destination ?? pino.destination({ dest: 1, sync: true });
  const scrubbing: DestinationStream = {
    write(line: string) {
      target.write(scrub(line));
    },
  };
  return pino(
    {
      level: options.level ?? "info",
      base: options.base ?? { name: "retention-sync" },
      redact: { paths: REDACT_PATHS, censor: CENSOR },
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    scrubbing,
  );
}

/** A logger that writes nothing, for pure-code tests and library use. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
