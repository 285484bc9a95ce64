import { openRuntime } from "../app/runtime.js";
import { loadConfig } from "../config/load-config.js";
import { durationSeconds } from "../config/schema.js";
import { EXIT_OK, type ExitCode, UsageError } from "../errors.js";
import { ActionJournal } from "../interactive/action-journal.js";
import { actionRows, renderActionRows } from "../interactive/action-list.js";
import { CONFIG_FLAG, type CommandIO, parseCommandFlags } from "./command-io.js";

/** `retention-sync actions [--since 7d] [--json]`: the Slack button presses journaled in the state store. */
export async function run(io: CommandIO): Promise<ExitCode> {
  const { values } = parseCommandFlags("actions", io, {
    ...CONFIG_FLAG,
    since: { type: "string" },
    json: { type: "boolean" },
  });
  const since = durationSeconds.safeParse(values.since ?? "7d");
  if (!since.success) {
    throw new UsageError(`actions: --since expects a duration such as 24h or 7d, got "${values.since}"`);
  }
  const config = loadConfig({ ...(values.config !== undefined ? { file: values.config } : {}), env: io.env });
  const runtime = await openRuntime(config, io, { store: true });
  try {
    const entries = await new ActionJournal(runtime.store).all();
    const rows = actionRows(entries, Date.now() - since.data * 1000);
    io.stdout.write(values.json ? `${JSON.stringify(rows, null, 2)}\n` : renderActionRows(rows));
    return EXIT_OK;
  } finally {
    await runtime.close();
  }
}
