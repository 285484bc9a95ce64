/**
 * A loopback stand-in for the service that answers well on every endpoint reconcile and poll use,
 * except where a test breaks one. Built on the scripted server of the API tests (unchanged); the
 * breakages live here so the corpus reads as a table.
 */
import { billingWire, changeWire, employeeWire } from "../../api/support/fixtures.js";
import {
  type RecordedRequest,
  type ScriptedResponse,
  type ScriptedServer,
  startScriptedServer,
} from "../../api/support/scripted-server.js";

export const ENDPOINTS = [
  "GET /me",
  "GET /competitors",
  "GET /changes",
  "GET /employees",
  "GET /employees/{id}",
  "GET /billing",
  "POST /employees/bulk",
  "PATCH /employees/{id}",
  "DELETE /employees/{id}",
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export type Answer = ScriptedResponse | ((request: RecordedRequest) => ScriptedResponse);

/** The company's roster on the fake service: people 1-5, as the HRIS file of the tests lists them. */
export const ROSTER_IDS = [1, 2, 3, 4, 5] as const;
export const ORGANIZATION_ID = 1;

const HTML = "<!doctype html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>";

/** Broken bodies any endpoint can be given. */
export const BROKEN = {
  html200: { status: 200, rawBody: HTML },
  html502: { status: 502, rawBody: HTML },
  empty200: { status: 200, rawBody: "" },
  emptyObject: { status: 200, body: {} },
  jsonNull: { status: 200, rawBody: "null" },
  truncated: { status: 200, rawBody: '{"items":[{"id":1,"organizationId":1,"name":"Pers' },
  deeplyNested: { status: 200, rawBody: `{"items":${"[".repeat(100_000)}${"]".repeat(100_000)}}` },
} satisfies Record<string, ScriptedResponse>;

export function intParam(request: RecordedRequest, name: string, fallback: number): number {
  const value = Number(request.query.get(name));
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

/** A page envelope over `all`, cut by the request's page and pageSize, as the spec describes it. */
export function pageOf(request: RecordedRequest, all: readonly unknown[]): ScriptedResponse {
  const page = intParam(request, "page", 1);
  const pageSize = intParam(request, "pageSize", 25);
  const items = all.slice((page - 1) * pageSize, page * pageSize);
  return { status: 200, body: { items, total: all.length, page, pageSize, hasMore: page * pageSize < all.length } };
}

function defaults(roster: () => readonly number[], changes: () => readonly unknown[]): Record<Endpoint, Answer> {
  return {
    "GET /me": {
      status: 200,
      body: { organization: { id: ORGANIZATION_ID, name: "Acme Corp" }, competitors: [], scopes: ["read", "write"] },
    },
    "GET /competitors": { status: 200, body: [] },
    "GET /changes": (r) => pageOf(r, changes()),
    "GET /employees": (r) =>
      pageOf(
        r,
        roster().map((id) => employeeWire(id)),
      ),
    "GET /employees/{id}": (r) => ({ status: 200, body: employeeWire(Number(r.path.split("/")[2])) }),
    "GET /billing": { status: 200, body: billingWire },
    "POST /employees/bulk": (r) => {
      const urls = (r.body as { networkUrls?: string[] }).networkUrls ?? [];
      return {
        status: 200,
        body: { added: urls.map((url, i) => employeeWire(900 + i, { networkUrl: url })), skipped: [] },
      };
    },
    "PATCH /employees/{id}": (r) => ({
      status: 200,
      body: employeeWire(Number(r.path.split("/")[2]), { status: "archived" }),
    }),
    "DELETE /employees/{id}": (r) => ({ status: 200, body: { id: Number(r.path.split("/")[2]), deleted: true } }),
  };
}

function endpointOf(request: RecordedRequest): Endpoint | undefined {
  const path = request.path.replace(/\/\d+(?=\/|$)/g, "/{id}");
  const key = `${request.method} ${path}`;
  return (ENDPOINTS as readonly string[]).includes(key) ? (key as Endpoint) : undefined;
}

export interface BadApi {
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Breaks the given endpoints until the next `reset`. */
  set(answers: Partial<Record<Endpoint, Answer>>): void;
  /** Who is on the service roster (default people 1-5) and which changes /changes lists (default none). */
  shape(state: { roster?: readonly number[]; changes?: readonly unknown[] }): void;
  reset(): void;
  /** Requests that change something (anything but GET). */
  writes(): RecordedRequest[];
  close(): Promise<void>;
}

export async function startBadApi(): Promise<BadApi> {
  const server: ScriptedServer = await startScriptedServer();
  let roster: readonly number[] = ROSTER_IDS;
  let changes: readonly unknown[] = [];
  let overrides: Partial<Record<Endpoint, Answer>> = {};
  const base = defaults(
    () => roster,
    () => changes,
  );
  server.setHandler((request) => {
    const endpoint = endpointOf(request);
    if (!endpoint) return { status: 404, body: { error: `no route ${request.method} ${request.path}` } };
    const answer = overrides[endpoint] ?? base[endpoint];
    return typeof answer === "function" ? answer(request) : answer;
  });
  return {
    baseUrl: server.baseUrl,
    requests: server.requests,
    set(answers) {
      overrides = { ...overrides, ...answers };
    },
    shape(state) {
      if (state.roster) roster = state.roster;
      if (state.changes) changes = state.changes;
    },
    reset() {
      overrides = {};
      roster = ROSTER_IDS;
      changes = [];
      server.requests.length = 0;
    },
    writes: () => server.requests.filter((r) => r.method !== "GET"),
    close: () => server.close(),
  };
}

export { changeWire, employeeWire };
