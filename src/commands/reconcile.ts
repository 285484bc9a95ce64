import type { WebClient } from "@slack/web-api";
import { loadConfig } from "../config/load-config.js";
import { EXIT_RUNTIME, type ExitCode, UsageError } from "../errors.js";
import type { Logger } from "../logger.js";
import { type ReconcileDeps, type ReconcileOptions, reconcileOnce } from "../roster/reconcile-once.js";
import { type ReconcileReport, renderReportSlack, renderReportText } from "../roster/report.js";
import { CONFIG_FLAG, type CommandIO, parseCommandFlags } from "./command-io.js";
import { openRuntime } from "./runtime.js";

export type { ReconcileReport };
export { type ReconcileDeps, type ReconcileOptions, reconcileOnce };

const FLAGS = {
  ...CONFIG_FLAG,
  "dry-run": { type: "boolean" },
  json: { type: "boolean" },
  file: { type: "string" },
  "allow-mass-archive": { type: "boolean" },
} as const;

/** Posts the report to `slack.opsChannel`; a Slack failure is logged, never fails the reconcile. */
export async function postReconcileReport(
  slack: WebClient,
  channel: string,
  report: ReconcileReport,
  logger: Logger,
): Promise<void> {
  try {
    const message = renderReportSlack(report);
    await slack.chat.postMessage({ channel, text: message.text, blocks: message.blocks as never });
  } catch (error) {
    logger.warn({ component: "reconcile", err: error, channel }, "could not post the reconcile report to Slack");
  }
}

/** `retention-sync reconcile [--dry-run] [--json] [--file PATH] [--allow-mass-archive] [--config PATH]` */
export async function run(io: CommandIO): Promise<ExitCode> {
  const { values } = parseCommandFlags("reconcile", io, FLAGS);
  const config = loadConfig({ ...(values.config !== undefined ? { file: values.config } : {}), env: io.env });
  const file = values.file ?? config.roster.file;
  if (!file) throw new UsageError("reconcile: no roster file; pass --file PATH or set HRIS_ROSTER_FILE (roster.file)");
  const wantSlack = !values["dry-run"] && config.slack.opsChannel !== undefined && config.slack.token !== undefined;
  const runtime = await openRuntime(config, io, { client: true, store: true, slack: wantSlack });
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
    if (wantSlack && runtime.slack && config.slack.opsChannel) {
      await postReconcileReport(runtime.slack, config.slack.opsChannel, report, runtime.logger);
    }
    return report.exitCode;
  } finally {
    await runtime.close().catch(() => EXIT_RUNTIME);
  }
}
