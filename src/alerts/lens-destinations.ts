import type { LensKind } from "./lens.js";
import { CATCH_ALL, POACHING_CATCH_ALL, type RoutingConfig, routeCoversLens } from "./route-alert.js";

const ROOT_OPTION: Readonly<Record<LensKind, string>> = {
  retention: `${CATCH_ALL} (SLACK_CHANNEL)`,
  poaching: `${POACHING_CATCH_ALL} (SLACK_POACHING_CHANNEL)`,
};

/**
 * Where each lens's alerts go, in one line per lens, for `check`: a new user must see before the
 * first pass whether competitors' people will reach a channel, and which.
 */
export function lensDestinations(routing: RoutingConfig): string[] {
  return (["retention", "poaching"] as const).map((lens) => {
    const routes = routing.routes
      .map((route, index) => ({ route, name: route.name ?? `routes[${index}]` }))
      .filter(({ route }) => routeCoversLens(route, lens))
      .map(({ route, name }) => `${name} → ${route.channel}`);
    const root = lens === "retention" ? routing.defaultChannel : routing.poachingChannel;
    if (routes.length === 0 && root === undefined) {
      return `${lens} lens: not posted — no route or ${ROOT_OPTION[lens]} takes it`;
    }
    const rest =
      root === undefined
        ? `the rest is not posted (no ${ROOT_OPTION[lens]})`
        : `${routes.length > 0 ? "the rest" : "everything"} at Watch or above → ${root} (${ROOT_OPTION[lens]})`;
    return `${lens} lens: ${[routes.length > 0 ? `routes ${routes.join(", ")}` : undefined, rest].filter(Boolean).join("; ")}`;
  });
}
