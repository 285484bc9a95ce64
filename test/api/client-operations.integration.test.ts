import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RetentionClient } from "../../src/api/client.js";
import { ApiResponseError, AuthenticationError, LocalValidationError } from "../../src/errors.js";
import { captureLogs } from "../helpers/capture-logs.js";
import { type Harness, startHarness, TEST_KEY } from "./support/client-setup.js";
import { billingWire, changeWire, employeeWire, meWire, organizationWire, pageWire } from "./support/fixtures.js";
import type { RecordedRequest } from "./support/scripted-server.js";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const competitorWire = { id: 2, name: "Globex", roleFilters: [], paused: false, trackedEmployeeCount: 4 };
const webhookWire = { id: "whe_1", url: "https://example.com/h", enabled: true };

function shape(r: RecordedRequest) {
  return { method: r.method, path: r.path, query: Object.fromEntries(r.query), body: r.body };
}

describe("every operation sends the spec's request and parses its answer", () => {
  const cases: Array<[string, (c: RetentionClient) => Promise<unknown>, unknown, ReturnType<typeof shape>]> = [
    ["me", (c) => c.me(), meWire, { method: "GET", path: "/me", query: {}, body: undefined }],
    [
      "getOrganization",
      (c) => c.getOrganization(2),
      organizationWire,
      { method: "GET", path: "/organization", query: { organizationId: "2" }, body: undefined },
    ],
    [
      "updateOrganization",
      (c) => c.updateOrganization({ alertRiskThreshold: 0.75, organizationId: 2 }),
      organizationWire,
      { method: "PATCH", path: "/organization", query: {}, body: { alertRiskThreshold: 0.75, organizationId: 2 } },
    ],
    ["getBilling", (c) => c.getBilling(), billingWire, { method: "GET", path: "/billing", query: {}, body: undefined }],
    [
      "listEmployees",
      (c) => c.listEmployees({ q: "ann", tracked: false, page: 2, pageSize: 10 }),
      pageWire([employeeWire(1)], 2, 10, 11),
      {
        method: "GET",
        path: "/employees",
        query: { q: "ann", tracked: "false", page: "2", pageSize: "10" },
        body: undefined,
      },
    ],
    [
      "addEmployee",
      (c) => c.addEmployee({ networkUrl: "https://www.linkedin.com/in/a", tracked: false, name: "A" }),
      employeeWire(3),
      {
        method: "POST",
        path: "/employees",
        query: {},
        body: { networkUrl: "https://www.linkedin.com/in/a", tracked: false, name: "A" },
      },
    ],
    [
      "bulkAddEmployees",
      (c) => c.bulkAddEmployees({ networkUrls: ["u1", "u2"], organizationId: 2 }),
      { added: [employeeWire(3)], skipped: [], seatAllowance: { perDay: 200, usedLast24h: 1, left: 199 } },
      { method: "POST", path: "/employees/bulk", query: {}, body: { networkUrls: ["u1", "u2"], organizationId: 2 } },
    ],
    [
      "getEmployee",
      (c) => c.getEmployee(3),
      employeeWire(3),
      { method: "GET", path: "/employees/3", query: {}, body: undefined },
    ],
    [
      "updateEmployee",
      (c) => c.updateEmployee(3, { status: "archived" }),
      employeeWire(3),
      { method: "PATCH", path: "/employees/3", query: {}, body: { status: "archived" } },
    ],
    [
      "deleteEmployee",
      (c) => c.deleteEmployee(3, { permanent: true }),
      { id: 3, deleted: true },
      { method: "DELETE", path: "/employees/3", query: { permanent: "true" }, body: undefined },
    ],
    [
      "listEmployeeChanges",
      (c) => c.listEmployeeChanges(3, { pageSize: 5 }),
      pageWire([changeWire(1)], 1, 5, 1),
      { method: "GET", path: "/employees/3/changes", query: { pageSize: "5" }, body: undefined },
    ],
    [
      "listChanges",
      (c) =>
        c.listChanges({
          minRiskScore: 0.5,
          since: "2026-11-22T00:00:00Z",
          changeType: "open_to_work",
          organizationId: 2,
        }),
      pageWire([changeWire(1)], 1, 25, 1),
      {
        method: "GET",
        path: "/changes",
        query: { minRiskScore: "0.5", since: "2026-11-22T00:00:00Z", changeType: "open_to_work", organizationId: "2" },
        body: undefined,
      },
    ],
    [
      "listCompetitors",
      (c) => c.listCompetitors(),
      [competitorWire],
      { method: "GET", path: "/competitors", query: {}, body: undefined },
    ],
    [
      "getCompetitor",
      (c) => c.getCompetitor(2),
      competitorWire,
      { method: "GET", path: "/competitors/2", query: {}, body: undefined },
    ],
    [
      "addCompetitor",
      (c) =>
        c.addCompetitor({
          companyNetworkUrl: "https://www.linkedin.com/company/globex",
          roleFilters: ["sales"],
          name: "Globex",
        }),
      competitorWire,
      {
        method: "POST",
        path: "/competitors",
        query: {},
        body: { companyNetworkUrl: "https://www.linkedin.com/company/globex", roleFilters: ["sales"], name: "Globex" },
      },
    ],
    [
      "updateCompetitor",
      (c) => c.updateCompetitor(2, { paused: true }),
      competitorWire,
      { method: "PATCH", path: "/competitors/2", query: {}, body: { paused: true } },
    ],
    [
      "deleteCompetitor",
      (c) => c.deleteCompetitor(2),
      { id: 2, deleted: true },
      { method: "DELETE", path: "/competitors/2", query: {}, body: undefined },
    ],
    [
      "listWebhooks",
      (c) => c.listWebhooks(),
      [webhookWire],
      { method: "GET", path: "/webhooks", query: {}, body: undefined },
    ],
    [
      "addWebhook",
      (c) => c.addWebhook({ url: "https://example.com/h", employeeWarningSensitivity: 2 }),
      { ...webhookWire, secret: "whsec_x" },
      {
        method: "POST",
        path: "/webhooks",
        query: {},
        body: { url: "https://example.com/h", employeeWarningSensitivity: 2 },
      },
    ],
    [
      "updateWebhook",
      (c) => c.updateWebhook("whe_1", { enabled: false }),
      webhookWire,
      { method: "PATCH", path: "/webhooks/whe_1", query: {}, body: { enabled: false } },
    ],
    [
      "deleteWebhook",
      (c) => c.deleteWebhook("whe_1"),
      { id: "whe_1", deleted: true },
      { method: "DELETE", path: "/webhooks/whe_1", query: {}, body: undefined },
    ],
  ];

  it.each(cases)("%s", async (_name, call, answer, expected) => {
    h.server.enqueue({ status: 200, body: answer });
    const result = await call(h.client());
    expect(result).toBeDefined();
    expect(h.server.requests).toHaveLength(1);
    const request = h.server.requests[0] as RecordedRequest;
    expect(shape(request)).toEqual(expected);
    expect(request.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
    expect(request.headers.accept).toBe("application/json");
    if (expected.body !== undefined) expect(request.headers["content-type"]).toBe("application/json");
  });

  it("sends User-Agent retention-sync/<package version>", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    h.server.enqueue({ status: 200, body: meWire });
    await h.client().me();
    expect(h.server.requests[0]?.headers["user-agent"]).toBe(`retention-sync/${version}`);
  });

  it("tolerates unknown fields anywhere in an answer", async () => {
    h.server.enqueue({
      status: 200,
      body: pageWire([employeeWire(1, { mood: "ok", latestChange: { ...changeWire(1), extra: [1] } })], 1, 25, 1, {
        cursor: "abc",
      }),
    });
    const page = await h.client().listEmployees();
    expect(page.items[0]?.latestChange?.riskLevel).toBe("high");
  });
});

