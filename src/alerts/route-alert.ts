import type { AlertRoute } from "../config/schema.js";
import { type Alert, DEPARTURE, effectiveScore, RISK_LEVEL_FLOOR } from "./alert.js";
import type { Lens, LensKind } from "./lens.js";

/**
 * Routing, like Alertmanager's route tree one level deep: configured routes in order (each can
 * stop the walk with `continue: false`), then a root route per lens for whatever no route took:
 * `slack.channel` for the retention lens, `slack.poachingChannel` for the poaching lens. The
 * catch-all never takes the poaching lens: competitors' people are not the HR channel's business
 * until someone decided they are (docs/privacy.md). Matching is on values normalised once: route entries when the routing is compiled
 * (once per config), an alert's department and location once per alert.
 */

/** Threshold of a route that names neither `minRiskScore` nor `minRiskLevel`, and of the catch-all: Watch. */
export const DEFAULT_MIN_RISK_SCORE = RISK_LEVEL_FLOOR.watch;

/** Name of the catch-all route (the retention lens's root) in logs and reports. */
export const CATCH_ALL = "slack.channel";
/** Name of the poaching lens's root route in logs and reports. */
export const POACHING_CATCH_ALL = "slack.poachingChannel";

export interface RoutingConfig {
  readonly routes: readonly AlertRoute[];
  /**
   * `slack.channel`: the catch-all of the retention lens. With no routes, every retention alert at
   * Watch or above goes there; with routes, every one at Watch or above that no route took.
   */
  readonly defaultChannel?: string | undefined;
  /** `slack.poachingChannel`: the same for the poaching lens; without it only routes take that lens. */
  readonly poachingChannel?: string | undefined;
}

