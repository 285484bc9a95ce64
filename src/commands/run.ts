import { startConfiguredDaemon } from "../app/configured-daemon.js";
import { loadConfig } from "../config/load-config.js";
import { EXIT_OK, type ExitCode } from "../errors.js";
import { CONFIG_FLAG, type CommandIO, parseCommandFlags, writeLine } from "./command-io.js";

function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return new Promise(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/** `retention-sync run [--config PATH]`: the daemon, until SIGTERM or SIGINT. */
export async function run(io: CommandIO): Promise<ExitCode> {
  const { values } = parseCommandFlags("run", io, { ...CONFIG_FLAG });
  const config = loadConfig({ ...(values.config !== undefined ? { file: values.config } : {}), env: io.env });
  const configured = await startConfiguredDaemon(config, io);
  const refused = await Promise.race([untilAborted(io.signal).then(() => undefined), configured.settingsRefused]);
  await configured.stop(refused ? "the service refused the settings" : "signal received");
  if (refused) {
    // Exit 2 like every command: an orchestrator shows the crash, the last line names the fix.
    writeLine(io.stderr, `retention-sync: error: ${refused.message}`);
    return refused.exitCode;
  }
  // An unclean stop left its work in the journal and outbox for the next start: still a normal exit.
  return EXIT_OK;
}
