import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError, expectInvalid } from "./support/expect-error.js";
import {
  asArray,
  bootEmulator,
  type JsonObject,
  num,
  obj,
  profileUrl,
  profileUrls,
  type Wire,
} from "./support/wire.js";

let w: Wire;
beforeEach(async () => {
  w = await bootEmulator({ seed: "empty", rateLimitPerMinute: 100_000 });
});
afterEach(async () => {
  await w.close();
});

const page = (slug: string): string => `https://www.linkedin.com/company/${slug}`;

async function create(body: JsonObject): Promise<JsonObject> {
  const res = await w.post("/competitors", body);
  expect(res.status, res.text).toBe(201);
  return res.json;
}

async function workspacePeople(id: number): Promise<JsonObject[]> {
  const rows: JsonObject[] = [];
  for (let p = 1; p < 50; p += 1) {
    const res = await w.get("/employees", { query: { organizationId: id, page: p, pageSize: 100 } });
    expect(res.status, res.text).toBe(200);
    rows.push(...asArray(res.json.items));
    if (res.json.hasMore !== true) break;
  }
  return rows;
}

/** Lets the background roster import run (advances the clock, then polls briefly). */
async function settleImport(id: number): Promise<JsonObject[]> {
  await w.advanceClock(5);
  let last = -1;
  for (let i = 0; i < 40; i += 1) {
    const people = await workspacePeople(id);
    const importing = people.some((p) => p.status === "importing");
    if (people.length > 0 && people.length === last && !importing) return people;
    last = people.length;
    await new Promise((r) => setTimeout(r, 25));
  }
  return workspacePeople(id);
}

async function seatsBillable(): Promise<number> {
  return num(obj((await w.get("/billing")).json.seats).billable);
}

describe("4.5 POST /competitors", () => {
  it("4.5/3.2 201 created workspace when the page matches the named brand (case and punctuation ignored)", async () => {
    const c = await create({ companyNetworkUrl: page("acme-corp"), name: "ACME Corp." });
    expect(c).toMatchObject({
      id: expect.any(Number),
      name: expect.any(String),
      roleFilters: [],
      paused: false,
      trackedEmployeeCount: expect.any(Number),
    });
    const me = await w.get("/me");
    expect(asArray(me.json.competitors).map((x) => x.id)).toContain(c.id);
    const org = await w.get("/organization", { query: { organizationId: num(c.id) } });
    expect(org.json).toMatchObject({ id: c.id, kind: "competitor" });
  });

  it("3.2 409 COMPETITOR_IDENTITY_MISMATCH naming the company the page resolves to", async () => {
    const res = await w.post("/competitors", { companyNetworkUrl: page("globex-industries"), name: "Initech" });
    expectError(res, 409, "COMPETITOR_IDENTITY_MISMATCH");
    expect(obj(res.json.resolvedCompany).name).toBe("Globex Industries");
    expect(asArray((await w.get("/competitors")).body)).toHaveLength(0);
  });

  it("3.2 acknowledgeIdentityMismatch:true creates the mismatching workspace", async () => {
    const c = await create({
      companyNetworkUrl: page("globex-industries"),
      name: "Initech",
      acknowledgeIdentityMismatch: true,
    });
    expect(typeof c.id).toBe("number");
  });

  it("3.2 background roster import honours roleFilters; people are tracked seats", async () => {
    const c = await create({ companyNetworkUrl: page("hooli"), name: "Hooli", roleFilters: ["engineering"] });
    const people = await settleImport(num(c.id));
    expect(people.length).toBeGreaterThan(0);
    for (const p of people) {
      expect(p.organizationId).toBe(c.id);
      expect(String(p.department).toLowerCase()).toContain("engineering");
    }
    const detail = await w.get(`/competitors/${String(c.id)}`);
    expect(detail.json.trackedEmployeeCount).toBe(people.filter((p) => p.tracked === true).length);
    expect(await seatsBillable()).toBe(people.filter((p) => p.tracked === true).length);
  });

  it("4.5 missing companyNetworkUrl, a non-company URL, or mistyped roleFilters: 400", async () => {
    expectInvalid(await w.post("/competitors", { name: "Nobody" }), "companyNetworkUrl");
    expectInvalid(
      await w.post("/competitors", { companyNetworkUrl: "https://www.linkedin.com/in/a-person" }),
      "companyNetworkUrl",
    );
    expectInvalid(
      await w.post("/competitors", { companyNetworkUrl: page("x-co"), roleFilters: "sales" }),
      "roleFilters",
    );
  });
});

