import { unwatchFile, watchFile } from "node:fs";
import { createAlertJobs } from "../alerts/alert-jobs.js";
import type { Every } from "../alerts/hris-source.js";
import { INBOX_QUEUE } from "../alerts/webhook-inbox.js";
import { webhookSecretProblem } from "../alerts/webhook-secret-problem.js";
import type { CommandIO } from "../commands/command-io.js";
import type { Config } from "../config/schema.js";
import { HealthMonitor } from "../daemon/health-monitor.js";
import { LeaderFence } from "../daemon/leadership.js";
import { createMetrics } from "../daemon/metrics.js";
import {
  observePullFailure,
  observeReadOnlyKey,
  observeReconcile,
  observeReconcileFailure,
  observeRosterSource,
  observeWebhookSecretMissing,
} from "../daemon/observe-work.js";
import { createWorkEvents, observeWorkEvents } from "../daemon/observe-work-events.js";
import { type DaemonDeps, type RunningDaemon, startDaemon } from "../daemon/run-daemon.js";
import {
  AuthenticationError,
  type RetentionSyncError,
  RosterPullError,
  RosterSourceAuthError,
  ServiceUrlError,
} from "../errors.js";
import { interactivitySettings } from "../interactive/interactive-settings.js";
import type { createInteractivity, Interactivity } from "../interactive/start-interactivity.js";
import type { ReconcileReport } from "../roster/report.js";
import { createShutdownController } from "../timers.js";
import { openRuntime } from "./runtime.js";