export interface RouteMatch {
  readonly channel: string;
  /** Names (or positions) of the routes that chose this channel, for logs. */
  readonly routes: readonly string[];
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
export function routeCoversCompetitor(route: Pick<AlertRoute, "competitorIds">, lens: Lens): boolean {
  if (!route.competitorIds || route.competitorIds.length === 0 || lens.kind !== "poaching") return true;
  return route.competitorIds.includes(lens.competitor.id);
}

/** Department and location text as compared: Unicode-normalised, lower case, single spaces. */
export function normaliseText(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
type TextMatcher = (normalised: string) => boolean;

/**
 * One `departments` / `locations` entry as a matcher: with `*`, a wildcard over the whole value
 * (`Berlin*`, `*Germany`); without, the value itself or the value's first part (`Berlin` matches
 * "Berlin, Germany" and "Berlin (remote)", not "Berlingen"). Case-insensitive, accents count.
 */
export function entryMatcher(entry: string): TextMatcher {
  const wanted = normaliseText(entry);
  if (wanted.includes("*")) {
    const pattern = wanted
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    const regex = new RegExp(`^${pattern}$`, "u");
    return (value) => regex.test(value);
  }
  return (value) => {
    if (!value.startsWith(wanted)) return false;
    const next = value.charAt(wanted.length);
    return next === "" || !WORD_CHAR.test(next);
  };
}

/** A route with its list entries compiled. */
interface CompiledRoute {
  readonly route: AlertRoute;
  readonly name: string;
  readonly threshold: number;
  readonly changeTypes: ReadonlySet<string> | undefined;
  readonly departments: readonly TextMatcher[] | undefined;
  readonly locations: readonly TextMatcher[] | undefined;
  readonly stop: boolean;
}

/** What routing decided for one alert. */
export interface RouteDecision {
  /** Every channel, each once, in route order; the catch-all's when no route took the alert. */
  readonly matches: RouteMatch[];
  /** True when the alert went to its lens's root route (`slack.channel` or `slack.poachingChannel`). */
  readonly caughtAll: boolean;
}

function compileList(list: readonly string[] | undefined): TextMatcher[] | undefined {
  return list && list.length > 0 ? list.map(entryMatcher) : undefined;
}

function matchesList(matchers: readonly TextMatcher[] | undefined, value: string | undefined): boolean {
  if (!matchers) return true;
  if (value === undefined) return false;
  return matchers.some((match) => match(value));
}

/** The routing of one configuration, compiled once. */
export class Router {
  private readonly routes: readonly CompiledRoute[];
  private readonly catchAll: Readonly<Record<LensKind, string | undefined>>;

  constructor(config: RoutingConfig) {
    this.routes = config.routes.map((route, index) => ({
      route,
      name: route.name ?? `routes[${index}]`,
      threshold: routeThreshold(route),
      changeTypes: route.changeTypes && route.changeTypes.length > 0 ? new Set(route.changeTypes) : undefined,
      departments: compileList(route.departments),
      locations: compileList(route.locations),
      stop: route.continue === false,
    }));
    this.catchAll = { retention: config.defaultChannel, poaching: config.poachingChannel };
  }

  /**
   * Whether one route wants one alert. Every condition applies to every alert, except that a
   * departure (no score; reads as high) skips the score threshold.
   */
  private wants(r: CompiledRoute, alert: Alert, department: string | undefined, location: string | undefined) {
    if (!routeCoversLens(r.route, alert.lens.kind) || !routeCoversCompetitor(r.route, alert.lens)) return false;
    if (alert.changeType !== DEPARTURE && effectiveScore(alert) < r.threshold) return false;
    if (r.changeTypes && !r.changeTypes.has(alert.changeType)) return false;
    return matchesList(r.departments, department) && matchesList(r.locations, location);
  }

  /** Routes one alert: each channel once; a route with `continue: false` ends the walk when it matches. */
  route(alert: Alert): RouteDecision {
    const department = alert.person.department === undefined ? undefined : normaliseText(alert.person.department);
    const location = alert.person.location === undefined ? undefined : normaliseText(alert.person.location);
    const byChannel = new Map<string, string[]>();
    for (const r of this.routes) {
      if (!this.wants(r, alert, department, location)) continue;
      const names = byChannel.get(r.route.channel) ?? [];
      names.push(r.name);
      byChannel.set(r.route.channel, names);
      if (r.stop) break;
    }
    if (byChannel.size > 0) {
      return { matches: [...byChannel].map(([channel, routes]) => ({ channel, routes })), caughtAll: false };
    }
    const root = this.catchAll[alert.lens.kind];
    if (root === undefined || effectiveScore(alert) < DEFAULT_MIN_RISK_SCORE) {
      return { matches: [], caughtAll: false };
    }
    const name = alert.lens.kind === "poaching" ? POACHING_CATCH_ALL : CATCH_ALL;
    return { matches: [{ channel: root, routes: [name] }], caughtAll: true };
  }

  /**
   * The `minRiskScore` to ask `/changes` for on one lens: the lowest threshold of any route (or
   * the lens's root route) that could take an alert from it. A route that takes only departures needs no
   * score (departures always come, spec 4.4): alone it asks for 1. `null`: nothing can take an
   * alert of this lens, so it need not be polled.
   */
  minRiskScore(lens: Lens): number | null {
    let lowest: number | null = this.catchAll[lens.kind] === undefined ? null : DEFAULT_MIN_RISK_SCORE;
    for (const r of this.routes) {
      if (!routeCoversLens(r.route, lens.kind) || !routeCoversCompetitor(r.route, lens)) continue;
      const departuresOnly = r.changeTypes !== undefined && r.changeTypes.size === 1 && r.changeTypes.has(DEPARTURE);
      const needed = departuresOnly ? 1 : r.threshold;
      lowest = lowest === null ? needed : Math.min(lowest, needed);
    }
    return lowest;
  }
}

const compiled = new WeakMap<RoutingConfig, Router>();

/** The compiled routing of a configuration, built on first use and kept as long as the configuration. */
export function routerFor(config: RoutingConfig): Router {
  let router = compiled.get(config);
  if (!router) {
    router = new Router(config);
    compiled.set(config, router);
  }
  return router;
}

/** Every channel that should receive an alert (see `Router.route`). */
export function routeAlert(alert: Alert, config: RoutingConfig): RouteMatch[] {
  return routerFor(config).route(alert).matches;
}
