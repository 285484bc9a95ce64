import { type ParseArgsConfig, parseArgs } from "node:util";
import { UsageError } from "../errors.js";
import { startTimer } from "../timers.js";

/** What a command gets from the CLI: its own argv (after the command name) and the process streams. */
export interface CommandIO {
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Aborted on SIGTERM/SIGINT for long-running commands. */
  readonly signal?: AbortSignal;
}

/** `export async function run(io: CommandIO): Promise<ExitCode>` — every module in src/commands/. */
export type CommandModule = { run(io: CommandIO): Promise<number> };

type FlagOptions = NonNullable<ParseArgsConfig["options"]>;

/** `--config PATH` is accepted by every command (it overrides RETENTION_SYNC_CONFIG). */
export const CONFIG_FLAG = { config: { type: "string", short: "c" } } as const satisfies FlagOptions;

/**
 * `parseArgs` for a command's own flags, turning node's parse errors into a UsageError
 * (exit code 2) that names the command.
 */
export function parseCommandFlags<const T extends FlagOptions>(command: string, io: CommandIO, options: T) {
  try {
    return parseArgs({ args: [...io.argv], options, allowPositionals: false, strict: true });
  } catch (error) {
    throw flagError(command, error);
  }
}

/** As `parseCommandFlags`, for a subcommand (`webhooks enable ID`): `args` follow its name, positionals allowed. */
export function parseSubcommandFlags<const T extends FlagOptions>(
  command: string,
  args: readonly string[],
  options: T,
) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw flagError(command, error);
  }
}

function flagError(command: string, error: unknown): UsageError {
  const detail = error instanceof Error ? error.message : String(error);
  const help = command.split(" ")[0] ?? command;
  return new UsageError(`${command}: ${detail}. Run "retention-sync ${help} --help" for usage.`, { cause: error });
}

/** Writes one line to a stream. */
export function writeLine(stream: NodeJS.WritableStream, text = ""): void {
  stream.write(`${text}\n`);
}

/** A long-running command (demo, sandbox) waits here: until the signal (Ctrl-C, SIGTERM) or `seconds`. */
export function untilStopped(signal: AbortSignal | undefined, seconds?: number): Promise<void> {
  return new Promise((resolveStop) => {
    if (seconds !== undefined) startTimer(seconds * 1000, resolveStop, { unref: true });
    if (signal?.aborted) resolveStop();
    signal?.addEventListener("abort", () => resolveStop(), { once: true });
  });
}