export interface ConfiguredDaemon {
  readonly daemon: RunningDaemon;
  /** The Slack buttons' machinery, when interactivity is on. */
  readonly interactivity: Interactivity | undefined;
  /**
   * Settles when the service refused the settings at start (a rejected key, a URL without
   * /api/v1): nothing can work until they change, so `run` stops with exit 2. Never settles otherwise.
   */
  readonly settingsRefused: Promise<RetentionSyncError>;
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
export async function startConfiguredDaemon(
  config: Config,
  io: CommandIO,
  seams: {
    readonly beforeApplyPress?: Parameters<typeof createInteractivity>[0]["beforeApply"];
    /** The timer of the HRIS export watch (tests drive it instead of waiting). */
    readonly hrisEvery?: Every;
  } = {},
): Promise<ConfiguredDaemon> {
  const interactive = interactivitySettings(config);
  const metrics = createMetrics();
  const health = new HealthMonitor(staleAfterMs(config));
  // Subscribed before any part is built, so no event of theirs goes unobserved.
  const events = createWorkEvents();
  observeWorkEvents(events, metrics, health);
  const slack = config.slack.token !== undefined;
  // One shutdown signal for everything: the jobs, the poll client's requests and Slack delivery.
  const shutdown = createShutdownController();
  // The leader's fencing token: every write of the jobs (delivery's send marks, cursor commits,
  // the reconcile journal and memory) goes through the store's view fenced by it. SQLite: no-op.
  const fence = new LeaderFence();
  const runtime = await openRuntime(config, io, {
    client: true,
    store: true,
    slack,
    delivery: true,
    fence,
    signal: shutdown.signal,
    logDestination: io.stdout,
    events,
  });
  const { logger, delivery } = runtime;
  const shared = runtime.store;
  const store = shared.fenced(fence);
  const replicas = shared.election !== undefined;
  // Read at each scrape and readiness check: a paused request budget, every post of either door.
  health.watchRateBudget(() => runtime.rateLimiter.pausedUntilMs);
  metrics.watch({
    rateBudgetPausedUntil: () => runtime.rateLimiter.pausedUntilMs,
    deliveryTotals: () => delivery.sender?.totals,
  });
  try {
    const alerts = config.alerts.enabled
      ? createAlertJobs({
          config,
          settings: runtime.alertSettings,
          store,
          // Any replica accepts webhook events into the shared inbox; only the leader hands them over.
          acceptStore: shared,
          leading: () => fence.epoch !== undefined || !replicas,
          client: runtime.client,
          delivery,
          signal: shutdown.signal,
          logger: logger.child({ component: "alerts" }),
          events: events.alerts,
          hrisEvery: seams.hrisEvery,
        })
      : undefined;
    if (alerts && !slack) logger.warn("SLACK_BOT_TOKEN is not set: alerts are queued in the outbox until it is");
    const webhookProblem = webhookSecretProblem(config);
    if (webhookProblem) {
      logger.warn(webhookProblem);
      observeWebhookSecretMissing(metrics, health, webhookProblem);
    }

    const reconcileLogger = logger.child({ component: "reconcile" });
    // Only what the config uses is loaded (dynamic imports below): the roster code, with its
    // readers, presets and pull sources, when reconciliation is on; the buttons' code (with Socket
    // Mode's client) when interactivity is. What a daemon loads and never runs costs every
    // replica memory and start time.
    const puller = config.roster.enabled ? await import("../roster/sources/roster-puller.js") : undefined;
    // A pull source (roster.source) wins over roster.file: each run pulls the export first.
    const pullExport = puller?.rosterPuller(config, io.env, reconcileLogger, events.pull);
    const rosterFile = config.roster.enabled && pullExport === undefined ? config.roster.file : undefined;
    const rosterFrom = pullExport && puller ? puller.rosterOrigin(config) : rosterFile && `roster file ${rosterFile}`;
    const rosterCode = rosterFrom ? await import("./roster-wiring.js") : undefined;
    // A reconcile cut short by a crash (or by a leader's failover) is finished when the lead
    // begins, not left half-applied until the schedule.
    const runOnStart = async () => {
      if (config.roster.runOnStart) return true;
      const resume = (await rosterCode?.hasInterruptedReconcile(shared)) === true;
      if (resume) {
        logger.warn("the last reconcile was interrupted (crash or stop); finishing it now instead of at the schedule");
      }
      return resume;
    };
    // The key and the URL first: a rejected key or a URL without /api/v1 is said at start (and ends
    // `run` with exit 2), a read-only key with reconciliation on too. In the background: a slow or
    // unreachable service must not hold up the ops server.
    let refuseSettings: (error: RetentionSyncError) => void = () => {};
    const settingsRefused = new Promise<RetentionSyncError>((resolve) => {
      refuseSettings = resolve;
    });
    void runtime.client
      .me()
      .then((me) => {
        if (!rosterFrom || !rosterCode || rosterCode.canWrite(me)) return;
        const note = `reconciliation is on (${rosterFrom}) but the API key is read-only: ${rosterCode.READ_ONLY_FIX}`;
        logger.warn({ scopes: me.scopes }, note);
        observeReadOnlyKey(metrics, health, note);
      })
      .catch((error: unknown) => {
        if (error instanceof AuthenticationError || error instanceof ServiceUrlError) {
          logger.error({ err: error }, `the service refused the settings at start: ${error.message}`);
          refuseSettings(error);
          return;
        }
        logger.warn({ err: error }, "could not check the API key at start (GET /me); the jobs try again");
      });
    // When the last run read a complete export (from the daemon's start until the first run).
    let lastCompletePull = Date.now();
    // A scheduled run and the apply of a plan approved in Slack never overlap (one memory, one journal).
    const exclusive = rosterCode?.oneAtATime();
    // A run held for a person keeps the plan they may approve, when its post can carry the buttons.
    const holdForApproval = slack && interactive.mode !== "off" && config.slack.opsChannel !== undefined;
    const reconcileDeps = {
      config,
      client: runtime.bulkClient,
      store,
      logger: reconcileLogger,
      ...(pullExport ? { pullExport } : {}),
    };
    const postReport = async (report: ReconcileReport) => {
      if (rosterCode && slack && config.slack.opsChannel) {
        await rosterCode.postReconcileReport(delivery, config.slack.opsChannel, report, reconcileLogger);
      }
    };
    const reconcile: DaemonDeps["reconcile"] =
      rosterCode && exclusive
        ? {
            schedule: config.roster.schedule,
            timezone: config.roster.timezone,
            runOnStart,
            async run(signal) {
              const { applyRun, planRun, recordFailedRun, recordRun } = rosterCode;
              const planned = async () => {
                const plan = await planRun(reconcileDeps, { ...(rosterFile ? { file: rosterFile } : {}), signal });
                return applyRun(reconcileDeps, plan, { signal, holdForApproval });
              };
              const report = await exclusive(planned).catch(async (error: unknown) => {
                observeReconcileFailure(metrics, health, error);
                if (!signal.aborted) await recordFailedRun(store, error).catch(() => undefined);
                if (error instanceof RosterPullError && !(error instanceof RosterSourceAuthError)) {
                  observePullFailure(metrics, health, error, lastCompletePull, config.roster.staleAfter, Date.now());
                }
                throw error;
              });
              lastCompletePull = Date.now();
              await recordRun(store, report);
              // applyRun logs the report itself; the daemon only counts it and posts it.
              observeReconcile(metrics, report, health);
              await postReport(report);
            },
          }
        : undefined;
    if (!rosterFrom) logger.info("no roster file configured (HRIS_ROSTER_FILE): roster reconciliation is off");
    // A reconcile at start reads the source itself; otherwise it is read now, not first at the schedule.
    const rosterProbe =
      rosterCode && !config.roster.runOnStart
        ? rosterCode.probeRosterSource({
            roster: config.roster,
            file: rosterFile,
            pullExport,
            logger: reconcileLogger,
            onProblem: (note) => observeRosterSource(metrics, health, note),
            every: seams.hrisEvery,
          })
        : undefined;

    // Replicas: events any replica accepted wait in the shared inbox; the leader looks every second
    // and drains it when some wait (a standby's receiver cannot tell the leader).
    const inbox = alerts?.pipeline.inbox;
    const whileLeading: DaemonDeps["whileLeading"] =
      replicas && inbox && config.alerts.webhook.enabled
        ? {
            everyMs: 1_000,
            async run(signal) {
              if (!signal.aborted && (await shared.queue(INBOX_QUEUE).countPending()) > 0) await inbox.drain();
            },
          }
        : undefined;

    const interactivity =
      slack && runtime.slack && interactive.mode !== "off"
        ? (await import("../interactive/start-interactivity.js")).createInteractivity({
            settings: interactive,
            store,
            slack: runtime.slack,
            slackApiUrl: config.slack.apiUrl,
            client: runtime.client,
            logger,
            events: events.interactive,
            beforeApply: seams.beforeApplyPress,
            postsSettled: () => delivery?.sender?.postsSettled() ?? Promise.resolve(),
            leading: () => fence.epoch !== undefined || !replicas,
            approvals:
              rosterCode && exclusive
                ? rosterCode.reconcileApprovals({
                    deps: reconcileDeps,
                    file: rosterFile,
                    signal: shutdown.signal,
                    exclusive,
                    post: postReport,
                    onReport: (report) => observeReconcile(metrics, report, health),
                    logger: reconcileLogger,
                  })
                : undefined,
          })
        : undefined;
    if (interactive.mode !== "off" && !slack) {
      logger.warn("slack.interactivity is on but SLACK_BOT_TOKEN is not set: no buttons are posted or answered");
    }

    const daemon = await startDaemon({
      shutdown,
      leaderServices: [
        ...(alerts?.hrisWatch ? [alerts.hrisWatch] : []),
        ...(interactivity ? [interactivity.leaderService] : []),
      ],
      fence,
      whileLeading,
      logger,
      store: shared,
      metrics,
      health,
      ops: {
        host: config.daemon.host,
        port: config.daemon.port,
        routes: interactivity?.httpRoute
          ? { [interactivity.httpRoute.path]: interactivity.httpRoute.handler }
          : undefined,
      },
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
      interactivity,
      settingsRefused,
      async stop(reason) {
        stopWatching();
        rosterProbe?.stop();
        const result = await daemon.stop(reason);
        await interactivity?.close();
        await runtime.close();
        return result;
      },
    };
  } catch (error) {
    await runtime.close().catch(() => undefined);
    throw error;
  }
}