describe("4.5 GET /competitors", () => {
  it("4.5 200 plain array (no envelope) of summaries with a tracked-people count", async () => {
    await create({ companyNetworkUrl: page("one-co"), name: "One Co" });
    await create({ companyNetworkUrl: page("two-co"), name: "Two Co" });
    const res = await w.get("/competitors");
    expect(res.status).toBe(200);
    const list = asArray(res.body);
    expect(list).toHaveLength(2);
    for (const c of list) {
      expect(c).toMatchObject({ id: expect.any(Number), name: expect.any(String), paused: false });
      expect(typeof c.trackedEmployeeCount).toBe("number");
      expect(Array.isArray(c.roleFilters)).toBe(true);
    }
  });
});

describe("4.5 GET /competitors/{id}", () => {
  it("4.5 200 competitor; 404 for an unknown id or the own company's id", async () => {
    const c = await create({ companyNetworkUrl: page("detail-co"), name: "Detail Co", roleFilters: ["sales"] });
    const res = await w.get(`/competitors/${String(c.id)}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: c.id, roleFilters: ["sales"], paused: false });
    expectError(await w.get("/competitors/99999"), 404, null);
    expectError(await w.get(`/competitors/${w.organizationId}`), 404, null);
  });
});

describe("4.5 PATCH /competitors/{id}", () => {
  it("3.2 paused:true untracks everyone, releases seats, keeps people; paused:false brings them back", async () => {
    const c = await create({ companyNetworkUrl: page("pause-co"), name: "Pause Co" });
    const id = num(c.id);
    const people = await settleImport(id);
    const tracked = people.filter((p) => p.tracked === true).length;
    expect(tracked).toBeGreaterThan(0);
    const paused = await w.patch(`/competitors/${id}`, { paused: true });
    expect(paused.status).toBe(200);
    expect(paused.json).toMatchObject({ paused: true, trackedEmployeeCount: 0 });
    const afterPause = await workspacePeople(id);
    expect(afterPause).toHaveLength(people.length);
    expect(afterPause.every((p) => p.tracked === false)).toBe(true);
    expect(await seatsBillable()).toBe(0);
    // the scan stops: no signal can be detected in a paused workspace
    expect((await w.raw("POST", "/_emulator/signals", { organizationId: id, count: 3 })).status).toBe(409);
    expect((await w.get("/changes", { query: { organizationId: id } })).json.total).toBe(0);
    const resumed = await w.patch(`/competitors/${id}`, { paused: false });
    expect(resumed.json).toMatchObject({ paused: false, trackedEmployeeCount: tracked });
    expect(await seatsBillable()).toBe(tracked);
  });

  it("3.2 roleFilters replaces targeting and re-runs the import; already imported people stay", async () => {
    const c = await create({ companyNetworkUrl: page("retarget-co"), name: "Retarget Co", roleFilters: ["sales"] });
    const id = num(c.id);
    const before = await settleImport(id);
    const res = await w.patch(`/competitors/${id}`, { roleFilters: ["engineering"] });
    expect(res.status).toBe(200);
    expect(res.json.roleFilters).toEqual(["engineering"]);
    const after = await settleImport(id);
    const afterIds = new Set(after.map((p) => p.id));
    for (const p of before) expect(afterIds.has(p.id)).toBe(true);
    expect(after.some((p) => String(p.department).toLowerCase().includes("engineering"))).toBe(true);
  });

  it("4.5 no property or mistyped paused: 400; unknown id: 404", async () => {
    const c = await create({ companyNetworkUrl: page("bad-patch-co"), name: "Bad Patch Co" });
    expectError(await w.patch(`/competitors/${String(c.id)}`, {}), 400, "INVALID_BODY");
    expectInvalid(await w.patch(`/competitors/${String(c.id)}`, { paused: "yes" }), "paused");
    expectError(await w.patch("/competitors/99999", { paused: true }), 404, null);
  });
});

describe("3.2 a paused workspace tracks nobody", () => {
  it("3.2 tracked adds, revives and PATCH tracked:true are refused (400 naming tracked); untracked adds work", async () => {
    const c = await create({ companyNetworkUrl: page("still-co"), name: "Still Co" });
    const id = num(c.id);
    const imported = await settleImport(id);
    const hook = await w.post("/webhooks", { url: "https://hooks.example.com/paused" });
    expect(hook.status).toBe(201);
    expect((await w.patch(`/competitors/${id}`, { paused: true })).status).toBe(200);
    expectInvalid(await w.post("/employees", { networkUrl: profileUrl(), organizationId: id }), "tracked");
    expectInvalid(
      await w.post("/employees", { networkUrl: profileUrl(), organizationId: id, tracked: true }),
      "tracked",
    );
    expectInvalid(await w.post("/employees/bulk", { networkUrls: [profileUrl()], organizationId: id }), "tracked");
    const untracked = await w.post("/employees", { networkUrl: profileUrl(), organizationId: id, tracked: false });
    expect(untracked.status).toBe(201);
    expect(untracked.json.tracked).toBe(false);
    for (const person of [untracked.json, obj(imported[0])]) {
      expectInvalid(await w.patch(`/employees/${String(person.id)}`, { tracked: true }), "tracked");
    }
    const archived = obj(imported[1]);
    await w.patch(`/employees/${String(archived.id)}`, { status: "archived" });
    expectInvalid(await w.patch(`/employees/${String(archived.id)}`, { status: "active", tracked: true }), "tracked");
    expectInvalid(await w.post("/employees", { networkUrl: archived.networkUrl, organizationId: id }), "tracked");
    // nobody tracked: no seat, no signal, no poaching event
    expect((await w.get(`/competitors/${id}`)).json.trackedEmployeeCount).toBe(0);
    expect(await seatsBillable()).toBe(0);
    expect((await w.raw("POST", "/_emulator/signals", { organizationId: id, count: 3 })).status).toBe(409);
    expect((await w.raw("POST", "/_emulator/signals", { employeeId: untracked.json.id })).status).toBe(409);
    expect((await w.get("/changes", { query: { organizationId: id } })).json.total).toBe(0);
    const health = obj(asArray((await w.get("/webhooks")).body).map((e) => obj(e.health))[0]);
    expect(health.recentDeliveries).toEqual([]);
  });
});

describe("8 free trial: at most 100 tracked people through any door", () => {
  async function addOwnTracked(n: number): Promise<void> {
    for (let left = n; left > 0; left -= 50) {
      const res = await w.post("/employees/bulk", { networkUrls: profileUrls(Math.min(50, left)) });
      expect(res.status, res.text).toBe(201);
    }
  }

  it("8 a workspace's roster import stops tracking where the trial's 100 in total are reached", async () => {
    await w.setBilling({ trial: true });
    await addOwnTracked(90);
    const c = await create({ companyNetworkUrl: page("crowded-co"), name: "Crowded Co" });
    const id = num(c.id);
    const people = await settleImport(id);
    // 30+ people on the page, a workspace allowance of 25, but only 10 left of the trial's 100
    expect(people.filter((p) => p.tracked === true)).toHaveLength(10);
    expect(await seatsBillable()).toBe(100);
    const trial = obj((await w.get("/billing")).json.trial);
    expect(trial).toMatchObject({ onFreeTrial: true, seatLimit: 100, seatsLeft: 0 });
    expectError(
      await w.post("/employees", { networkUrl: profileUrl(), organizationId: id }),
      402,
      "TRIAL_LIMIT_REACHED",
    );
    const untracked = obj(people.find((p) => p.tracked === false));
    expectError(await w.patch(`/employees/${String(untracked.id)}`, { tracked: true }), 402, "TRIAL_LIMIT_REACHED");
  });

  it("8 resuming on a trial re-tracks only what the workspace allowance and the 100 in total leave", async () => {
    await addOwnTracked(60);
    const ids: number[] = [];
    for (const slug of ["resume-one", "resume-two"]) {
      const c = await create({ companyNetworkUrl: page(slug) });
      ids.push(num(c.id));
      const people = await settleImport(num(c.id));
      expect(people.filter((p) => p.tracked === true).length).toBeGreaterThan(25);
      expect((await w.patch(`/competitors/${String(c.id)}`, { paused: true })).status).toBe(200);
    }
    await w.setBilling({ trial: true });
    const [one, two] = ids as [number, number];
    // the workspace allowance (25) binds first, then the trial's 100 in total (100 - 60 - 25 = 15)
    expect((await w.patch(`/competitors/${one}`, { paused: false })).json).toMatchObject({ trackedEmployeeCount: 25 });
    expect((await w.patch(`/competitors/${two}`, { paused: false })).json).toMatchObject({ trackedEmployeeCount: 15 });
    expect(await seatsBillable()).toBe(100);
    expect(obj((await w.get("/billing")).json.trial).seatsLeft).toBe(0);
  });
});

describe("3.2 resume brings monitoring and billing back", () => {
  it("3.2 people imported by a role-filter change made while paused are tracked on resume", async () => {
    const c = await create({ companyNetworkUrl: page("shifting-co"), name: "Shifting Co", roleFilters: ["sales"] });
    const id = num(c.id);
    const before = await settleImport(id);
    expect((await w.patch(`/competitors/${id}`, { paused: true })).status).toBe(200);
    expect((await w.patch(`/competitors/${id}`, { roleFilters: [] })).status).toBe(200);
    const whilePaused = await settleImport(id);
    expect(whilePaused.length).toBeGreaterThan(before.length);
    expect(whilePaused.every((p) => p.tracked === false)).toBe(true);
    const resumed = await w.patch(`/competitors/${id}`, { paused: false });
    expect(resumed.json).toMatchObject({ paused: false, trackedEmployeeCount: whilePaused.length });
    expect(await seatsBillable()).toBe(whilePaused.length);
  });

  it("3.2 someone untracked on purpose while paused stays untracked after resume", async () => {
    const c = await create({ companyNetworkUrl: page("choosy-co"), name: "Choosy Co" });
    const id = num(c.id);
    const people = await settleImport(id);
    expect((await w.patch(`/competitors/${id}`, { paused: true })).status).toBe(200);
    const dropped = obj(people[0]);
    expect((await w.patch(`/employees/${String(dropped.id)}`, { tracked: false })).status).toBe(200);
    await w.patch(`/competitors/${id}`, { paused: false });
    expect((await w.get(`/employees/${String(dropped.id)}`)).json.tracked).toBe(false);
    expect((await w.get(`/competitors/${id}`)).json.trackedEmployeeCount).toBe(people.length - 1);
  });
});

describe("4.5 DELETE /competitors/{id}", () => {
  it("3.2 erases workspace, its people and their history, releases seats; body {id, deleted:true}", async () => {
    const c = await create({ companyNetworkUrl: page("gone-co"), name: "Gone Co" });
    const id = num(c.id);
    const people = await settleImport(id);
    const person = obj(people.find((p) => p.tracked === true));
    await w.signals({ employeeId: person.id, count: 1 });
    const res = await w.delete(`/competitors/${id}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id, deleted: true });
    expectError(await w.get(`/competitors/${id}`), 404, null);
    expectError(await w.get("/employees", { query: { organizationId: id } }), 404, null);
    expectError(await w.get(`/employees/${String(person.id)}`), 404, null);
    expect(asArray((await w.get("/me")).json.competitors)).toHaveLength(0);
    expect(await seatsBillable()).toBe(0);
    expectError(await w.delete(`/competitors/${id}`), 404, null);
  });
});

