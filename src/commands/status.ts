import { daemonStatus } from "../app/daemon-status.js";
import { loadConfig } from "../config/load-config.js";
import { EXIT_OK, EXIT_PARTIAL, type ExitCode } from "../errors.js";
import { CONFIG_FLAG, type CommandIO, parseCommandFlags } from "./command-io.js";
import { renderStatus } from "./status-text.js";

const FLAGS = { ...CONFIG_FLAG, json: { type: "boolean" } } as const;

/**
 * `retention-sync status [--json] [--config PATH]`: the daemon's state on one screen, from the state
 * store (read-only: safe beside a running daemon) and, when it answers, the daemon's ops server.
 * Exit 0 when nothing needs a person, 3 when something does.
 */
export async function run(io: CommandIO): Promise<ExitCode> {
  const { values } = parseCommandFlags("status", io, FLAGS);
  const config = loadConfig({ ...(values.config !== undefined ? { file: values.config } : {}), env: io.env });
  const status = await daemonStatus(config, io);
  io.stdout.write(values.json ? `${JSON.stringify(status, null, 2)}\n` : renderStatus(status));
  return status.needsOperator.length > 0 ? EXIT_PARTIAL : EXIT_OK;
}
