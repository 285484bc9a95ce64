import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError } from "./support/expect-error.js";
import { addPerson } from "./support/people.js";
import { asArray, bootEmulator, num, obj, type Wire } from "./support/wire.js";

let w: Wire;
beforeEach(async () => {
  w = await bootEmulator({ seed: "empty", rateLimitPerMinute: 100_000 });
});
afterEach(async () => {
  await w.close();
});

describe("control API (/_emulator/...)", () => {
  it("startEmulator: origin url, baseUrl = url + /api/v1, two distinct keys, organization id", async () => {
    expect(w.handle.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(w.handle.baseUrl).toBe(`${w.handle.url}/api/v1`);
    expect(w.writeKey).not.toBe(w.readKey);
    expect(obj((await w.get("/me")).json.organization).id).toBe(w.organizationId);
  });

  it("startEmulator: writeKey and readKey options are honoured", async () => {
    const custom = await bootEmulator({ writeKey: "wk_custom_write", readKey: "rk_custom_read" });
    try {
      expect((await custom.get("/me", { key: "wk_custom_write" })).json.scopes).toContain("write");
      expect((await custom.get("/me", { key: "rk_custom_read" })).json.scopes).toEqual(["read"]);
    } finally {
      await custom.close();
    }
  });

  it("POST /_emulator/keys creates a working key; revoked:true revokes it", async () => {
    const key = await w.createKey({ scopes: ["read", "write"] });
    expect((await w.post("/employees", { networkUrl: "https://www.linkedin.com/in/ctl-key" }, { key })).status).toBe(
      201,
    );
    await w.control("POST", "/keys", { key, revoked: true });
    expectError(await w.get("/me", { key }), 401, null);
  });

  it("POST /_emulator/clock advances the virtual clock (seen in detectedAt)", async () => {
    const p = await addPerson(w);
    await w.advanceClock(10 * 86_400);
    await w.signals({ employeeId: p.id, riskScore: 0.6 });
    const [c] = asArray((await w.get("/changes")).json.items);
    const ahead = Date.parse(String(obj(c).detectedAt)) - Date.now();
    expect(ahead).toBeGreaterThan(9 * 86_400_000);
    const bad = await w.raw("POST", "/_emulator/clock", { advanceSeconds: -5 });
    expect(bad.status).toBe(400);
  });

  it("POST /_emulator/signals generates changes now; GET /_emulator/state dumps the state", async () => {
    await addPerson(w);
    await w.signals({ count: 3 });
    expect((await w.get("/changes")).json.total).toBe(3);
    const state = await w.state();
    expect(Object.keys(state).length).toBeGreaterThan(0);
  });

  it("GET /_emulator/requests logs method, path, status and key id of API requests", async () => {
    await w.get("/me");
    await w.get("/employees/777", {});
    const res = await w.control("GET", "/requests");
    const log = Array.isArray(res.body) ? asArray(res.body) : asArray(res.json.requests ?? res.json.items);
    const paths = log.map((r) => String(r.path));
    expect(paths.some((p) => p.endsWith("/me"))).toBe(true);
    const miss = obj(log.find((r) => String(r.path).endsWith("/employees/777")));
    expect(miss).toMatchObject({ method: "GET", status: 404 });
    expect(miss).toHaveProperty("keyId");
  });

  it("POST /_emulator/reset goes back to the seed", async () => {
    await addPerson(w);
    expect((await w.get("/employees")).json.total).toBe(1);
    await w.control("POST", "/reset");
    expect((await w.get("/employees")).json.total).toBe(0);
  });

  it("seed demo: a few hundred people and two competitor workspaces", async () => {
    const demo = await bootEmulator({ seed: "demo" });
    try {
      const total = num((await demo.get("/employees")).json.total);
      expect(total).toBeGreaterThanOrEqual(100);
      expect(asArray((await demo.get("/competitors")).body)).toHaveLength(2);
    } finally {
      await demo.close();
    }
  });

  it("seed empty: a paying company with no people, competitors or webhooks", async () => {
    expect((await w.get("/employees")).json.total).toBe(0);
    expect((await w.get("/competitors")).body).toEqual([]);
    expect((await w.get("/webhooks")).body).toEqual([]);
    expect(obj((await w.get("/billing")).json.plan).status).toBe("active");
  });
});

describe("control API extras (README)", () => {
  it("DELETE /_emulator/requests clears the request log", async () => {
    await w.get("/me");
    await w.control("DELETE", "/requests");
    const res = await w.control("GET", "/requests");
    expect(asArray(res.json.requests)).toHaveLength(0);
  });

  it("POST /_emulator/employees seeds people directly, bypassing allowances", async () => {
    await w.control("POST", "/employees", { count: 250, tracked: true });
    expect((await w.get("/employees")).json.total).toBe(250);
    expect(obj((await w.get("/billing")).json.apiSeatAllowance).usedLast24h).toBe(0);
  });

  it("control API input is validated: 400 on a bad body", async () => {
    expect((await w.raw("POST", "/_emulator/signals", { count: 0 })).status).toBe(400);
    expect((await w.raw("POST", "/_emulator/billing", { status: "free" })).status).toBe(400);
  });
});

describe("startEmulator signalIntervalMs", () => {
  it("signalIntervalMs > 0 generates signals on its own, for tracked people", async () => {
    const auto = await bootEmulator({ seed: "demo", signalIntervalMs: 20 });
    try {
      const before = num((await auto.get("/changes")).json.total);
      let after = before;
      for (let i = 0; i < 50 && after === before; i += 1) {
        await new Promise((r) => setTimeout(r, 20));
        after = num((await auto.get("/changes")).json.total);
      }
      expect(after).toBeGreaterThan(before);
    } finally {
      await auto.close();
    }
  });

  it("signalIntervalMs 0 generates nothing on its own", async () => {
    const demo = await bootEmulator({ seed: "demo", signalIntervalMs: 0 });
    try {
      const before = num((await demo.get("/changes")).json.total);
      await new Promise((r) => setTimeout(r, 100));
      expect((await demo.get("/changes")).json.total).toBe(before);
    } finally {
      await demo.close();
    }
  });
});