describe("4.5 choices where the spec is silent (README)", () => {
  it("4.5 name omitted: the workspace is named after the resolved company", async () => {
    const c = await create({ companyNetworkUrl: page("umbrella-corp") });
    expect(c.name).toBe("Umbrella Corp");
  });

  it("4.5 the same company page again answers 200 with the existing workspace: nothing created, imported or billed twice", async () => {
    const a = await create({ companyNetworkUrl: page("twice-co"), name: "Twice Co" });
    const people = await settleImport(num(a.id));
    const seats = await seatsBillable();
    expect(seats).toBe(people.length);
    const again = await w.post("/competitors", {
      companyNetworkUrl: "http://linkedin.com/company/Twice-Co/",
      name: "Twice Co",
      roleFilters: ["sales"],
    });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ id: a.id, roleFilters: [], importing: false });
    await w.advanceClock(5);
    expect(asArray((await w.get("/competitors")).body).map((c) => c.id)).toEqual([a.id]);
    expect(await seatsBillable()).toBe(seats);
    // the brand check still comes first; once erased, the page can be tracked anew
    expectError(
      await w.post("/competitors", { companyNetworkUrl: page("twice-co"), name: "Other Brand" }),
      409,
      "COMPETITOR_IDENTITY_MISMATCH",
    );
    await w.delete(`/competitors/${String(a.id)}`);
    const fresh = await w.post("/competitors", { companyNetworkUrl: page("twice-co") });
    expect(fresh.status).toBe(201);
    expect(fresh.json.id).not.toBe(a.id);
  });
});
