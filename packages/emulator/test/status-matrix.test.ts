import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError, expectRetryAfter } from "./support/expect-error.js";
import { addPerson } from "./support/people.js";
import { bootEmulator, num, profileUrl, type Wire } from "./support/wire.js";

/** Every operation of part 4 with a valid request, built against the live emulator. */
type Op = [method: string, path: string, body?: unknown];

async function operations(w: Wire): Promise<Op[]> {
  const person = await addPerson(w);
  const competitor = await w.post("/competitors", {
    companyNetworkUrl: "https://www.linkedin.com/company/matrix-co",
    name: "Matrix Co",
  });
  const hook = await w.post("/webhooks", { url: "https://hooks.example.com/matrix" });
  const pid = String(person.id);
  const cid = String(num(competitor.json.id));
  const hid = String(hook.json.id);
  return [
    ["GET", "/me"],
    ["GET", "/organization"],
    ["PATCH", "/organization", { name: "Matrix Inc" }],
    ["GET", "/billing"],
    ["GET", "/employees"],
    ["POST", "/employees", { networkUrl: profileUrl() }],
    ["POST", "/employees/bulk", { networkUrls: [profileUrl()] }],
    ["GET", `/employees/${pid}`],
    ["PATCH", `/employees/${pid}`, { tracked: false }],
    ["GET", `/employees/${pid}/changes`],
    ["DELETE", `/employees/${pid}`],
    ["GET", "/changes"],
    ["GET", "/competitors"],
    ["POST", "/competitors", { companyNetworkUrl: "https://www.linkedin.com/company/other-co", name: "Other Co" }],
    ["GET", `/competitors/${cid}`],
    ["PATCH", `/competitors/${cid}`, { paused: true }],
    ["DELETE", `/competitors/${cid}`],
    ["GET", "/webhooks"],
    ["POST", "/webhooks", { url: "https://hooks.example.com/another" }],
    ["PATCH", `/webhooks/${hid}`, { enabled: false }],
    ["DELETE", `/webhooks/${hid}`],
  ];
}

let w: Wire;
beforeEach(async () => {
  w = await bootEmulator({ seed: "empty", rateLimitPerMinute: 100_000 });
});
afterEach(async () => {
  await w.close();
});

describe("4 common status codes on every endpoint", () => {
  it("4/5.5 401 without code on every endpoint when the key is missing", async () => {
    for (const [method, path, body] of await operations(w)) {
      const res = await w.api(method, path, { key: null, body });
      expect(res.status, `${method} ${path}`).toBe(401);
      expectError(res, 401, null);
    }
  });

  it("4/5.8 402 SUBSCRIPTION_INACTIVE on every endpoint when access is paused", async () => {
    const ops = await operations(w);
    await w.setBilling({ status: "canceled" });
    for (const [method, path, body] of ops) {
      const res = await w.api(method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(402);
      expectError(res, 402, "SUBSCRIPTION_INACTIVE");
    }
  });

  it("4/8 429 without code, with Retry-After, on every endpoint over the per-minute limit", async () => {
    const limited = await bootEmulator({ seed: "empty", rateLimitPerMinute: 1 });
    try {
      // the per-minute limit answers before routing, so ids built on the other emulator do; one fresh key per request
      const ops = await operations(w);
      for (const [method, path, body] of ops) {
        const key = await limited.createKey({ scopes: ["read", "write"] });
        expect((await limited.get("/me", { key })).status).toBe(200);
        const res = await limited.api(method, path, { key, body });
        expect(res.status, `${method} ${path}`).toBe(429);
        expectError(res, 429, null);
        expectRetryAfter(res);
      }
    } finally {
      await limited.close();
    }
  });

  it("4 every operation answers its success status with a valid request", async () => {
    const expected: Record<string, number> = { POST: 201 };
    for (const [method, path, body] of await operations(w)) {
      const res = await w.api(method, path, { body });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(expected[method] ?? 200);
    }
  });
});

describe("8 competitor workspace trial allowance", () => {
  it("8 on a trial each workspace has its own allowance (README: 25): 402 TRIAL_LIMIT_REACHED past it", async () => {
    await w.setBilling({ trial: true });
    const c = await w.post("/competitors", {
      companyNetworkUrl: "https://www.linkedin.com/company/trial-rival",
      name: "Trial Rival",
    });
    const cid = num(c.json.id);
    await w.advanceClock(5);
    let last = await w.post("/employees", { networkUrl: profileUrl(), organizationId: cid });
    for (let i = 0; i < 40 && last.status === 201; i += 1) {
      last = await w.post("/employees", { networkUrl: profileUrl(), organizationId: cid });
    }
    expectError(last, 402, "TRIAL_LIMIT_REACHED");
    const detail = await w.get(`/competitors/${cid}`);
    expect(detail.json.trackedEmployeeCount).toBe(25);
    // the own company's allowance is separate
    expect((await w.post("/employees", { networkUrl: profileUrl() })).status).toBe(201);
  });
});
