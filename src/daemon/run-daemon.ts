import type { Logger } from "../logger.js";
import type { StateStore } from "../store/state-store.js";
import { Daemon, type DaemonService } from "./daemon.js";
import { DaemonEvents } from "./daemon-events.js";
import type { HealthMonitor } from "./health-monitor.js";
import { LOCK_NAMESPACE } from "./instance-lock.js";
import type { LeaderJobs } from "./leader-jobs.js";
import { type LeaderFence, type Leadership, replicaLeadership, singleInstance } from "./leadership.js";
import type { Metrics } from "./metrics.js";
import { observeDaemon } from "./observe-daemon.js";
import { type OpsRoute, startOpsServer } from "./ops-server.js";
import { storeProbe, storeSweep } from "./store-chores.js";

export interface DaemonDeps extends LeaderJobs {
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
  /**
   * Starts the optional webhook receiver (on every replica: a standby stores events for the
   * leader); resolves once it accepts connections, and /readyz is not ready before. (Slack's HTTP
   * interactivity is a route of the ops server: it listens when /readyz does.)
   */
  readonly webhookReceiver?: (() => Promise<{ readonly url: string; close(): Promise<void> }>) | undefined;
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

const WEBHOOK_LISTENER = "the webhook receiver";

/** Where the services that listen were reached, once started. */
interface Listening {
  ops: string;
  webhook: string | undefined;
}

/** Starts every enabled part of `retention-sync run` and returns a handle to stop it. */
export async function startDaemon(deps: DaemonDeps): Promise<RunningDaemon> {
  const { logger, store } = deps;
  const events = new DaemonEvents();
  const leadership = leadershipOf(deps, events);
  const replicas = leadership.mode === "replicas";
  observeDaemon(events, deps.metrics, deps.health, replicas);
  // Ready only once every listener accepts connections: the ops server answers /readyz before the
  // webhook receiver listens, and a delivery sent on its 200 would be refused.
  if (deps.webhookReceiver) events.emit("listener-starting", { name: WEBHOOK_LISTENER });
  const listening: Listening = { ops: "", webhook: undefined };
  const daemon = new Daemon({ ...deps, leadership, events, services: daemonServices(deps, events, listening) });
  await daemon.start();
  logger.info(
    {
      ops: listening.ops,
      webhook: listening.webhook ?? "off",
      poll: deps.poll ? `every ${deps.poll.intervalSeconds} s` : "off",
      reconcile: deps.reconcile ? `${deps.reconcile.schedule} (${deps.reconcile.timezone})` : "off",
      nextReconcile: daemon.nextReconcile?.toISOString(),
      state: store.location,
      ...(replicas ? { role: "standby", election: "the replica whose session holds the leader lock leads" } : {}),
    },
    "retention-sync daemon started",
  );
  return {
    opsUrl: listening.ops,
    webhookUrl: listening.webhook,
    reconcileNow: () => daemon.reconcileNow(),
    stop: (reason) => daemon.stop(reason),
  };
}

/** The election of a shared store (replicas), else the lease of the state file (one instance). */
function leadershipOf(deps: DaemonDeps, events: DaemonEvents): Leadership {
  const { store, logger } = deps;
  if (store.election) {
    return replicaLeadership(store.election, {
      ...deps.election,
      logger,
      onStoreError: (error) =>
        events.emit("lock-unknown", {
          problem: `leader lock unreachable: ${error instanceof Error ? error.message : String(error)}`,
        }),
      onAnswered: () => events.emit("lock-answered", {}),
    });
  }
  return singleInstance(store.namespace(LOCK_NAMESPACE), {
    ...(deps.lockLeaseMs === undefined ? {} : { leaseMs: deps.lockLeaseMs }),
    onRenewFailure: (error) => events.emit("store-failed", { error }),
  });
}

/**
 * What every replica runs, in this order: the ops server, the store probe, the expiry sweep (once
 * at start, then on a timer) and the webhook receiver, which closes first so no event is accepted
 * that the drain could not finish.
 */
function daemonServices(deps: DaemonDeps, events: DaemonEvents, listening: Listening): DaemonService[] {
  const { logger, store } = deps;
  const ops: DaemonService = {
    name: "ops server",
    async start() {
      const server = await startOpsServer({ ...deps.ops, health: deps.health, metrics: deps.metrics, logger });
      listening.ops = server.url;
      return () => server.close();
    },
  };
  const services = [
    ops,
    storeProbe(store, events, logger, deps.storeProbeIntervalMs ?? 15_000),
    storeSweep(store, events, logger, deps.storeSweepIntervalMs ?? 10 * 60_000),
  ];
  const startReceiver = deps.webhookReceiver;
  if (startReceiver) {
    services.push({
      name: WEBHOOK_LISTENER,
      async start() {
        const receiver = await startReceiver();
        events.emit("listening", { name: WEBHOOK_LISTENER });
        listening.webhook = receiver.url;
        return () => receiver.close();
      },
    });
  }
  return services;
}
