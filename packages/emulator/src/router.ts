import type { Emulator } from "./emulator.js";
import type { KeyRecord } from "./model.js";

export interface RequestContext {
  em: Emulator;
  key: KeyRecord;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  body: unknown;
  now: number;
}

export interface RouteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface Route {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Path under /api/v1 with `:name` segments. */
  pattern: string;
  handler: (ctx: RequestContext) => RouteResult | Promise<RouteResult>;
}

export const WRITE_METHODS = new Set(["POST", "PATCH", "DELETE"]);

/** Finds the route for a method and path; `pathMatched` tells 404-for-path from a bad method. */
export function matchRoute(
  routes: readonly Route[],
  method: string,
  path: string,
): { route: Route; params: Record<string, string> } | undefined {
  const segs = path.split("/").filter((s) => s !== "");
  for (const route of routes) {
    if (route.method !== method) continue;
    const pat = route.pattern.split("/").filter((s) => s !== "");
    if (pat.length !== segs.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pat.length; i++) {
      const p = pat[i] ?? "";
      const s = segs[i] ?? "";
      if (p.startsWith(":")) params[p.slice(1)] = decodeURIComponent(s);
      else if (p !== s) {
        ok = false;
        break;
      }
    }
    if (ok) return { route, params };
  }
  return undefined;
}

export const ok = (body: unknown, status = 200): RouteResult => ({ status, body });
