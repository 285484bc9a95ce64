import type { Config } from "../config/schema.js";
import type { RoutingConfig } from "./route-alert.js";

/** Everything the alert flow reads from the config, built once, so both doors see the same values. */
export interface AlertSettings {
  readonly routing: RoutingConfig;
  /** A channel gets digest messages when one hand-over (or its backlog) brings more alerts than this. */
  readonly digestThreshold: number;
  /** alerts.managerDm.enabled */
  readonly managerDm: boolean;
  /** alerts.dashboardUrl: base for person links when a change carries none. */
  readonly dashboardUrl: string | undefined;
  /** alerts.initialLookback, in seconds: where a lens without a cursor starts. */
  readonly initialLookbackSeconds: number;
  /** alerts.dedupeRetention in ms: how long handled changes, sent marks and thread roots are kept. */
  readonly retentionMs: number;
  /** slack.messagesPerSecondPerChannel */
  readonly messagesPerSecondPerChannel: number;
  readonly webhook: { readonly secrets: readonly string[]; readonly toleranceSeconds: number };
}

export function alertSettings(config: Pick<Config, "alerts" | "slack">): AlertSettings {
  const { alerts, slack } = config;
  return {
    routing: { routes: alerts.routes, defaultChannel: slack.channel },
    digestThreshold: alerts.digestThreshold,
    managerDm: alerts.managerDm.enabled,
    dashboardUrl: alerts.dashboardUrl,
    initialLookbackSeconds: alerts.initialLookback,
    retentionMs: alerts.dedupeRetention * 1000,
    messagesPerSecondPerChannel: slack.messagesPerSecondPerChannel,
    webhook: { secrets: alerts.webhook.secrets, toleranceSeconds: alerts.webhook.toleranceSeconds },
  };
}
