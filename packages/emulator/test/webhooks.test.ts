import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openApiDocument } from "../src/openapi.js";
import { expectError, expectInvalid } from "./support/expect-error.js";
import { addPerson, waitImported } from "./support/people.js";
import { type Delivery, type Receiver, startReceiver, verifySignature } from "./support/receiver.js";
import { checkSchema } from "./support/schema-check.js";
import { asArray, bootEmulator, type JsonObject, num, obj, type Wire } from "./support/wire.js";

let w: Wire;
let rx: Receiver;
beforeEach(async () => {
  w = await bootEmulator({ seed: "empty", rateLimitPerMinute: 100_000, allowLoopbackWebhooks: true });
  rx = await startReceiver();
});
afterEach(async () => {
  await w.close();
  await rx.close();
});

async function endpoint(body: JsonObject = {}): Promise<JsonObject> {
  const res = await w.post("/webhooks", { url: rx.url, ...body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

async function trackedPerson(): Promise<JsonObject> {
  return waitImported(w, num((await addPerson(w)).id));
}

async function listed(id: unknown): Promise<JsonObject> {
  const list = asArray((await w.get("/webhooks")).body);
  return obj(list.find((e) => e.id === id));
}

describe("4.6 POST /webhooks", () => {
  it("4.6 201 record with whe_ id, defaults, and the signing secret returned once", async () => {
    const res = await w.post("/webhooks", { url: rx.url, description: "ops" });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      id: expect.stringMatching(/^whe_/),
      url: rx.url,
      description: "ops",
      enabled: true,
      employeeWarnings: true,
      poachingOpportunities: true,
      employeeWarningSensitivity: 3,
      secret: expect.any(String),
    });
    expect(String(res.json.secret).length).toBeGreaterThanOrEqual(16);
  });

  it("2.12/4.6 the secret is never returned afterwards (list, PATCH)", async () => {
    const created = await endpoint();
    const list = await w.get("/webhooks");
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(String(created.secret));
    const item = await listed(created.id);
    expect(item).not.toHaveProperty("secret");
    expect(obj(item.health)).toMatchObject({ consecutiveFailures: 0 });
    const patched = await w.patch(`/webhooks/${String(created.id)}`, { description: "x" });
    expect(patched.status).toBe(200);
    expect(patched.json).not.toHaveProperty("secret");
  });

  it("6.5 rule 5 URLs must be public HTTPS on the default port (400 naming url)", async () => {
    const strict = await bootEmulator({ seed: "empty", allowLoopbackWebhooks: false });
    try {
      for (const url of [
        "http://hooks.example.com/x",
        "https://hooks.example.com:8443/x",
        "https://localhost/x",
        "https://127.0.0.1/x",
        "https://10.1.2.3/x",
        "https://192.168.0.10/x",
        "https://172.16.5.5/x",
        "https://[::1]/x",
        rx.url,
        "not a url",
      ]) {
        expectInvalid(await strict.post("/webhooks", { url }), "url");
      }
      const ok = await strict.post("/webhooks", { url: "https://hooks.example.com/retention" });
      expect(ok.status).toBe(201);
      // the same rules apply when PATCH changes the url
      expectInvalid(await strict.patch(`/webhooks/${String(ok.json.id)}`, { url: "https://10.0.0.1/x" }), "url");
    } finally {
      await strict.close();
    }
  });

  it("6.5 rule 5 the root dot, reserved IPv4 ranges and IPv4 in any form are refused; public IPv6 is admitted", async () => {
    const strict = await bootEmulator({ seed: "empty", allowLoopbackWebhooks: false });
    try {
      for (const url of [
        "https://localhost./x",
        "https://intranet./x",
        "https://198.18.0.1/x",
        "https://192.0.2.1/x",
        "https://203.0.113.9/x",
        "https://2130706433/x",
        "https://0x7f.1/x",
        "https://0177.0.0.1/x",
        "https://[fd00::1]/x",
        "https://[2001:db8::1]/x",
        "https://[::ffff:10.0.0.1]/x",
      ]) {
        expectInvalid(await strict.post("/webhooks", { url }), "url");
      }
      for (const url of [
        "https://[2606:4700:4700::1111]/x",
        "https://93.184.215.14/x",
        "https://hooks.example.com./x",
      ]) {
        expect((await strict.post("/webhooks", { url })).status, url).toBe(201);
      }
    } finally {
      await strict.close();
    }
  });

  it("4.6 url required, sensitivity 1..5, booleans typed: 400 INVALID_BODY naming the parameter", async () => {
    expectInvalid(await w.post("/webhooks", {}), "url");
    expectInvalid(
      await w.post("/webhooks", { url: rx.url, employeeWarningSensitivity: 0 }),
      "employeeWarningSensitivity",
    );
    expectInvalid(
      await w.post("/webhooks", { url: rx.url, poachingOpportunitySensitivity: 6 }),
      "poachingOpportunitySensitivity",
    );
    expectInvalid(await w.post("/webhooks", { url: rx.url, employeeWarnings: "yes" }), "employeeWarnings");
  });
});

describe("4.6 PATCH /webhooks/{id}", () => {
  it("4.6 200 updated record; enabled:false stops deliveries (3.3)", async () => {
    const ep = await endpoint();
    const res = await w.patch(`/webhooks/${String(ep.id)}`, { enabled: false, employeeWarningSensitivity: 5 });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: ep.id, enabled: false, employeeWarningSensitivity: 5 });
    const p = await trackedPerson();
    await w.signals({ employeeId: p.id, riskScore: 0.95 });
    expect(await rx.settle()).toBe(0);
  });

  it("4.6 PATCH validates like POST; unknown id 404", async () => {
    const ep = await endpoint();
    expectInvalid(
      await w.patch(`/webhooks/${String(ep.id)}`, { employeeWarningSensitivity: 9 }),
      "employeeWarningSensitivity",
    );
    expectInvalid(await w.patch(`/webhooks/${String(ep.id)}`, { enabled: "no" }), "enabled");
    expectError(await w.patch("/webhooks/whe_nope", { enabled: false }), 404, null);
  });
});

