import cron, { type ScheduledTask } from "node-cron";
import { StoreError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { StateStore } from "../store/state-store.js";
import { sleepUnlessAborted } from "../timers.js";
import type { HealthMonitor } from "./health-monitor.js";
import { acquireInstanceLock } from "./instance-lock.js";
import { type JobFn, JobRunner } from "./job-runner.js";
import type { Metrics } from "./metrics.js";
import { startOpsServer } from "./ops-server.js";

export interface DaemonDeps {
  /** Aborted when shutdown begins; the composition root hands its signal to the adapters too. */
  readonly shutdown?: AbortController | undefined;
  readonly logger: Logger;
  readonly store: StateStore;
  readonly metrics: Metrics;
  readonly health: HealthMonitor;
  readonly ops: { readonly host: string; readonly port: number };
  readonly shutdownGraceMs: number;
  /** The alerts poller: one pass per interval, the next pass starting `intervalSeconds` after the last one ended. */
  readonly poll?: { readonly intervalSeconds: number; readonly run: JobFn } | undefined;
  /** Roster reconciliation on a cron schedule; runs never overlap. */
  readonly reconcile?:
    | { readonly schedule: string; readonly timezone: string; readonly runOnStart: boolean; readonly run: JobFn }
    | undefined;
  /** Starts the optional webhook receiver. */
  readonly webhookReceiver?: (() => Promise<{ readonly url: string; close(): Promise<void> }>) | undefined;
  readonly lockLeaseMs?: number;
  readonly storeProbeIntervalMs?: number;
  /** How often expired state is deleted (default 10 minutes; also once at start). */
  readonly storeSweepIntervalMs?: number;
}

export interface RunningDaemon {
  readonly opsUrl: string;
  readonly webhookUrl: string | undefined;
  /** Runs a reconciliation now (the file watcher and tests use it); no overlap with the scheduled one. */
  reconcileNow(): Promise<void>;
  /** Graceful stop: no new work, running jobs checkpoint, everything closed. `clean` is false when the grace ran out. */
  stop(reason: string): Promise<{ clean: boolean }>;
}

/** Starts every enabled part of `retention-sync run` and returns a handle to stop it. */
export async function startDaemon(deps: DaemonDeps): Promise<RunningDaemon> {
  const { logger, store, metrics, health } = deps;
  const lock = await acquireInstanceLock(store.namespace("daemon.lock"), {
    ...(deps.lockLeaseMs === undefined ? {} : { leaseMs: deps.lockLeaseMs }),
    onRenewFailure: (error) => health.storeFailed(error),
  });
  const runner = new JobRunner(logger, deps.shutdown);
  const cleanups: Array<() => Promise<void>> = [() => lock.release()];
  const instrument =
    (name: string, job: JobFn): JobFn =>
    async (signal) => {
      try {
        await job(signal);
      } catch (error) {
        if (error instanceof StoreError) health.storeFailed(error);
        else health.apiFailed(error);
        throw error;
      } finally {
        logger.debug({ job: name }, "job pass ended");
      }
    };

  try {
    const ops = await startOpsServer({ ...deps.ops, health, metrics, logger });
    cleanups.unshift(() => ops.close());

    const probeTimer = setInterval(() => {
      store
        .namespace("daemon.meta")
        .set("heartbeat", new Date().toISOString())
        .then(() => health.storeRecovered())
        .catch((error: unknown) => {
          health.storeFailed(error);
          logger.error({ err: error }, "state store write failed; the daemon reports not ready until it recovers");
        });
    }, deps.storeProbeIntervalMs ?? 15_000);
    probeTimer.unref();
    cleanups.unshift(async () => clearInterval(probeTimer));

    // Expiry that happens: what outlived its retention is deleted, and the file shrinks with it.
    const sweep = () =>
      store
        .sweep(Date.now())
        .then((report) => {
          metrics.stateBytes.set(report.fileBytes);
          logger[report.expired > 0 ? "info" : "debug"](report, "state store swept");
        })
        .catch((error: unknown) => logger.warn({ err: error }, "state store sweep failed; it is tried again later"));
    await sweep();
    const sweepTimer = setInterval(() => void sweep(), deps.storeSweepIntervalMs ?? 10 * 60_000);
    sweepTimer.unref();
    cleanups.unshift(async () => clearInterval(sweepTimer));

    let webhookUrl: string | undefined;
    if (deps.webhookReceiver) {
      const receiver = await deps.webhookReceiver();
      webhookUrl = receiver.url;
      // The receiver closes first so no event is accepted that the drain could not finish.
      cleanups.unshift(() => receiver.close());
    }

    const reconcile = deps.reconcile;
    const reconcileJob = reconcile ? instrument("reconcile", reconcile.run) : undefined;
    let task: ScheduledTask | undefined;
    if (reconcile && reconcileJob) {
      task = cron.schedule(reconcile.schedule, () => runner.run("reconcile", reconcileJob), {
        timezone: reconcile.timezone,
        name: "reconcile",
        noOverlap: true,
      });
      const scheduled = task;
      cleanups.unshift(async () => {
        await scheduled.stop();
        await scheduled.destroy();
      });
      if (reconcile.runOnStart) void runner.run("reconcile", reconcileJob);
    }

    const poll = deps.poll;
    let pollLoop: Promise<void> = Promise.resolve();
    if (poll) {
      const pollJob = instrument("poll", poll.run);
      pollLoop = (async () => {
        while (!runner.signal.aborted) {
          await runner.run("poll", pollJob);
          await sleepUnlessAborted(poll.intervalSeconds * 1000, runner.signal);
        }
      })();
    }

    logger.info(
      {
        ops: ops.url,
        webhook: webhookUrl ?? "off",
        poll: poll ? `every ${poll.intervalSeconds} s` : "off",
        reconcile: reconcile ? `${reconcile.schedule} (${reconcile.timezone})` : "off",
        nextReconcile: task?.getNextRun()?.toISOString(),
        state: store.location,
      },
      "retention-sync daemon started",
    );

    let stopping: Promise<{ clean: boolean }> | undefined;
    return {
      opsUrl: ops.url,
      webhookUrl,
      reconcileNow: () => (reconcileJob ? runner.run("reconcile", reconcileJob) : Promise.resolve()),
      stop(reason) {
        stopping ??= (async () => {
          logger.info(
            { reason, graceMs: deps.shutdownGraceMs },
            "shutting down: no new work, finishing the running step",
          );
          const started = Date.now();
          const clean = await runner.drain(deps.shutdownGraceMs);
          if (clean) await pollLoop;
          for (const cleanup of cleanups) {
            await cleanup().catch((error: unknown) =>
              logger.warn({ err: error }, "cleanup step failed during shutdown"),
            );
          }
          logger.info(
            { clean, ms: Date.now() - started },
            clean ? "stopped" : "stopped with work left for the next start",
          );
          return { clean };
        })();
        return stopping;
      },
    };
  } catch (error) {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    throw error;
  }
}
