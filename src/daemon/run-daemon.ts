import cron, { type ScheduledTask } from "node-cron";
import { FencedOutError, StoreError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { StateStore } from "../store/state-store.js";
import { createShutdownController, sleepUnlessAborted } from "../timers.js";
import type { HealthMonitor } from "./health-monitor.js";
import { LOCK_NAMESPACE } from "./instance-lock.js";
import { type JobFn, JobRunner } from "./job-runner.js";
import { recordLeader } from "./leader-record.js";
import { LeaderFence, type Leadership, replicaLeadership, singleInstance, type Term } from "./leadership.js";
import type { Metrics } from "./metrics.js";
import { type OpsRoute, startOpsServer } from "./ops-server.js";

export interface DaemonDeps {
  /** Aborted when shutdown begins; the composition root hands its signal to the adapters too. */
  readonly shutdown?: AbortController | undefined;
  readonly logger: Logger;
  readonly store: StateStore;
  readonly metrics: Metrics;
  readonly health: HealthMonitor;
  readonly ops: {
    readonly host: string;
    readonly port: number;
    /** Extra endpoints (Slack's HTTP interactivity, `slack.interactivity.path`). */
    readonly routes?: Readonly<Record<string, OpsRoute>> | undefined;
  };
  readonly shutdownGraceMs: number;
  /** The alerts poller: one pass per interval, the next pass starting `intervalSeconds` after the last one ended. */
  readonly poll?: { readonly intervalSeconds: number; readonly run: JobFn } | undefined;
  /** Roster reconciliation on a cron schedule; runs never overlap. `runOnStart` is asked at each term's start. */
  readonly reconcile?:
    | {
        readonly schedule: string;
        readonly timezone: string;
        readonly runOnStart: boolean | (() => Promise<boolean>);
        readonly run: JobFn;
      }
    | undefined;
  /**
   * Starts the optional webhook receiver (on every replica: a standby stores events for the
   * leader); resolves once it accepts connections, and /readyz is not ready before. (Slack's HTTP
   * interactivity is a route of the ops server: it listens when /readyz does.)
   */
  readonly webhookReceiver?: (() => Promise<{ readonly url: string; close(): Promise<void> }>) | undefined;
  /** Work the leader does at the start of each term and then every `everyMs` (the shared webhook inbox). */
  readonly whileLeading?: { readonly everyMs: number; readonly run: JobFn } | undefined;
  /**
   * Connections only the leader holds (Slack's Socket Mode): started when a term begins (not
   * awaited), stopped when it ends, so Slack sends unacked envelopes to the next leader.
   */
  readonly leaderServices?: ReadonlyArray<{ readonly name: string; start(): Promise<void>; stop(): Promise<void> }>;
  /**
   * The fence of the jobs' store view (the composition root builds the view with it): set to the
   * term's epoch while this daemon leads, cleared when it stops leading.
   */
  readonly fence?: LeaderFence | undefined;
  /** Replicas on a shared store: how often a standby tries to lead and how the leader's session is watched. */
  readonly election?:
    | { readonly retryMs?: number; readonly heartbeatMs?: number; readonly heartbeatTimeoutMs?: number }
    | undefined;
  readonly lockLeaseMs?: number;
  readonly storeProbeIntervalMs?: number;
  /** How often expired state is deleted (default 10 minutes; also once at start). */
  readonly storeSweepIntervalMs?: number;
}

export interface RunningDaemon {
  readonly opsUrl: string;
  readonly webhookUrl: string | undefined;
  /** Runs a reconciliation now if this daemon leads (the file watcher and tests use it); no overlap with the scheduled one. */
  reconcileNow(): Promise<void>;
  /** Graceful stop: no new work, running jobs checkpoint, the lead given back, everything closed. `clean` is false when the grace ran out. */
  stop(reason: string): Promise<{ clean: boolean }>;
}

/** The jobs of one term, started by `lead` and stopped by `end`. */
interface LeaderWork {
  readonly runner: JobRunner;
  readonly reconcileJob: JobFn | undefined;
  readonly nextReconcile: Date | undefined;
  /** Stops scheduling and waits for the running jobs (`graceMs` at most); false when some are left. */
  end(graceMs: number): Promise<boolean>;
}

/** Starts every enabled part of `retention-sync run` and returns a handle to stop it. */
export async function startDaemon(deps: DaemonDeps): Promise<RunningDaemon> {
  const { logger, store, metrics, health } = deps;
  const shutdown = deps.shutdown ?? createShutdownController();
  const fence = deps.fence ?? new LeaderFence();
  const leadership: Leadership = store.election
    ? replicaLeadership(store.election, {
        ...deps.election,
        logger,
        onStoreError: (error) =>
          health.leaderLockUnknown(
            `leader lock unreachable: ${error instanceof Error ? error.message : String(error)}`,
          ),
        onAnswered: () => health.leaderLockAnswered(),
      })
    : singleInstance(store.namespace(LOCK_NAMESPACE), {
        ...(deps.lockLeaseMs === undefined ? {} : { leaseMs: deps.lockLeaseMs }),
        onRenewFailure: (error) => health.storeFailed(error),
      });
  const replicas = leadership.mode === "replicas";
  // A single instance takes its lease before anything starts, or does not start at all.
  const firstTerm = replicas ? undefined : await leadership.next(shutdown.signal);
  const cleanups: Array<() => Promise<void>> = [];
  const instrument =
    (name: string, job: JobFn): JobFn =>
    async (signal) => {
      try {
        await job(signal);
      } catch (error) {
        // A fenced-out write already ended the term; it says nothing about the store or the service.
        if (error instanceof FencedOutError) throw error;
        if (error instanceof StoreError) health.storeFailed(error);
        else health.apiFailed(error);
        throw error;
      } finally {
        logger.debug({ job: name }, "job pass ended");
      }
    };

  /** Starts the jobs of a term; they stop when `signal` aborts (term lost, or shutdown). */
  function startLeaderWork(signal: AbortController): LeaderWork {
    const runner = new JobRunner(logger, signal);
    const stops: Array<() => Promise<void>> = [];
    const reconcile = deps.reconcile;
    const reconcileJob = reconcile ? instrument("reconcile", reconcile.run) : undefined;
    let task: ScheduledTask | undefined;
    if (reconcile && reconcileJob) {
      const scheduled = cron.schedule(reconcile.schedule, () => runner.run("reconcile", reconcileJob), {
        timezone: reconcile.timezone,
        name: "reconcile",
        noOverlap: true,
      });
      task = scheduled;
      stops.push(async () => {
        await scheduled.stop();
        await scheduled.destroy();
      });
      void (async () => {
        const runNow =
          typeof reconcile.runOnStart === "function"
            ? await reconcile.runOnStart().catch((error: unknown) => {
                logger.warn({ err: error }, "could not read the reconcile journal; reconciling now to be safe");
                return true;
              })
            : reconcile.runOnStart;
        if (runNow) await runner.run("reconcile", reconcileJob);
      })();
    }
    for (const service of deps.leaderServices ?? []) {
      void service
        .start()
        .catch((error: unknown) =>
          logger.error({ err: error, service: service.name }, "a leader service failed to start"),
        );
      stops.push(() => service.stop());
    }
    const loops: Array<Promise<void>> = [];
    const poll = deps.poll;
    if (poll) {
      const pollJob = instrument("poll", poll.run);
      loops.push(
        (async () => {
          while (!runner.signal.aborted) {
            await runner.run("poll", pollJob);
            await sleepUnlessAborted(poll.intervalSeconds * 1000, runner.signal);
          }
        })(),
      );
    }
    const repeated = deps.whileLeading;
    if (repeated) {
      const job = instrument("leader-watch", repeated.run);
      loops.push(
        (async () => {
          while (!runner.signal.aborted) {
            await runner.run("leader-watch", job);
            await sleepUnlessAborted(repeated.everyMs, runner.signal);
          }
        })(),
      );
    }
    return {
      runner,
      reconcileJob,
      nextReconcile: task?.getNextRun() ?? undefined,
      async end(graceMs) {
        const clean = await runner.drain(graceMs);
        if (clean) await Promise.all(loops);
        for (const stop of stops) await stop().catch(() => undefined);
        return clean;
      },
    };
  }

  let work: LeaderWork | undefined;

  /** Leads for one term: until it is lost (or fenced out), or shutdown. Returns whether the jobs stopped cleanly. */
  async function lead(term: Term): Promise<boolean> {
    const termSignal = new AbortController();
    const endTerm = (reason: string) => {
      if (!termSignal.signal.aborted) termSignal.abort(reason);
    };
    const onShutdown = () => endTerm("shutdown");
    shutdown.signal.addEventListener("abort", onShutdown, { once: true });
    /** Lost (the lock's session ended or went silent, or a write was fenced out): standby at once. */
    const stepDown = (reason: string) => {
      if (termSignal.signal.aborted) return;
      // No fenced write may start from here on, whatever the jobs still do.
      fence.end();
      metrics.leader.set(0);
      if (replicas) health.setRole("standby");
      endTerm(reason);
    };
    const onLost = () => {
      const reason = String(term.lost.reason ?? "leadership lost");
      // The lock's session failed or went silent: until an attempt is answered, nobody may lead.
      health.leaderLockUnknown(`leader lock unreachable: ${reason}`);
      stepDown(reason);
    };
    term.lost.addEventListener("abort", onLost, { once: true });
    metrics.leader.set(1);
    if (replicas) health.setRole("leader");
    fence.begin(term.epoch, (error) => stepDown(error.message));
    if (shutdown.signal.aborted) onShutdown();
    if (term.lost.aborted) onLost();
    const started = startLeaderWork(termSignal);
    work = started;
    // Who leads since when, for `status` (read from the store, the daemon running or not).
    void recordLeader(store, term.epoch).catch((error: unknown) =>
      logger.debug({ err: error }, "could not record the leader for status"),
    );
    if (replicas) {
      logger.info({ epoch: term.epoch, nextReconcile: started.nextReconcile?.toISOString() }, "became leader");
    }
    await new Promise<void>((resolve) => {
      if (termSignal.signal.aborted) resolve();
      else termSignal.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    shutdown.signal.removeEventListener("abort", onShutdown);
    term.lost.removeEventListener("abort", onLost);
    const stopping = shutdown.signal.aborted;
    let clean: boolean;
    if (stopping) {
      // Shutdown: the jobs finish their step with their writes still fenced by this term.
      clean = await started.end(deps.shutdownGraceMs);
    } else {
      logger.warn(
        { epoch: term.epoch, reason: termSignal.signal.reason },
        "lost the leadership: jobs stopped, standby again",
      );
      // A job from this term must not write under the next one: wait until every one has ended.
      clean = await started.end(deps.shutdownGraceMs);
      while (!clean && !shutdown.signal.aborted) {
        logger.warn("a job of the lost term is still running; waiting for it before trying to lead again");
        clean = await started.end(60_000);
      }
    }
    work = undefined;
    fence.end();
    metrics.leader.set(0);
    if (replicas) health.setRole("standby");
    await term.release().catch((error: unknown) => logger.warn({ err: error }, "giving the leadership back failed"));
    return clean;
  }

  // Ready only once every listener accepts connections: the ops server answers /readyz before the
  // webhook receiver listens, and a delivery sent on its 200 would be refused.
  const WEBHOOK_LISTENER = "the webhook receiver";
  if (deps.webhookReceiver) health.listenerStarting(WEBHOOK_LISTENER);
  try {
    const ops = await startOpsServer({ ...deps.ops, health, metrics, logger });
    cleanups.unshift(() => ops.close());
    if (replicas) {
      health.setRole("standby");
      health.leaderLockUnknown("leader lock not tried yet: the replica is starting");
    }
    metrics.leader.set(0);

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
      health.listening(WEBHOOK_LISTENER);
      webhookUrl = receiver.url;
      // The receiver closes first so no event is accepted that the drain could not finish.
      cleanups.unshift(() => receiver.close());
    }

    let leading: Promise<boolean> | undefined;
    if (firstTerm) leading = lead(firstTerm);

    const poll = deps.poll;
    const reconcile = deps.reconcile;
    logger.info(
      {
        ops: ops.url,
        webhook: webhookUrl ?? "off",
        poll: poll ? `every ${poll.intervalSeconds} s` : "off",
        reconcile: reconcile ? `${reconcile.schedule} (${reconcile.timezone})` : "off",
        nextReconcile: work?.nextReconcile?.toISOString(),
        state: store.location,
        ...(replicas ? { role: "standby", election: "the replica whose session holds the leader lock leads" } : {}),
      },
      "retention-sync daemon started",
    );

    // Terms, one after the other, until shutdown: a standby waits for the lead, a leader leads.
    const terms = (async () => {
      let clean = leading ? await leading : true;
      while (!shutdown.signal.aborted) {
        const term = await leadership.next(shutdown.signal);
        if (!term) break;
        clean = await lead(term);
      }
      return clean;
    })();

    let stopping: Promise<{ clean: boolean }> | undefined;
    return {
      opsUrl: ops.url,
      webhookUrl,
      reconcileNow: () => {
        const current = work;
        if (!current?.reconcileJob) {
          if (!current && deps.reconcile) logger.info("standby: the leader reconciles");
          return Promise.resolve();
        }
        return current.runner.run("reconcile", current.reconcileJob);
      },
      stop(reason) {
        stopping ??= (async () => {
          logger.info(
            { reason, graceMs: deps.shutdownGraceMs },
            "shutting down: no new work, finishing the running step",
          );
          const started = Date.now();
          shutdown.abort();
          const clean = await terms;
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
    shutdown.abort();
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    await firstTerm?.release().catch(() => undefined);
    throw error;
  }
}
