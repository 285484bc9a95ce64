import type { AlertRoute } from "../config/schema.js";
import { type Alert, DEPARTURE, effectiveScore, RISK_LEVEL_FLOOR } from "./alert.js";
import type { LensKind } from "./lens.js";

/** Threshold of a route that names neither `minRiskScore` nor `minRiskLevel`, and of the no-routes default: Watch. */
export const DEFAULT_MIN_RISK_SCORE = RISK_LEVEL_FLOOR.watch;

export interface RoutingConfig {
  readonly routes: readonly AlertRoute[];
  /** `slack.channel`: where everything at Watch or above goes when no routes are configured. */
  readonly defaultChannel?: string | undefined;
}

export interface RouteMatch {
  readonly channel: string;
  /** Names (or positions) of the routes that chose this channel, for logs. */
  readonly routes: readonly string[];
}

/** The effective routes: the configured ones, or one catch-all route to `slack.channel`. */
export function effectiveRoutes(config: RoutingConfig): readonly AlertRoute[] {
  if (config.routes.length > 0) return config.routes;
  if (!config.defaultChannel) return [];
  return [{ name: "default", lens: "both", minRiskScore: DEFAULT_MIN_RISK_SCORE, channel: config.defaultChannel }];
}

/** The score a route needs: the stricter of `minRiskScore` and `minRiskLevel`, Watch when it names neither. */
export function routeThreshold(route: AlertRoute): number {
  const fromScore = route.minRiskScore;
  const fromLevel = route.minRiskLevel === undefined ? undefined : RISK_LEVEL_FLOOR[route.minRiskLevel];
  if (fromScore === undefined && fromLevel === undefined) return DEFAULT_MIN_RISK_SCORE;
  return Math.max(fromScore ?? 0, fromLevel ?? 0);
}

export function routeCoversLens(route: AlertRoute, lens: LensKind): boolean {
  return route.lens === "both" || route.lens === lens;
}

/** competitorIds narrow the poaching lens only; a retention alert is never excluded by them. */
export function routeCoversCompetitor(route: AlertRoute, alert: Alert): boolean {
  if (!route.competitorIds || route.competitorIds.length === 0 || alert.lens.kind !== "poaching") return true;
  return route.competitorIds.includes(alert.lens.competitor.id);
}

function sameText(a: string, b: string): boolean {
  return a.trim().localeCompare(b.trim(), undefined, { sensitivity: "accent" }) === 0;
}

function matchesList(list: readonly string[] | undefined, value: string | undefined): boolean {
  if (!list || list.length === 0) return true;
  if (value === undefined) return false;
  return list.some((entry) => sameText(entry, value));
}

/** Whether one route wants one alert. Departures pass every filter but the lens (and its competitor scope). */
export function routeMatches(route: AlertRoute, alert: Alert): boolean {
  if (!routeCoversLens(route, alert.lens.kind) || !routeCoversCompetitor(route, alert)) return false;
  if (alert.changeType === DEPARTURE) return true;
  if (effectiveScore(alert) < routeThreshold(route)) return false;
  if (
    route.changeTypes &&
    route.changeTypes.length > 0 &&
    !(route.changeTypes as readonly string[]).includes(alert.changeType)
  ) {
    return false;
  }
  return matchesList(route.departments, alert.person.department) && matchesList(route.locations, alert.person.location);
}

/**
 * Every channel that should receive an alert, each once, in route order. Several routes can
 * match; two routes to the same channel give one message there.
 */
export function routeAlert(alert: Alert, config: RoutingConfig): RouteMatch[] {
  const byChannel = new Map<string, string[]>();
  effectiveRoutes(config).forEach((route, index) => {
    if (!routeMatches(route, alert)) return;
    const names = byChannel.get(route.channel) ?? [];
    names.push(route.name ?? `routes[${index}]`);
    byChannel.set(route.channel, names);
  });
  return [...byChannel].map(([channel, routes]) => ({ channel, routes }));
}
