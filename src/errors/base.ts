/** The exit codes, the base class every error of the hierarchy extends, and the errors of usage and config. */

export const EXIT_OK = 0;
export const EXIT_RUNTIME = 1;
export const EXIT_USAGE = 2;
export const EXIT_PARTIAL = 3;
export type ExitCode = typeof EXIT_OK | typeof EXIT_RUNTIME | typeof EXIT_USAGE | typeof EXIT_PARTIAL;

/** Base of every error this program raises on purpose. */
export abstract class RetentionSyncError extends Error {
  abstract readonly exitCode: ExitCode;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad command line: unknown command or flag. */
export class UsageError extends RetentionSyncError {
  readonly exitCode = EXIT_USAGE;
}

export interface ConfigIssue {
  /** Dotted path of the offending option, e.g. `roster.maxArchivePercent`, or the env variable. */
  readonly path: string;
  readonly message: string;
}

/** Invalid configuration: every problem at once, each with its path and what is expected. */
export class ConfigError extends RetentionSyncError {
  readonly exitCode = EXIT_USAGE;
  readonly issues: readonly ConfigIssue[];
  constructor(source: string, issues: readonly ConfigIssue[], options?: { cause?: unknown }) {
    const lines = issues.map((i) => `  - ${i.path}: ${i.message}`);
    const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
    super(`Invalid configuration (${source}), ${count}:\n${lines.join("\n")}`, options);
    this.issues = issues;
  }
}

/** Input rejected locally before any request was sent (page size, bulk size, sensitivity...). */
export class LocalValidationError extends RetentionSyncError {
  readonly exitCode = EXIT_USAGE;
  readonly parameter: string;
  constructor(parameter: string, message: string) {
    super(`${parameter}: ${message}`);
    this.parameter = parameter;
  }
}

/**
 * A command's failure restated for the operator: what failed, in the terms of the command, and the
 * fix. The original error is the cause; the exit code is the cause's unless the restatement knows
 * better (an unknown id the operator typed is a usage error, not an outage).
 */
export class ExplainedError extends RetentionSyncError {
  readonly exitCode: ExitCode;
  constructor(message: string, options: { cause: unknown; exitCode?: ExitCode }) {
    super(message, { cause: options.cause });
    this.exitCode = options.exitCode ?? exitCodeOf(options.cause);
  }
}

/** Exit code for anything thrown out of a command. */
export function exitCodeOf(error: unknown): ExitCode {
  return error instanceof RetentionSyncError ? error.exitCode : EXIT_RUNTIME;
}
