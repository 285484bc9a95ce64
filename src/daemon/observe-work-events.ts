import { AlertEvents } from "../alerts/alert-events.js";
import { ApiEvents } from "../api/api-events.js";
import { DeliveryEvents } from "../delivery/delivery-events.js";
import { InteractiveEvents } from "../interactive/interactive-events.js";
import { PullEvents } from "../roster/sources/pull-events.js";
import type { HealthMonitor } from "./health-monitor.js";
import type { Metrics } from "./metrics.js";
import { observeApiAttempt, observeChannelProblem, observePollPass, observeQueued } from "./observe-work.js";

/**
 * The events of the parts the daemon runs, one emitter a part. The composition root makes them,
 * subscribes the observer, then hands each part its own, so nothing a part emits is missed.
 */
export interface WorkEvents {
  readonly api: ApiEvents;
  readonly delivery: DeliveryEvents;
  readonly alerts: AlertEvents;
  readonly interactive: InteractiveEvents;
  readonly pull: PullEvents;
}

export function createWorkEvents(): WorkEvents {
  return {
    api: new ApiEvents(),
    delivery: new DeliveryEvents(),
    alerts: new AlertEvents(),
    interactive: new InteractiveEvents(),
    pull: new PullEvents(),
  };
}

/** Metrics and readiness from the parts' events, as `observeDaemon` does from the daemon's. */
export function observeWorkEvents(events: WorkEvents, metrics: Metrics, health: HealthMonitor): void {
  events.api.on("attempt", (attempt) => observeApiAttempt(metrics, health, attempt));
  events.delivery.on("channel-problem", ({ channel, problem }) =>
    observeChannelProblem(metrics, health, channel, problem),
  );
  events.alerts.on("queued", ({ count }) => observeQueued(metrics, count));
  events.alerts.on("poll-pass", ({ report, at }) => observePollPass(metrics, report, at));
  events.alerts.on("webhook-refused", ({ reason }) => metrics.requestsRefused.inc({ server: "webhook", reason }));
  events.interactive.on("press", ({ kind, outcome }) => metrics.slackActions.inc({ kind, outcome }));
  events.pull.on("pulled", ({ source, outcome, seconds }) => {
    metrics.rosterPulls.inc({ source, outcome });
    metrics.rosterPullSeconds.observe({ source }, seconds);
  });
  events.interactive.on("socket-state", ({ state }) => {
    metrics.slackSocketConnected.set(state === "connected" ? 1 : 0);
    health.statusNote("slack-socket", `slack socket mode: ${state}`);
  });
}