describe("pagination", () => {
  it("walks every page with pageSize 100 and yields each row once", async () => {
    const all = Array.from({ length: 250 }, (_, i) => employeeWire(i + 1));
    h.server.setHandler((r) => {
      const page = Number(r.query.get("page"));
      const size = Number(r.query.get("pageSize"));
      return { status: 200, body: pageWire(all.slice((page - 1) * size, page * size), page, size, all.length) };
    });
    const ids: number[] = [];
    for await (const e of h.client().iterateEmployees({ tracked: true })) ids.push(e.id);
    expect(ids).toEqual(all.map((e) => e.id));
    expect(
      h.server.requests.map((r) => [r.query.get("page"), r.query.get("pageSize"), r.query.get("tracked")]),
    ).toEqual([
      ["1", "100", "true"],
      ["2", "100", "true"],
      ["3", "100", "true"],
    ]);
  });

  it("walks the change feed with its filters and dedupes a row shifted onto the next page", async () => {
    h.server.enqueue(
      { status: 200, body: { items: [changeWire(3), changeWire(2)], hasMore: true } },
      { status: 200, body: { items: [changeWire(2), changeWire(1)], hasMore: false } },
    );
    const keys: string[] = [];
    for await (const c of h.client().iterateChanges({ since: "2026-11-20T00:00:00Z", pageSize: 2 })) keys.push(c.key);
    expect(keys).toEqual(["chg:3", "chg:2", "chg:1"]);
    expect(h.server.requests.every((r) => r.query.get("since") === "2026-11-20T00:00:00Z")).toBe(true);
  });

  it("stops with ApiResponseError when the server keeps answering hasMore with empty pages", async () => {
    h.server.setHandler(() => ({ status: 200, body: { items: [], hasMore: true, total: 999 } }));
    const walk = async () => {
      for await (const _ of h.client().iterateChanges()) {
        // nothing
      }
    };
    await expect(walk()).rejects.toBeInstanceOf(ApiResponseError);
    expect(h.server.requests).toHaveLength(1);
  });
});

