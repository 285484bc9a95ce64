import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError, expectInvalid } from "./support/expect-error.js";
import { asArray, bootEmulator, num, obj, type Wire } from "./support/wire.js";

let w: Wire;
beforeEach(async () => {
  w = await bootEmulator({ seed: "demo" });
});
afterEach(async () => {
  await w.close();
});

describe("4.2 GET /organization", () => {
  it("2.3 200 own company: kind primary, required fields, counts consistent with the roster", async () => {
    const res = await w.get("/organization");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: w.organizationId,
      name: expect.any(String),
      kind: "primary",
      createdAt: expect.any(String),
      alertRiskThreshold: expect.any(Number),
    });
    expect(Number.isNaN(Date.parse(String(res.json.createdAt)))).toBe(false);
    expect(res.json).not.toHaveProperty("billing");
    expect(res.json).not.toHaveProperty("plan");
    const tracked = await w.get("/employees", { query: { tracked: true, pageSize: 1 } });
    expect(res.json.trackedEmployeeCount).toBe(tracked.json.total);
    const all = await w.get("/employees", { query: { pageSize: 1 } });
    expect(res.json.employeeCount).toBe(all.json.total);
  });

  it("4.2 organizationId selects a competitor workspace (kind competitor)", async () => {
    const competitor = obj(asArray((await w.get("/competitors")).body)[0]);
    const res = await w.get("/organization", { query: { organizationId: num(competitor.id) } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: competitor.id, kind: "competitor" });
  });

  it("4.2 unreachable organizationId: 404; bad organizationId: 400", async () => {
    expectError(await w.get("/organization", { query: { organizationId: 31337 } }), 404, null);
    expectInvalid(await w.get("/organization", { query: { organizationId: "x" } }), "organizationId");
  });
});

describe("4.2 PATCH /organization", () => {
  it("4.2 200 updated Organization for name, website, companyInfo", async () => {
    const res = await w.patch("/organization", {
      name: "Renamed Inc",
      website: "https://renamed.example.com",
      companyInfo: "We make things.",
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: w.organizationId,
      name: "Renamed Inc",
      website: "https://renamed.example.com",
    });
    expect((await w.get("/organization")).json.name).toBe("Renamed Inc");
    expect(obj((await w.get("/me")).json.organization).name).toBe("Renamed Inc");
  });

  it("4.2 website may be set to null", async () => {
    const res = await w.patch("/organization", { website: null });
    expect(res.status).toBe(200);
    expect(res.json.website ?? null).toBeNull();
  });

  it("4.2 alertRiskThreshold between 0.5 and 0.75 snaps to one of the two; outside is kept", async () => {
    for (const [sent, allowed] of [
      [0.6, [0.5, 0.75]],
      [0.7, [0.5, 0.75]],
      [0.55, [0.5, 0.75]],
      [0.5, [0.5]],
      [0.75, [0.75]],
      [0.3, [0.3]],
      [0.9, [0.9]],
    ] as const) {
      const res = await w.patch("/organization", { alertRiskThreshold: sent });
      expect(res.status).toBe(200);
      expect(allowed).toContain(res.json.alertRiskThreshold);
    }
    // README choice: the nearer one; the midpoint 0.625 snaps to 0.5
    expect((await w.patch("/organization", { alertRiskThreshold: 0.625 })).json.alertRiskThreshold).toBe(0.5);
    expect((await w.patch("/organization", { alertRiskThreshold: 0.63 })).json.alertRiskThreshold).toBe(0.75);
    const low = await w.patch("/organization", { alertRiskThreshold: 0.51 });
    const high = await w.patch("/organization", { alertRiskThreshold: 0.74 });
    expect(low.json.alertRiskThreshold).toBe(0.5);
    expect(high.json.alertRiskThreshold).toBe(0.75);
  });

  it("4.2 alertRiskThreshold outside 0..1, wrong types, or no property: 400 INVALID_BODY", async () => {
    expectInvalid(await w.patch("/organization", { alertRiskThreshold: 1.5 }), "alertRiskThreshold");
    expectInvalid(await w.patch("/organization", { alertRiskThreshold: "high" }), "alertRiskThreshold");
    expectInvalid(await w.patch("/organization", { name: 5 }), "name");
    expectInvalid(await w.patch("/organization", { website: "not a uri" }), "website");
    expectError(await w.patch("/organization", {}), 400, "INVALID_BODY");
  });

  it("4.2 organizationId edits a competitor workspace instead of the own company", async () => {
    const competitor = obj(asArray((await w.get("/competitors")).body)[0]);
    const ownName = (await w.get("/organization")).json.name;
    const res = await w.patch("/organization", { organizationId: num(competitor.id), alertRiskThreshold: 0.75 });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: competitor.id, kind: "competitor", alertRiskThreshold: 0.75 });
    expect((await w.get("/organization")).json.name).toBe(ownName);
  });

  it("4.2 unreachable organizationId: 404; read key: 403 INSUFFICIENT_SCOPE", async () => {
    expectError(await w.patch("/organization", { organizationId: 31337, name: "X" }), 404, null);
    expectError(await w.patch("/organization", { name: "X" }, { key: w.readKey }), 403, "INSUFFICIENT_SCOPE");
  });

  it("4.2 402 SUBSCRIPTION_INACTIVE when access is paused", async () => {
    await w.setBilling({ status: "canceled", trial: false });
    expectError(await w.patch("/organization", { name: "X" }), 402, "SUBSCRIPTION_INACTIVE");
  });

  it("2.3 the network page is not editable through the API", async () => {
    const before = await w.get("/organization");
    const res = await w.patch("/organization", { networkId: "other-company" });
    expect(res.status).toBe(400);
    expect((await w.get("/organization")).json.networkId).toBe(before.json.networkId);
  });
});
