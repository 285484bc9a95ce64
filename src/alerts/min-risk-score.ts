import type { Lens } from "./lens.js";
import { type RoutingConfig, routerFor } from "./route-alert.js";

/**
 * The `minRiskScore` to ask `/changes` for on one lens: the lowest threshold of any route (or the
 * catch-all `slack.channel`) that could take an alert from it (departures come regardless, spec
 * 4.4). `null` means nothing can use this lens at all, so it need not be polled.
 */
export function minRiskScoreForLens(lens: Lens, config: RoutingConfig): number | null {
  return routerFor(config).minRiskScore(lens);
}