describe("bad local input never reaches the wire", () => {
  const bad: Array<[string, (c: RetentionClient) => Promise<unknown>]> = [
    ["pageSize 0", (c) => c.listEmployees({ pageSize: 0 })],
    ["pageSize 101", (c) => c.listChanges({ pageSize: 101 })],
    ["page 0", (c) => c.listEmployees({ page: 0 })],
    ["page 1.5", (c) => c.listEmployeeChanges(1, { page: 1.5 })],
    ["empty bulk", (c) => c.bulkAddEmployees({ networkUrls: [] })],
    ["51 urls", (c) => c.bulkAddEmployees({ networkUrls: Array.from({ length: 51 }, (_, i) => `u${i}`) })],
    ["sensitivity 0", (c) => c.addWebhook({ url: "https://e.com/h", employeeWarningSensitivity: 0 })],
    ["sensitivity 6", (c) => c.updateWebhook("whe_1", { poachingOpportunitySensitivity: 6 })],
    ["threshold 1.5", (c) => c.updateOrganization({ alertRiskThreshold: 1.5 })],
    ["minRiskScore -0.1", (c) => c.listChanges({ minRiskScore: -0.1 })],
    ["empty org patch", (c) => c.updateOrganization({ organizationId: 2 })],
    ["empty employee patch", (c) => c.updateEmployee(1, {})],
    ["empty competitor patch", (c) => c.updateCompetitor(2, { paused: undefined })],
    ["empty webhook patch", (c) => c.updateWebhook("whe_1", {})],
    ["id 0", (c) => c.getEmployee(0)],
    ["id -3", (c) => c.deleteCompetitor(-3)],
    ["id 1.2", (c) => c.getCompetitor(1.2)],
    ["since garbage", (c) => c.listChanges({ since: "yesterday-ish" })],
    ["unknown changeType", (c) => c.listChanges({ changeType: "vibes" })],
    ["empty networkUrl", (c) => c.addEmployee({ networkUrl: "" })],
    [
      "iterator pageSize 500",
      async (c) => {
        for await (const _ of c.iterateEmployees({ pageSize: 500 })) {
          // nothing
        }
      },
    ],
  ];
  it.each(bad)("%s", async (_name, call) => {
    await expect(call(h.client())).rejects.toBeInstanceOf(LocalValidationError);
    expect(h.server.requests).toHaveLength(0);
  });
});

describe("the API key stays secret", () => {
  it("appears in no error message, stack, URL or log line (even unscrubbed logs)", async () => {
    const logs = captureLogs({ level: "trace", secrets: [] });
    const client = h.client({ logger: logs.logger, maxRetries: 2 });
    h.server.enqueue(
      { status: 500, body: { error: `internal error for ${TEST_KEY}` } },
      { destroy: true },
      { status: 401, body: { error: `Unknown key ${TEST_KEY}` } },
    );
    const error = await client.me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    const text = `${(error as Error).message}\n${(error as Error).stack}`;
    expect(text).not.toContain(TEST_KEY);
    expect(text).toContain("[redacted]");
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(logs.text()).not.toContain(TEST_KEY);
    expect(h.server.requests.every((r) => !r.url.includes(TEST_KEY))).toBe(true);
  });

  it("logs a debug line per request and a warn line per retry", async () => {
    const logs = captureLogs({ level: "debug" });
    h.server.enqueue({ status: 503, body: { error: "x" } }, { status: 200, body: meWire });
    await h.client({ logger: logs.logger }).me();
    const records = logs.records();
    expect(records.filter((r) => r.level === 20 && r.path === "/me").map((r) => [r.status, r.attempt])).toEqual([
      [503, 1],
      [200, 2],
    ]);
    expect(records.filter((r) => r.level === 40)).toHaveLength(1);
    expect(records.find((r) => r.level === 40)).toMatchObject({ method: "GET", path: "/me", status: 503, attempt: 1 });
  });
});
