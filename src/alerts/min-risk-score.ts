import type { AlertRoute } from "../config/schema.js";
import type { Lens } from "./lens.js";
import { effectiveRoutes, type RoutingConfig, routeThreshold } from "./route-alert.js";

/**
 * The `minRiskScore` to ask `/changes` for on one lens: the lowest threshold of any route that
 * could take an alert from it (departures come regardless, spec 4.4). `null` means no route can
 * use this lens at all, so it need not be polled.
 */
export function minRiskScoreForLens(lens: Lens, config: RoutingConfig): number | null {
  const thresholds = effectiveRoutes(config)
    .filter((route) => lensCanReach(route, lens))
    .map(routeThreshold);
  return thresholds.length === 0 ? null : Math.min(...thresholds);
}

function lensCanReach(route: AlertRoute, lens: Lens): boolean {
  if (route.lens !== "both" && route.lens !== lens.kind) return false;
  if (lens.kind !== "poaching" || !route.competitorIds || route.competitorIds.length === 0) return true;
  return route.competitorIds.includes(lens.competitor.id);
}