describe("4.6 DELETE /webhooks/{id}", () => {
  it("3.3 removes the endpoint and its history; body {id, deleted:true}; then 404", async () => {
    const ep = await endpoint();
    const res = await w.delete(`/webhooks/${String(ep.id)}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: ep.id, deleted: true });
    expect(asArray((await w.get("/webhooks")).body)).toHaveLength(0);
    expectError(await w.delete(`/webhooks/${String(ep.id)}`), 404, null);
  });
});

function expectDeliveryShape(d: Delivery, secret: string, type: string): void {
  expect(d.method).toBe("POST");
  expect(String(d.headers["content-type"])).toMatch(/^application\/json/);
  expect(d.headers["x-service-event"]).toBe(type);
  expect(typeof d.headers["x-service-delivery"]).toBe("string");
  verifySignature(d, secret);
  expect(d.body).toMatchObject({
    id: expect.stringMatching(/^evt_\d+_\d+$/),
    type,
    createdAt: expect.any(String),
    sensitivityLevel: expect.any(Number),
    organization: { id: expect.any(Number), name: expect.any(String) },
  });
}

describe("6.3/6.4 deliveries", () => {
  it("6.3 employee.warning: headers, body of 6.3, signature of 6.4 over the raw body", async () => {
    const ep = await endpoint();
    const p = await trackedPerson();
    await w.signals({ employeeId: p.id, riskScore: 0.82, changeType: "open_to_work" });
    const [d] = await rx.waitFor(1);
    const delivery = d as Delivery;
    expectDeliveryShape(delivery, String(ep.secret), "employee.warning");
    // 6.4.2: receivers reject timestamps older than ~5 minutes, so t must be current wall-clock time
    const t = verifySignature(delivery, String(ep.secret));
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(300);
    const change = obj(asArray((await w.get("/changes")).json.items)[0]);
    expect(delivery.body).toMatchObject({
      id: `evt_${String(change.id)}_1`,
      sensitivityLevel: 3,
      organization: { id: w.organizationId },
      data: {
        competitor: null,
        employee: { id: p.id, name: p.name, networkUrl: p.networkUrl, url: expect.any(String) },
        change: {
          id: change.id,
          changeType: "open_to_work",
          riskScore: 0.82,
          riskLevel: "high",
          summary: expect.any(String),
          detectedAt: change.detectedAt,
        },
      },
    });
  });

  it("6.4 a tampered body or another secret does not verify", async () => {
    await endpoint();
    const p = await trackedPerson();
    await w.signals({ employeeId: p.id, riskScore: 0.9 });
    const [d] = await rx.waitFor(1);
    const delivery = d as Delivery;
    expect(() => verifySignature(delivery, "whsec_wrong")).toThrow(/mismatch/);
    expect(() => verifySignature({ ...delivery, raw: `${delivery.raw} ` }, "whsec_wrong")).toThrow();
  });

  it("6.1 poaching.opportunity for a competitor workspace, sent to the company's endpoint", async () => {
    const ep = await endpoint();
    const c = await w.post("/competitors", {
      companyNetworkUrl: "https://www.linkedin.com/company/rival",
      name: "Rival",
    });
    const cid = num(c.json.id);
    const person = await w.post("/employees", {
      networkUrl: "https://www.linkedin.com/in/rival-person",
      organizationId: cid,
    });
    await waitImported(w, num(person.json.id));
    await rx.settle(50);
    rx.deliveries.length = 0;
    await w.signals({ employeeId: person.json.id, riskScore: 0.9 });
    const [d] = await rx.waitFor(1);
    const delivery = d as Delivery;
    expectDeliveryShape(delivery, String(ep.secret), "poaching.opportunity");
    expect(delivery.body).toMatchObject({
      organization: { id: w.organizationId },
      data: { competitor: { id: cid, name: expect.any(String) }, employee: { id: person.json.id } },
    });
  });

  it("6.1 employeeWarnings:false / poachingOpportunities:false suppress their type", async () => {
    await endpoint({ employeeWarnings: false });
    const p = await trackedPerson();
    await w.signals({ employeeId: p.id, riskScore: 0.99 });
    expect(await rx.settle()).toBe(0);
  });

  it("6.3 X-Service-Delivery differs per attempt, the event id stays the same", async () => {
    await endpoint();
    rx.respondWith(500);
    const p = await trackedPerson();
    await w.signals({ employeeId: p.id, riskScore: 0.9 });
    await rx.waitFor(1);
    await w.advanceClock(5 * 60 + 1);
    const [a, b] = (await rx.waitFor(2)) as [Delivery, Delivery];
    expect(a.body.id).toBe(b.body.id);
    expect(a.headers["x-service-delivery"]).not.toBe(b.headers["x-service-delivery"]);
  });
});

describe("6.2 sensitivity", () => {
  it("6.2 each level delivers from its minimum score; departures at every level", async () => {
    const levels: Array<[number, number, number]> = [
      [1, 0.9, 0.89],
      [2, 0.75, 0.74],
      [3, 0.5, 0.49],
      [4, 0.35, 0.34],
      [5, 0.2, 0.19],
    ];
    for (const [level, at, below] of levels) {
      const p = await trackedPerson();
      const ep = await endpoint({ employeeWarningSensitivity: level });
      await w.signals({ employeeId: p.id, riskScore: below, changeType: "title_change" });
      expect(await rx.settle(100), `level ${level} below ${below}`).toBe(0);
      await w.signals({ employeeId: p.id, riskScore: at, changeType: "title_change" });
      const [d] = await rx.waitFor(1);
      expect(obj(d).body).toMatchObject({ sensitivityLevel: level, data: { change: { riskScore: at } } });
      await w.signals({ employeeId: p.id, changeType: "employee_departed" });
      const got = await rx.waitFor(2);
      expect(obj(got[1]).body).toMatchObject({ data: { change: { changeType: "employee_departed" } } });
      await w.delete(`/webhooks/${String(ep.id)}`);
      rx.deliveries.length = 0;
    }
  });
});

describe("6.5 delivery and retry rules", () => {
  it("6.5 rule 3 retries after ~5 min, 30 min, 2 h, 8 h, 24 h on the emulator clock: 6 attempts in total", async () => {
    await endpoint();
    rx.respondWith(503);
    const p = await trackedPerson();
    await w.signals({ employeeId: p.id, riskScore: 0.9 });
    await rx.waitFor(1);
    const delays = [5 * 60, 30 * 60, 2 * 3600, 8 * 3600, 24 * 3600];
    for (const [i, delay] of delays.entries()) {
      await w.advanceClock(delay - 30);
      expect(await rx.settle(80), `attempt ${i + 2} not before its time`).toBe(i + 1);
      await w.advanceClock(31);
      await rx.waitFor(i + 2);
    }
    await w.advanceClock(7 * 24 * 3600);
    expect(await rx.settle()).toBe(6);
    expect(new Set(rx.deliveries.map((d) => d.body.id)).size).toBe(1);
  });

  it("6.5 rule 1 a 2xx stops retries; a redirect is a failure and is not followed", async () => {
    await endpoint();
    rx.respondWith(302, { location: `${rx.url}/elsewhere` });
    const p = await trackedPerson();
    await w.signals({ employeeId: p.id, riskScore: 0.9 });
    await rx.waitFor(1);
    expect(await rx.settle()).toBe(1);
    expect(rx.deliveries.every((d) => d.path === "/hook")).toBe(true);
    rx.respondWith(204);
    await w.advanceClock(5 * 60 + 1);
    await rx.waitFor(2);
    await w.advanceClock(48 * 3600);
    expect(await rx.settle()).toBe(2);
  });

  it("3.3/6.5 rule 4 a burst of failed events during a brief outage does not disable the endpoint; retries deliver", async () => {
    const ep = await endpoint();
    rx.respondWith(500);
    const p = await trackedPerson();
    for (let i = 0; i < 12; i += 1) await w.signals({ employeeId: p.id, riskScore: 0.9 });
    await rx.waitFor(12);
    const failing = await listed(ep.id);
    expect(failing.enabled).toBe(true);
    expect(obj(failing.health)).toMatchObject({ consecutiveFailures: 12, consecutiveFailedEvents: 12 });
    rx.respondWith(200);
    await w.advanceClock(5 * 60 + 1);
    await rx.waitFor(24);
    const recovered = await listed(ep.id);
    expect(recovered.enabled).toBe(true);
    expect(obj(recovered.health)).toMatchObject({
      consecutiveFailures: 0,
      consecutiveFailedEvents: 0,
      failingSince: null,
    });
    expect(new Set(rx.deliveries.slice(12).map((d) => d.body.id)).size).toBe(12);
  });

  it("3.3/6.5 rule 4 disabled once 5 events in a row failed every attempt over at least 24 h (README); re-enable clears", async () => {
    const ep = await endpoint();
    rx.respondWith(500);
    const p = await trackedPerson();
    for (let i = 0; i < 4; i += 1) await w.signals({ employeeId: p.id, riskScore: 0.9 });
    await rx.waitFor(4);
    // every retry of the 4 events fails too: 24 attempts over 34.5 h, yet only 4 events
    for (const delay of [5 * 60, 30 * 60, 2 * 3600, 8 * 3600, 24 * 3600]) await w.advanceClock(delay + 1);
    await rx.waitFor(24);
    const stillOn = await listed(ep.id);
    expect(stillOn.enabled).toBe(true);
    expect(obj(stillOn.health)).toMatchObject({ consecutiveFailures: 24, consecutiveFailedEvents: 4 });
    expect(typeof obj(stillOn.health).failingSince).toBe("string");
    // the 5th failed event in a streak that has lasted more than a day disables it
    await w.signals({ employeeId: p.id, riskScore: 0.9 });
    const disabled = await listed(ep.id);
    expect(disabled.enabled).toBe(false);
    expect(obj(disabled.health)).toMatchObject({ consecutiveFailedEvents: 5, disabledReason: expect.any(String) });
    // deliveries stop: no retry of the 5th event, nothing new
    const before = rx.deliveries.length;
    await w.signals({ employeeId: p.id, riskScore: 0.9 });
    await w.advanceClock(48 * 3600);
    expect(rx.deliveries.length).toBe(before);
    rx.respondWith(200);
    const res = await w.patch(`/webhooks/${String(ep.id)}`, { enabled: true });
    expect(res.status).toBe(200);
    expect(res.json.enabled).toBe(true);
    expect(obj(res.json.health)).toMatchObject({
      consecutiveFailures: 0,
      consecutiveFailedEvents: 0,
      failingSince: null,
      disabledReason: null,
    });
  });

  it("6.5 rule 6 delivery health keeps the last 20 deliveries with status, HTTP code and error", async () => {
    const ep = await endpoint();
    const p = await trackedPerson();
    for (let i = 0; i < 22; i += 1) await w.signals({ employeeId: p.id, riskScore: 0.9 });
    await rx.waitFor(22);
    await rx.settle(50);
    const health = obj((await listed(ep.id)).health);
    const recent = asArray(health.recentDeliveries);
    expect(recent).toHaveLength(20);
    expect(health.consecutiveFailures).toBe(0);
    expect(typeof health.lastDeliveryAt).toBe("string");
    for (const d of recent) expect(d).toHaveProperty("httpStatus", 200);
  });
});

describe("3.3 deliveries stop", () => {
  it("3.3 disabling an endpoint drops its queued retries", async () => {
    const ep = await endpoint();
    rx.respondWith(500);
    const p = await trackedPerson();
    await w.signals({ employeeId: p.id, riskScore: 0.9 });
    await rx.waitFor(1);
    await w.patch(`/webhooks/${String(ep.id)}`, { enabled: false });
    await w.advanceClock(48 * 3600);
    expect(await rx.settle()).toBe(1);
  });

  it("3.3 deleting an endpoint drops its queued retries", async () => {
    const ep = await endpoint();
    rx.respondWith(500);
    const p = await trackedPerson();
    await w.signals({ employeeId: p.id, riskScore: 0.9 });
    await rx.waitFor(1);
    await w.delete(`/webhooks/${String(ep.id)}`);
    await w.advanceClock(48 * 3600);
    expect(await rx.settle()).toBe(1);
  });

  it("6.5 rule 1 a connection error is a failure recorded in delivery health", async () => {
    const dead = await startReceiver();
    const url = dead.url;
    await dead.close();
    const res = await w.post("/webhooks", { url });
    expect(res.status).toBe(201);
    const p = await trackedPerson();
    await w.signals({ employeeId: p.id, riskScore: 0.9 });
    const health = obj((await listed(res.json.id)).health);
    expect(health.consecutiveFailures).toBe(1);
    expect(health.lastStatus).toBe("failed");
    const [attempt] = asArray(health.recentDeliveries);
    expect(obj(attempt)).toMatchObject({ ok: false, httpStatus: null, error: expect.any(String) });
  });
});

describe("6.1/6.3 ping and the reduced event form", () => {
  it("6.1 ping (README: POST /_emulator/webhooks/{id}/ping) is signed like every delivery", async () => {
    const ep = await endpoint();
    await w.control("POST", `/webhooks/${String(ep.id)}/ping`);
    const [d] = await rx.waitFor(1);
    const delivery = d as Delivery;
    expect(delivery.headers["x-service-event"]).toBe("ping");
    verifySignature(delivery, String(ep.secret));
    expect(delivery.body).toMatchObject({ id: expect.stringMatching(/^evt_/), type: "ping" });
  });

  it("6.3 the reduced form (README: reducedEventRate fault): employee {id, name, title}, change without ids", async () => {
    const ep = await endpoint();
    await w.faults({ reducedEventRate: 1 });
    const p = await trackedPerson();
    await w.signals({ employeeId: p.id, riskScore: 0.9, changeType: "headline_change" });
    const [d] = await rx.waitFor(1);
    const delivery = d as Delivery;
    expectDeliveryShape(delivery, String(ep.secret), "employee.warning");
    const data = obj(delivery.body.data);
    expect(Object.keys(obj(data.employee)).sort()).toEqual(["id", "name", "title"]);
    const change = obj(data.change);
    expect(change).toMatchObject({ changeType: "headline_change", riskScore: 0.9, riskLevel: "high" });
    for (const absent of ["id", "changedFields", "factors", "detectedAt"]) expect(change).not.toHaveProperty(absent);
  });
});

describe("6 deliveries match the webhooks of the served OpenAPI description", () => {
  it("6.3 event bodies (full, reduced, ping) validate against the documented payload schemas", async () => {
    const doc = openApiDocument();
    const payload = (type: string): unknown => {
      const post = obj(obj(obj(doc.webhooks)[type]).post);
      return obj(obj(obj(obj(post.requestBody).content)["application/json"]).schema);
    };
    const ep = await endpoint();
    const p = await trackedPerson();
    await w.signals({ employeeId: p.id, riskScore: 0.9 });
    await w.faults({ reducedEventRate: 1 });
    await w.signals({ employeeId: p.id, changeType: "employee_departed" });
    await w.control("POST", `/webhooks/${String(ep.id)}/ping`);
    const got = await rx.waitFor(3);
    for (const d of got) {
      expect(checkSchema(doc, payload(String(d.body.type)), d.body), d.raw).toEqual([]);
    }
  });
});

describe("6.2 poaching lens settings", () => {
  it("6.2 poachingOpportunitySensitivity and poachingOpportunities govern poaching.opportunity", async () => {
    const c = await w.post("/competitors", {
      companyNetworkUrl: "https://www.linkedin.com/company/lens-co",
      name: "Lens Co",
    });
    const cid = num(c.json.id);
    const added = await w.post("/employees", {
      networkUrl: "https://www.linkedin.com/in/lens-person",
      organizationId: cid,
    });
    const pid = num(added.json.id);
    await waitImported(w, pid);
    const strictEp = await endpoint({ poachingOpportunitySensitivity: 1, employeeWarningSensitivity: 5 });
    await w.signals({ employeeId: pid, riskScore: 0.85 });
    expect(await rx.settle(100)).toBe(0);
    await w.signals({ employeeId: pid, riskScore: 0.92 });
    const [d] = await rx.waitFor(1);
    expect(obj(d).body).toMatchObject({ type: "poaching.opportunity", sensitivityLevel: 1 });
    await w.patch(`/webhooks/${String(strictEp.id)}`, { poachingOpportunities: false });
    await w.signals({ employeeId: pid, riskScore: 0.99 });
    expect(await rx.settle(100)).toBe(1);
  });
});
