import { createLogger, type Logger } from "../../src/logger.js";

/** A real process logger (same redaction and scrubbing) whose JSON lines stay in memory. */
export interface CapturedLogs {
  readonly logger: Logger;
  /** Raw output lines, in order. */
  readonly lines: string[];
  /** Every line joined with newlines: handy for `not.toContain(secret)`. */
  text(): string;
  /** Every line parsed as JSON (throws if a line is not valid JSON). */
  records(): Array<Record<string, unknown>>;
}

export function captureLogs(options: { level?: string; secrets?: readonly string[] } = {}): CapturedLogs {
  const lines: string[] = [];
  const logger = createLogger({
    level: options.level ?? "trace",
    secrets: options.secrets ?? [],
    destination: {
      write(chunk: string) {
        for (const line of chunk.split("\n")) if (line.length > 0) lines.push(line);
      },
    },
  });
  return {
    logger,
    lines,
    text: () => lines.join("\n"),
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
