import { FencedOutError, StoreError } from "../errors.js";
import type { DaemonEvents } from "./daemon-events.js";
import type { HealthMonitor } from "./health-monitor.js";
import type { Metrics } from "./metrics.js";

/**
 * Metrics and readiness from the daemon's events. `replicas`: only replicas have a role on
 * /readyz (a single instance leads from start to stop).
 */
export function observeDaemon(events: DaemonEvents, metrics: Metrics, health: HealthMonitor, replicas: boolean): void {
  const standby = () => {
    metrics.leader.set(0);
    if (replicas) health.setRole("standby");
  };
  events.on("starting", () => {
    if (replicas) {
      health.setRole("standby");
      health.leaderLockUnknown("leader lock not tried yet: the replica is starting");
    }
    metrics.leader.set(0);
  });
  events.on("lock-unknown", ({ problem }) => health.leaderLockUnknown(problem));
  events.on("lock-answered", () => health.leaderLockAnswered());
  events.on("store-failed", ({ error }) => health.storeFailed(error));
  events.on("store-ok", () => health.storeRecovered());
  events.on("swept", ({ fileBytes }) => metrics.stateBytes.set(fileBytes));
  events.on("listener-starting", ({ name }) => health.listenerStarting(name));
  events.on("listening", ({ name }) => health.listening(name));
  events.on("leading", () => {
    metrics.leader.set(1);
    if (replicas) health.setRole("leader");
  });
  events.on("standing-down", standby);
  events.on("term-ended", standby);
  events.on("job-failed", ({ error }) => {
    // A fenced-out write already ended the term; it says nothing about the store or the service.
    if (error instanceof FencedOutError) return;
    if (error instanceof StoreError) health.storeFailed(error);
    else health.apiFailed(error);
  });
}
