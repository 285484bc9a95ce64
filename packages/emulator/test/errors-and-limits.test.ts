import { describe, expect, it } from "vitest";
import { expectError, expectInvalid, expectRetryAfter } from "./support/expect-error.js";
import { asArray, bootEmulator, obj, sharedEmulator } from "./support/wire.js";

const wire = sharedEmulator({ seed: "demo", rateLimitPerMinute: 10_000 });

async function someEmployeeId(): Promise<number> {
  const page = await wire().get("/employees", { query: { pageSize: 1 } });
  return Number(obj(asArray(page.json.items)[0]).id);
}

describe("4 common status codes / 7 INVALID_BODY", () => {
  it("4 pagination: page must be an integer >= 1 (400 naming page)", async () => {
    for (const page of ["0", "-1", "abc", "1.5"]) {
      expectInvalid(await wire().get("/employees", { query: { page } }), "page");
    }
  });

  it("4/8 pagination: pageSize must be 1..100 (400 naming pageSize)", async () => {
    for (const pageSize of ["0", "101", "x"]) {
      expectInvalid(await wire().get("/employees", { query: { pageSize } }), "pageSize");
      expectInvalid(await wire().get("/changes", { query: { pageSize } }), "pageSize");
    }
    const id = await someEmployeeId();
    expectInvalid(await wire().get(`/employees/${id}/changes`, { query: { pageSize: 101 } }), "pageSize");
  });

  it("4.3 GET /employees tracked must be a boolean", async () => {
    expectInvalid(await wire().get("/employees", { query: { tracked: "maybe" } }), "tracked");
  });

  it("4.4 GET /changes: minRiskScore 0..1, since a date-time, changeType from the enum of 2.5", async () => {
    expectInvalid(await wire().get("/changes", { query: { minRiskScore: 2 } }), "minRiskScore");
    expectInvalid(await wire().get("/changes", { query: { minRiskScore: "high" } }), "minRiskScore");
    expectInvalid(await wire().get("/changes", { query: { since: "yesterday" } }), "since");
    expectInvalid(await wire().get("/changes", { query: { changeType: "salary_change" } }), "changeType");
  });

  it("4.2 GET /organization: organizationId must be an integer >= 1", async () => {
    expectInvalid(await wire().get("/organization", { query: { organizationId: "abc" } }), "organizationId");
    expectInvalid(await wire().get("/organization", { query: { organizationId: 0 } }), "organizationId");
  });

  it("4.3 path id must be an integer >= 1", async () => {
    expectInvalid(await wire().get("/employees/abc"), "id");
  });

  it("7 a body that is not JSON: 400 INVALID_BODY", async () => {
    const res = await wire().api("POST", "/employees", { rawBody: "{not json" });
    expectError(res, 400, "INVALID_BODY");
  });

  it("4.3 POST /employees without networkUrl, or mistyped fields: 400 naming the parameter", async () => {
    expectInvalid(await wire().post("/employees", {}), "networkUrl");
    expectInvalid(await wire().post("/employees", { networkUrl: 42 }), "networkUrl");
    expectInvalid(
      await wire().post("/employees", { networkUrl: "https://www.linkedin.com/in/typed", tracked: "yes" }),
      "tracked",
    );
  });

  it("4.2/4.3/4.5/4.6 PATCH with no property: 400 INVALID_BODY", async () => {
    const w = wire();
    expectError(await w.patch("/organization", {}), 400, "INVALID_BODY");
    expectError(await w.patch(`/employees/${await someEmployeeId()}`, {}), 400, "INVALID_BODY");
    const competitor = obj(asArray((await w.get("/competitors")).body)[0]);
    expectError(await w.patch(`/competitors/${String(competitor.id)}`, {}), 400, "INVALID_BODY");
    const hook = await w.post("/webhooks", { url: "https://hooks.example.com/empty-patch" });
    expect(hook.status).toBe(201);
    expectError(await w.patch(`/webhooks/${String(hook.json.id)}`, {}), 400, "INVALID_BODY");
  });

  it("4.3 PATCH /employees/{id} status must be active or archived", async () => {
    expectInvalid(await wire().patch(`/employees/${await someEmployeeId()}`, { status: "importing" }), "status");
  });

  it("4 404 without code: unknown employee, competitor, webhook", async () => {
    expectError(await wire().get("/employees/99999999"), 404, null);
    expectError(await wire().get("/employees/99999999/changes"), 404, null);
    expectError(await wire().patch("/employees/99999999", { tracked: false }), 404, null);
    expectError(await wire().delete("/employees/99999999"), 404, null);
    expectError(await wire().get("/competitors/99999999"), 404, null);
    expectError(await wire().patch("/webhooks/whe_missing", { enabled: true }), 404, null);
    expectError(await wire().delete("/webhooks/whe_missing"), 404, null);
  });
});

describe("8 request rate / 7 rule 3", () => {
  it("8 over the per-minute limit: 429 without code, integer Retry-After >= 1; per key; clock frees it", async () => {
    const w = await bootEmulator({ seed: "empty", rateLimitPerMinute: 5 });
    try {
      for (let i = 0; i < 5; i += 1) expect((await w.get("/me")).status).toBe(200);
      const limited = await w.get("/me");
      expectError(limited, 429, null);
      const seconds = expectRetryAfter(limited);
      expect(seconds).toBeLessThanOrEqual(60);
      // another key has its own budget
      expect((await w.get("/me", { key: w.readKey })).status).toBe(200);
      await w.advanceClock(61);
      expect((await w.get("/me")).status).toBe(200);
    } finally {
      await w.close();
    }
  });

  it("8 the default limit is 120 requests per minute", async () => {
    const w = await bootEmulator({ seed: "empty" });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 130; i += 1) statuses.push((await w.get("/me")).status);
      expect(statuses.slice(0, 120).every((s) => s === 200)).toBe(true);
      // the bucket refills continuously (2 per second), so allow a few refilled tokens
      const ok = statuses.filter((s) => s === 200).length;
      expect(ok).toBeLessThanOrEqual(125);
      expect(statuses.slice(120).every((s) => s === 200 || s === 429)).toBe(true);
    } finally {
      await w.close();
    }
  });
});
