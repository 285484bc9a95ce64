import { unwatchFile, watchFile } from "node:fs";
import { createAlertJobs } from "../alerts/alert-jobs.js";
import { loadConfig } from "../config/load-config.js";
import type { Config } from "../config/schema.js";
import { HealthMonitor } from "../daemon/health-monitor.js";
import { createMetrics } from "../daemon/metrics.js";
import { observeApiAttempt, observePollPass, observeReconcile } from "../daemon/observe-work.js";
import { type DaemonDeps, type RunningDaemon, startDaemon } from "../daemon/run-daemon.js";
import { EXIT_OK, type ExitCode } from "../errors.js";
import { hasInterruptedReconcile } from "../roster/reconcile-journal.js";
import { reconcileOnce } from "../roster/reconcile-once.js";
import { CONFIG_FLAG, type CommandIO, parseCommandFlags } from "./command-io.js";
import { postReconcileReport } from "./reconcile.js";
import { openRuntime } from "./runtime.js";

export interface ConfiguredDaemon {
  readonly daemon: RunningDaemon;
  /** Stops the daemon, then closes the clients and the store. */
  stop(reason: string): Promise<{ clean: boolean }>;
}

/** How long without a successful call before /readyz says not ready: three poll intervals, at least 5 minutes. */
function staleAfterMs(config: Config): number {
  const interval = config.alerts.webhook.enabled ? config.alerts.backstopPollInterval : config.alerts.pollInterval;
  return Math.max(300, 3 * interval) * 1000;
}

/**
 * Wires the adapters (clients on one rate budget, store, Slack) to the daemon's jobs from the
 * config: the poller and webhook receiver when alerts are on, the reconcile schedule when a
 * roster file is set. `run` and `demo` both start the daemon through here.
 */
export async function startConfiguredDaemon(config: Config, io: CommandIO): Promise<ConfiguredDaemon> {
  const metrics = createMetrics();
  const health = new HealthMonitor(staleAfterMs(config));
  const slack = config.slack.token !== undefined;
  const runtime = await openRuntime(config, io, {
    client: true,
    store: true,
    slack,
    logDestination: io.stdout,
    clientOptions: { onAttempt: (attempt) => observeApiAttempt(metrics, health, attempt) },
  });
  const { logger, store } = runtime;
  try {
    const alerts = config.alerts.enabled
      ? createAlertJobs({
          config,
          store,
          client: runtime.client,
          logger: logger.child({ component: "alerts" }),
          onPass: (report) => observePollPass(metrics, report, new Date()),
        })
      : undefined;
    if (alerts && !slack) logger.warn("SLACK_BOT_TOKEN is not set: alerts are queued in the outbox until it is");

    const rosterFile = config.roster.enabled ? config.roster.file : undefined;
    const reconcileLogger = logger.child({ component: "reconcile" });
    // A reconcile cut short by a crash is finished at start, not left half-applied until the schedule.
    const resume = rosterFile !== undefined && (await hasInterruptedReconcile(store));
    if (resume && !config.roster.runOnStart) {
      logger.warn("the last reconcile was interrupted (crash or stop); finishing it now instead of at the schedule");
    }
    const reconcile: DaemonDeps["reconcile"] = rosterFile
      ? {
          schedule: config.roster.schedule,
          timezone: config.roster.timezone,
          runOnStart: config.roster.runOnStart || resume,
          async run(signal) {
            const report = await reconcileOnce(
              { config, client: runtime.bulkClient, store, logger: reconcileLogger },
              { file: rosterFile, signal },
            );
            // reconcileOnce logs the report itself; the daemon only counts it and posts it.
            observeReconcile(metrics, report);
            if (runtime.slack && config.slack.opsChannel) {
              await postReconcileReport(runtime.slack, config.slack.opsChannel, report, reconcileLogger);
            }
          },
        }
      : undefined;
    if (!rosterFile) logger.info("no roster file configured (HRIS_ROSTER_FILE): roster reconciliation is off");

    const daemon = await startDaemon({
      logger,
      store,
      metrics,
      health,
      ops: { host: config.daemon.host, port: config.daemon.port },
      shutdownGraceMs: config.daemon.shutdownGraceSeconds * 1000,
      poll: alerts?.poll,
      reconcile,
      webhookReceiver: alerts?.webhookReceiver,
    });

    let stopWatching = () => {};
    if (rosterFile && config.roster.runOnFileChange) {
      // Polling stat works on mounted volumes where inotify events never arrive.
      const onChange = (current: { mtimeMs: number }, previous: { mtimeMs: number }) => {
        if (current.mtimeMs === previous.mtimeMs || current.mtimeMs === 0) return;
        logger.info({ file: rosterFile }, "roster file changed: reconciling now");
        void daemon.reconcileNow();
      };
      watchFile(rosterFile, { interval: 5_000, persistent: false }, onChange);
      stopWatching = () => unwatchFile(rosterFile, onChange);
    }

    return {
      daemon,
      async stop(reason) {
        stopWatching();
        const result = await daemon.stop(reason);
        await runtime.close();
        return result;
      },
    };
  } catch (error) {
    await runtime.close().catch(() => undefined);
    throw error;
  }
}

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
  await untilAborted(io.signal);
  await configured.stop("signal received");
  // An unclean stop left its work in the journal and outbox for the next start: still a normal exit.
  return EXIT_OK;
}
