import type { Config } from "../config/schema.js";
import { buttonsEnabled } from "../interactive/interactive-settings.js";
import { originOf } from "./alert-links.js";
import type { FormatOptions } from "./format-alert.js";
import type { ManagerDmSettings } from "./plan-deliveries.js";
import type { RoutingConfig } from "./route-alert.js";

/** Everything the alert flow reads from the config, built once, so both doors see the same values. */
export interface AlertSettings {
  /** Routes and the catch-all; compiled once on first use (`routerFor`), as long as this object lives. */
  readonly routing: RoutingConfig;
  /** A channel gets digest messages when one hand-over (or its backlog) brings more alerts than this. */
  readonly digestThreshold: number;
  /** alerts.managerDm */
  readonly managerDm: ManagerDmSettings;
  /** alerts.nextSteps and the origins dashboard links may point to (the API's, alerts.dashboardUrl's). */
  readonly format: FormatOptions;
  /** alerts.dashboardUrl: base for person links when a change carries none. */
  readonly dashboardUrl: string | undefined;
  /** alerts.initialLookback, in seconds: where a lens without a cursor starts. */
  readonly initialLookbackSeconds: number;
  /** alerts.cursorOverlap, in seconds: how much before its cursor each pass re-reads a lens. */
  readonly cursorOverlapSeconds: number;
  /** alerts.dedupeRetention in ms: how long handled changes, sent marks, thread roots and scores are kept. */
  readonly retentionMs: number;
  /** slack.messagesPerSecondPerChannel */
  readonly messagesPerSecondPerChannel: number;
  /** slack.burstPerChannel */
  readonly burstPerChannel: number;
  readonly webhook: { readonly secrets: readonly string[]; readonly toleranceSeconds: number };
}

export function alertSettings(
  config: Pick<Config, "alerts" | "slack"> & { readonly api?: Pick<Config["api"], "url"> | undefined },
): AlertSettings {
  const { alerts, slack } = config;
  const dashboardOrigins = [originOf(config.api?.url), originOf(alerts.dashboardUrl)].filter(
    (origin): origin is string => origin !== undefined,
  );
  return {
    routing: { routes: alerts.routes, defaultChannel: slack.channel, poachingChannel: slack.poachingChannel },
    digestThreshold: alerts.digestThreshold,
    managerDm: { enabled: alerts.managerDm.enabled, minRiskLevel: alerts.managerDm.minRiskLevel },
    format: { nextSteps: alerts.nextSteps, dashboardOrigins, actions: buttonsEnabled(config) },
    dashboardUrl: alerts.dashboardUrl,
    initialLookbackSeconds: alerts.initialLookback,
    cursorOverlapSeconds: alerts.cursorOverlap,
    retentionMs: alerts.dedupeRetention * 1000,
    messagesPerSecondPerChannel: slack.messagesPerSecondPerChannel,
    burstPerChannel: slack.burstPerChannel,
    webhook: { secrets: alerts.webhook.secrets, toleranceSeconds: alerts.webhook.toleranceSeconds },
  };
}
