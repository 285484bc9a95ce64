import { createAlertPipeline } from "../alerts/alert-pipeline.js";
import { loadHrisLookup } from "../alerts/hris-lookup.js";
import type { PollReport } from "../alerts/poll-report.js";
import { POACHING_UNROUTED_WHY, unroutedSentences } from "../alerts/unrouted.js";
import { openRuntime } from "../app/runtime.js";
import { loadConfig } from "../config/load-config.js";
import type { Config } from "../config/schema.js";
import { EXIT_OK, EXIT_PARTIAL, EXIT_RUNTIME, EXIT_USAGE, type ExitCode, UsageError } from "../errors.js";
import type { Logger } from "../logger.js";
import { lastPulledExport } from "../roster/sources/last-pull.js";
import { channelAccessFix } from "../slack/classify-slack-error.js";
import { renderSlackMessage } from "../slack/render-slack-message.js";
import { CONFIG_FLAG, type CommandIO, parseCommandFlags, writeLine } from "./command-io.js";

const FLAGS = { ...CONFIG_FLAG, once: { type: "boolean" }, "dry-run": { type: "boolean" } } as const;

/** The HR fields from `roster.file`, or from the last complete pull when the roster is pulled. */
async function hrisOrNothing(config: Config, logger: Logger) {
  try {
    if (config.roster.source.type === "file") return await loadHrisLookup(config.roster, new Date());
    const pulled = await lastPulledExport(config);
    return pulled === undefined ? undefined : await loadHrisLookup(config.roster, new Date(), pulled);
  } catch (error) {
    logger.warn({ err: error }, "HRIS roster unreadable: alerts go out without HRIS department and manager");
    return undefined;
  }
}

function printDryRun(io: CommandIO, report: PollReport): void {
  if (report.drafts.length === 0) {
    writeLine(
      io.stdout,
      `dry run: no Slack message would be posted (${report.alerts} new alerts, ${report.unrouted} unrouted).`,
    );
    return;
  }
  for (const line of unroutedLines(report)) writeLine(io.stdout, line);
  writeLine(
    io.stdout,
    `dry run: ${report.drafts.length} Slack message(s) would be posted for ${report.alerts} alert(s):`,
  );
  for (const draft of report.drafts) {
    writeLine(io.stdout);
    writeLine(
      io.stdout,
      renderSlackMessage({
        channel: draft.kind === "dm" ? `DM to ${draft.managerEmail}` : draft.channel,
        text: draft.message.text,
        blocks: draft.message.blocks,
      }),
    );
  }
}

/** What routing could not place, per lens; the poaching lens left alone by default is said too. */
function unroutedLines(report: PollReport): string[] {
  const { warning, note } = unroutedSentences({
    retention: report.unrouted - report.unroutedPoaching,
    poaching: report.unroutedPoaching,
  });
  const unread = report.lenses.filter((l) => l.lens.startsWith("poaching") && l.skipped !== undefined);
  const notPolled = unread.length > 0 && !note ? `poaching lens not polled: ${POACHING_UNROUTED_WHY}` : undefined;
  return [warning, note, notPolled].filter((line): line is string => line !== undefined);
}

/** `retention-sync poll --once [--dry-run] [--config PATH]`: one polling pass over every lens. */
export async function run(io: CommandIO): Promise<ExitCode> {
  const { values } = parseCommandFlags("poll", io, FLAGS);
  if (values.once !== true) {
    throw new UsageError(
      'poll: only "poll --once [--dry-run]" exists; the daemon ("retention-sync run") polls continuously',
    );
  }
  const dryRun = values["dry-run"] === true;
  const config = loadConfig({ ...(values.config !== undefined ? { file: values.config } : {}), env: io.env });
  if (!config.alerts.enabled) {
    writeLine(io.stdout, "poll: alerts are disabled (alerts.enabled: false); nothing to do.");
    return EXIT_OK;
  }
  // A dry run posts nothing: the delivery service then has no Slack client and is never flushed.
  const runtime = await openRuntime(config, io, {
    client: true,
    slack: !dryRun,
    delivery: true,
    signal: io.signal,
  });
  try {
    const pipeline = createAlertPipeline({
      settings: runtime.alertSettings,
      store: runtime.store,
      client: runtime.client,
      delivery: runtime.delivery,
      logger: runtime.logger,
      hris: await hrisOrNothing(config, runtime.logger),
    });
    const report = await pipeline.poll({ now: new Date(), dryRun, signal: io.signal });
    if (dryRun) {
      printDryRun(io, report);
      return EXIT_OK;
    }
    const flush = report.flush;
    const caught = report.caughtAll > 0 ? ` (${report.caughtAll} to slack.channel: no route took them)` : "";
    writeLine(
      io.stdout,
      `poll: ${report.alerts} new alert(s)${caught}, ${flush?.sent ?? 0} message(s) posted, ${flush?.pending ?? 0} waiting in the outbox.`,
    );
    for (const line of unroutedLines(report)) writeLine(io.stdout, `poll: ${line}`);
    for (const [channel, code] of Object.entries(flush?.blockedChannels ?? {})) {
      const fix = channelAccessFix(code, channel) ?? "see the log line of this refusal for the fix";
      writeLine(io.stderr, `poll: Slack refused posts to ${channel} (${code}); they wait in the outbox: ${fix}`);
    }
    if (report.stopped) {
      writeLine(
        io.stderr,
        "poll: stopped by a signal; what was not read is read by the next pass, what was not posted waits in the outbox.",
      );
      return EXIT_PARTIAL;
    }
    if (report.error !== undefined) {
      writeLine(io.stderr, `poll: could not read changes: ${report.error}`);
      // A rejected key or a wrong URL is a setting to fix (2), like in every other command.
      return report.errorExitCode === EXIT_USAGE ? EXIT_USAGE : EXIT_RUNTIME;
    }
    const read = report.lenses.filter((l) => l.skipped === undefined);
    const failed = read.filter((l) => l.error !== undefined);
    for (const lens of failed) writeLine(io.stderr, `poll: could not read changes of ${lens.lens}: ${lens.error}`);
    // Every lens failing is an outage (1); some failing, or messages left waiting, needs a look (3).
    if (read.length > 0 && failed.length === read.length) return EXIT_RUNTIME;
    return failed.length > 0 || (flush?.pending ?? 0) > 0 ? EXIT_PARTIAL : EXIT_OK;
  } finally {
    await runtime.close();
  }
}
