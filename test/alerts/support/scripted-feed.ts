/**
 * A purpose-built stand-in for the service's read side, answering over a scripted server: the
 * test decides which changes are visible when (a change dated before the last pass can appear
 * later, as with detection lag at the service), `since` filters like spec 4.4, newest first.
 */

import { changeWire } from "../../api/support/fixtures.js";
import type { RecordedRequest, ScriptedResponse, ScriptHandler } from "../../api/support/scripted-server.js";

export interface FeedChange {
  readonly id: number;
  readonly detectedAt: string;
  readonly overrides?: Record<string, unknown>;
}

export interface ScriptedFeed {
  /** Changes visible from now on. */
  show(...changes: FeedChange[]): void;
  /** The `since` of every `/changes` request, in order. */
  readonly sinces: string[];
  readonly handler: ScriptHandler;
}

export const FEED_ORG = 1;

export function scriptedFeed(): ScriptedFeed {
  const visible: FeedChange[] = [];
  const sinces: string[] = [];
  const page = (items: unknown[], query: URLSearchParams): ScriptedResponse => {
    const number = Number(query.get("page") ?? "1");
    const size = Number(query.get("pageSize") ?? "25");
    const slice = items.slice((number - 1) * size, number * size);
    return {
      status: 200,
      body: { items: slice, total: items.length, page: number, pageSize: size, hasMore: number * size < items.length },
    };
  };
  const handler = (request: RecordedRequest): ScriptedResponse => {
    if (request.path === "/me") {
      return {
        status: 200,
        body: { organization: { id: FEED_ORG, name: "Northwind" }, competitors: [], scopes: ["read"] },
      };
    }
    if (request.path === "/competitors") return { status: 200, body: [] };
    if (request.path === "/employees") return page([], request.query);
    if (request.path === "/changes") {
      const since = request.query.get("since") ?? "";
      sinces.push(since);
      const items = visible
        .filter((c) => since === "" || Date.parse(c.detectedAt) >= Date.parse(since))
        .sort((a, b) => Date.parse(b.detectedAt) - Date.parse(a.detectedAt))
        .map((c) => changeWire(c.id, { detectedAt: c.detectedAt, ...c.overrides }));
      return page(items, request.query);
    }
    return { status: 404, body: { error: "not found" } };
  };
  return {
    show: (...changes) => {
      visible.push(...changes);
    },
    sinces,
    handler,
  };
}
