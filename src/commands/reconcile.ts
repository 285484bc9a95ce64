import { openRuntime } from "../app/runtime.js";
import { loadConfig } from "../config/load-config.js";
import { EXIT_RUNTIME, type ExitCode, UsageError } from "../errors.js";
import { postReconcileReport } from "../roster/post-report.js";
import { type ReconcileDeps, type ReconcileOptions, reconcileOnce } from "../roster/reconcile-once.js";
import { type ReconcileReport, renderReportText } from "../roster/report.js";
import { CONFIG_FLAG, type CommandIO, parseCommandFlags } from "./command-io.js";

export type { ReconcileReport };
export { type ReconcileDeps, type ReconcileOptions, reconcileOnce };

const FLAGS = {
  ...CONFIG_FLAG,
  "dry-run": { type: "boolean" },
  json: { type: "boolean" },
  file: { type: "string" },
  "allow-mass-archive": { type: "boolean" },
} as const;

/** `retention-sync reconcile [--dry-run] [--json] [--file PATH] [--allow-mass-archive] [--config PATH]` */
export async function run(io: CommandIO): Promise<ExitCode> {
  const { values } = parseCommandFlags("reconcile", io, FLAGS);
  const config = loadConfig({ ...(values.config !== undefined ? { file: values.config } : {}), env: io.env });
  const file = values.file ?? config.roster.file;
  if (!file) throw new UsageError("reconcile: no roster file; pass --file PATH or set HRIS_ROSTER_FILE (roster.file)");
  const wantSlack = !values["dry-run"] && config.slack.opsChannel !== undefined && config.slack.token !== undefined;
  const runtime = await openRuntime(config, io, { client: true, store: true, slack: wantSlack, delivery: wantSlack });
  try {
    const tty = (io.stderr as NodeJS.WriteStream).isTTY === true && !values.json;
    const report = await reconcileOnce(
      { config, client: runtime.bulkClient, store: runtime.store, logger: runtime.logger },
      {
        file,
        dryRun: values["dry-run"] === true,
        allowMassArchive: values["allow-mass-archive"] === true,
        ...(io.signal ? { signal: io.signal } : {}),
        ...(tty
          ? { onProgress: (done: number, total: number) => io.stderr.write(`\rreconcile: ${done}/${total} steps`) }
          : {}),
      },
    );
    if (tty) io.stderr.write("\n");
    io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : renderReportText(report));
    if (runtime.delivery && config.slack.opsChannel) {
      await postReconcileReport(runtime.delivery, config.slack.opsChannel, report, runtime.logger);
    }
    return report.exitCode;
  } finally {
    await runtime.close().catch(() => EXIT_RUNTIME);
  }
}
