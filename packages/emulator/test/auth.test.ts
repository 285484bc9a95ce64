import { describe, expect, it } from "vitest";
import { expectError } from "./support/expect-error.js";
import { asArray, obj, profileUrl, sharedEmulator } from "./support/wire.js";

const wire = sharedEmulator({ seed: "demo" });

/** Every write operation of part 4, with a plausible body. */
function writeOperations(
  employeeId: number,
  competitorId: number,
): Array<[method: string, path: string, body: unknown]> {
  return [
    ["PATCH", "/organization", { name: "Renamed" }],
    ["POST", "/employees", { networkUrl: profileUrl() }],
    ["POST", "/employees/bulk", { networkUrls: [profileUrl()] }],
    ["PATCH", `/employees/${employeeId}`, { tracked: false }],
    ["DELETE", `/employees/${employeeId}`, undefined],
    ["POST", "/competitors", { companyNetworkUrl: "https://www.linkedin.com/company/scope-test", name: "Scope Test" }],
    ["PATCH", `/competitors/${competitorId}`, { paused: true }],
    ["DELETE", `/competitors/${competitorId}`, undefined],
    ["POST", "/webhooks", { url: "https://hooks.example.com/x" }],
    ["PATCH", "/webhooks/whe_doesnotmatter", { enabled: false }],
    ["DELETE", "/webhooks/whe_doesnotmatter", undefined],
  ];
}

const READ_PATHS = ["/me", "/organization", "/billing", "/employees", "/changes", "/competitors", "/webhooks"];

describe("5 Authentication", () => {
  it("5.1/5.5 missing Authorization header: 401 with an error sentence and no code", async () => {
    expectError(await wire().get("/me", { key: null }), 401, null);
  });

  it("5.5 malformed Authorization (not Bearer, empty bearer): 401 without code", async () => {
    const w = wire();
    const basic = await w.get("/me", { key: null, headers: { authorization: `Basic ${w.writeKey}` } });
    expectError(basic, 401, null);
    const empty = await w.get("/me", { key: null, headers: { authorization: "Bearer " } });
    expectError(empty, 401, null);
  });

  it("5.5 unknown key: 401 without code on every endpoint", async () => {
    for (const path of READ_PATHS) {
      expectError(await wire().get(path, { key: "rk_unknown_key_0000000000" }), 401, null);
    }
  });

  it("5.5/5.7 revoked key: 401 immediately after revocation", async () => {
    const w = wire();
    const key = await w.createKey({ scopes: ["read", "write"] });
    expect((await w.get("/me", { key })).status).toBe(200);
    await w.control("POST", "/keys", { key, revoked: true });
    expectError(await w.get("/me", { key }), 401, null);
  });

  it("5.4 a key created with read scope only reads; /me reports scopes [read]", async () => {
    const w = wire();
    const key = await w.createKey({ scopes: ["read"] });
    const me = await w.get("/me", { key });
    expect(me.status).toBe(200);
    expect(me.json.scopes).toEqual(["read"]);
  });

  it("5.4 a read key may call every GET operation", async () => {
    for (const path of READ_PATHS) {
      const res = await wire().get(path, { key: wire().readKey });
      expect(res.status, `${path}: ${res.text}`).toBe(200);
    }
  });

  it("5.6 read-only key on every POST, PATCH, DELETE: 403 INSUFFICIENT_SCOPE", async () => {
    const w = wire();
    const employees = await w.get("/employees", { query: { pageSize: 1 } });
    const employeeId = Number(obj(asArray(employees.json.items)[0]).id);
    const competitorId = Number(obj(asArray((await w.get("/competitors")).body)[0]).id);
    for (const [method, path, body] of writeOperations(employeeId, competitorId)) {
      const res = await w.api(method, path, { key: w.readKey, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expectError(res, 403, "INSUFFICIENT_SCOPE");
    }
    // nothing was changed by the refused writes
    expect((await w.get(`/employees/${employeeId}`)).json.status).not.toBe("archived");
  });

  it("5.3 organizationId outside the key's reach: 404 without code", async () => {
    const w = wire();
    expectError(await w.get("/organization", { query: { organizationId: 987654 } }), 404, null);
    expectError(await w.get("/employees", { query: { organizationId: 987654 } }), 404, null);
    expectError(await w.get("/changes", { query: { organizationId: 987654 } }), 404, null);
  });

  it("5.3 a key reaches its competitor workspaces through organizationId", async () => {
    const w = wire();
    const me = await w.get("/me");
    const competitors = asArray(me.json.competitors);
    expect(competitors.length).toBeGreaterThan(0);
    for (const c of competitors) {
      const org = await w.get("/organization", { query: { organizationId: Number(c.id) } });
      expect(org.status).toBe(200);
      expect(org.json).toMatchObject({ id: c.id, kind: "competitor" });
    }
  });
});

describe("4.1 GET /me", () => {
  it("4.1 200 Me: organization, competitors, scopes [read, write] for the write key", async () => {
    const w = wire();
    const me = await w.get("/me");
    expect(me.status).toBe(200);
    expect(obj(me.json.organization)).toMatchObject({ id: w.organizationId, name: expect.any(String) });
    const competitors = asArray(me.json.competitors);
    expect(competitors.length).toBe(2);
    for (const c of competitors) expect(c).toMatchObject({ id: expect.any(Number), name: expect.any(String) });
    expect([...(me.json.scopes as string[])].sort()).toEqual(["read", "write"]);
  });

  it("4.1 the read key's /me has scopes [read]", async () => {
    const me = await wire().get("/me", { key: wire().readKey });
    expect(me.json.scopes).toEqual(["read"]);
  });
});

describe("5.3 reach of a key", () => {
  it("5.3 another company (seed Initech 9001) is outside the key's reach: 404 both ways", async () => {
    const w = wire();
    const initechKey = await w.createKey({ scopes: ["read", "write"], organizationId: 9001 });
    const me = await w.get("/me", { key: initechKey });
    expect(obj(me.json.organization).id).toBe(9001);
    const initechPeople = asArray((await w.get("/employees", { key: initechKey })).json.items);
    expect(initechPeople.length).toBeGreaterThan(0);
    const stranger = String(obj(initechPeople[0]).id);
    expectError(await w.get(`/employees/${stranger}`), 404, null);
    expectError(await w.get(`/employees/${stranger}/changes`), 404, null);
    expectError(await w.patch(`/employees/${stranger}`, { tracked: false }), 404, null);
    expectError(await w.get("/organization", { query: { organizationId: 9001 } }), 404, null);
    expectError(await w.get("/employees", { query: { organizationId: 9001 } }), 404, null);
    expectError(await w.get("/employees", { key: initechKey, query: { organizationId: w.organizationId } }), 404, null);
    const mine = obj(asArray((await w.get("/employees", { query: { pageSize: 1 } })).json.items)[0]);
    expectError(await w.get(`/employees/${String(mine.id)}`, { key: initechKey }), 404, null);
  });

  it("4 an unknown path is 404 without code", async () => {
    expectError(await wire().get("/no-such-resource"), 404, null);
  });
});
