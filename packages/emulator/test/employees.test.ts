import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError, expectInvalid } from "./support/expect-error.js";
import { addPerson, seatsInOrganization, waitImported } from "./support/people.js";
import { asArray, bootEmulator, num, obj, profileUrl, type Wire } from "./support/wire.js";

let w: Wire;
beforeEach(async () => {
  w = await bootEmulator({ seed: "empty" });
});
afterEach(async () => {
  await w.close();
});

describe("4.3 POST /employees", () => {
  it("4.3 201 Employee with status importing and a placeholder name; tracked defaults to true", async () => {
    const url = profileUrl("jane-placeholder");
    const res = await w.post("/employees", { networkUrl: url });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      id: expect.any(Number),
      organizationId: w.organizationId,
      name: expect.any(String),
      status: "importing",
      tracked: true,
      networkUrl: expect.stringContaining("/in/jane-placeholder"),
    });
    expect(String(res.json.name).length).toBeGreaterThan(0);
    expect(res.json.latestChange ?? null).toBeNull();
  });

  it("4.3 the supplied name is shown while importing", async () => {
    const res = await w.post("/employees", { networkUrl: profileUrl(), name: "Ada Placeholder" });
    expect(res.status).toBe(201);
    expect(res.json.name).toBe("Ada Placeholder");
  });

  it("3.1 tracked:true takes one seat, tracked:false takes no seat", async () => {
    expect(await seatsInOrganization(w)).toBe(0);
    await addPerson(w);
    expect(await seatsInOrganization(w)).toBe(1);
    const untracked = await addPerson(w, { tracked: false });
    expect(untracked.tracked).toBe(false);
    expect(await seatsInOrganization(w)).toBe(1);
  });

  it("3.1 the background import fills the real name and photo and leaves importing (README: ends active)", async () => {
    const created = await addPerson(w, { name: "Temp Name" });
    const done = await waitImported(w, num(created.id));
    expect(done.status).toBe("active");
    expect(done.name).not.toBe("Temp Name");
    expect(typeof done.profileImageUrl).toBe("string");
  });

  it("3.1 409 EMPLOYEE_EXISTS for a profile already on the roster", async () => {
    const url = profileUrl();
    await addPerson(w, { networkUrl: url });
    const again = await w.post("/employees", { networkUrl: url });
    expectError(again, 409, "EMPLOYEE_EXISTS");
    // README choice: the 409 also names the existing row
    expect(typeof again.json.employeeId).toBe("number");
  });

  it("3.1 responses carry the canonical profile URL (README: https://www.linkedin.com/in/<slug lower-cased>)", async () => {
    const res = await w.post("/employees", { networkUrl: "http://LinkedIn.com/in/Mixed-Case-Slug/?trk=x" });
    expect(res.status).toBe(201);
    expect(res.json.networkUrl).toBe("https://www.linkedin.com/in/mixed-case-slug");
  });

  it("3.1 profile URLs match regardless of scheme, www, trailing slash, host case and query", async () => {
    await addPerson(w, { networkUrl: "https://www.linkedin.com/in/variant-person" });
    for (const variant of [
      "http://www.linkedin.com/in/variant-person",
      "https://linkedin.com/in/variant-person/",
      "https://WWW.LinkedIn.com/in/variant-person",
      "https://www.linkedin.com/in/variant-person?trk=abc",
      "https://uk.linkedin.com/in/variant-person",
      "https://m.linkedin.com/in/variant-person",
      "https://www.linkedin.com/in/Variant-Person",
      "https://www.linkedin.com/in/variant%2Dperson",
    ]) {
      expectError(await w.post("/employees", { networkUrl: variant }), 409, "EMPLOYEE_EXISTS");
    }
  });

  it("4.3 the internal opaque-id form of a profile URL is refused with 400 naming networkUrl", async () => {
    const res = await w.post("/employees", {
      networkUrl: "https://www.linkedin.com/in/ACoAAB1234567890abcdefGHIJKLmnopqrstuv",
    });
    expectInvalid(res, "networkUrl");
  });

  it("4.3 a URL that is not a public profile URL is refused with 400", async () => {
    for (const bad of ["not a url", "https://www.linkedin.com/company/acme", "https://example.com/in/someone"]) {
      expectInvalid(await w.post("/employees", { networkUrl: bad }), "networkUrl");
    }
  });

  it("4.3 organizationId adds into a competitor workspace", async () => {
    const created = await w.post("/competitors", {
      companyNetworkUrl: "https://www.linkedin.com/company/rival-co",
      name: "Rival Co",
    });
    expect(created.status).toBe(201);
    const competitorId = num(created.json.id);
    const res = await w.post("/employees", { networkUrl: profileUrl(), organizationId: competitorId });
    expect(res.status).toBe(201);
    expect(res.json.organizationId).toBe(competitorId);
    expectError(await w.post("/employees", { networkUrl: profileUrl(), organizationId: 777777 }), 404, null);
  });
});

describe("2.7 trackingStartedAt", () => {
  it("2.7 a date-time once tracked; absent (never null) for someone never tracked", async () => {
    const never = await addPerson(w, { tracked: false });
    expect(never).not.toHaveProperty("trackingStartedAt");
    const listed = asArray((await w.get("/employees")).json.items).find((e) => e.id === never.id);
    expect(obj(listed)).not.toHaveProperty("trackingStartedAt");
    const tracked = await w.patch(`/employees/${String(never.id)}`, { tracked: true });
    expect(Number.isNaN(Date.parse(String(tracked.json.trackingStartedAt)))).toBe(false);
    // untracking keeps the last start
    const untracked = await w.patch(`/employees/${String(never.id)}`, { tracked: false });
    expect(untracked.json.trackingStartedAt).toBe(tracked.json.trackingStartedAt);
  });
});

describe("4.3 GET /employees/{id}", () => {
  it("4.3 200 Employee of the own roster; 404 for an unknown id", async () => {
    const created = await addPerson(w);
    const res = await w.get(`/employees/${String(created.id)}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: created.id, networkUrl: created.networkUrl });
    expectError(await w.get("/employees/123456789"), 404, null);
  });

  it("4.3 works for a person in a reachable competitor workspace", async () => {
    const demo = await bootEmulator({ seed: "demo" });
    try {
      const competitor = obj(asArray((await demo.get("/competitors")).body)[0]);
      const page = await demo.get("/employees", { query: { organizationId: Number(competitor.id), pageSize: 1 } });
      const person = obj(asArray(page.json.items)[0]);
      const res = await demo.get(`/employees/${String(person.id)}`);
      expect(res.status).toBe(200);
      expect(res.json.organizationId).toBe(competitor.id);
    } finally {
      await demo.close();
    }
  });
});

describe("4.3 PATCH /employees/{id}", () => {
  it("3.1 tracked:false stops scanning, releases the seat, keeps status", async () => {
    const p = await waitImported(w, num((await addPerson(w)).id));
    const res = await w.patch(`/employees/${String(p.id)}`, { tracked: false });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: p.id, tracked: false, status: p.status });
    expect(await seatsInOrganization(w)).toBe(0);
  });

  it("3.1 tracked:true takes a seat, keeps status", async () => {
    const p = await waitImported(w, num((await addPerson(w, { tracked: false })).id));
    const res = await w.patch(`/employees/${String(p.id)}`, { tracked: true });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ tracked: true, status: p.status });
    expect(await seatsInOrganization(w)).toBe(1);
  });

  it("3.1 status:archived archives and always untracks", async () => {
    const p = await addPerson(w);
    const res = await w.patch(`/employees/${String(p.id)}`, { status: "archived" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "archived", tracked: false });
    expect(await seatsInOrganization(w)).toBe(0);
  });

  it("3.1 status:active on an archived person: active and tracked false", async () => {
    const p = await addPerson(w);
    await w.patch(`/employees/${String(p.id)}`, { status: "archived" });
    const res = await w.patch(`/employees/${String(p.id)}`, { status: "active" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "active", tracked: false });
    expect(await seatsInOrganization(w)).toBe(0);
  });

  it("3.1 status:active with tracked:true in the same request re-tracks", async () => {
    const p = await addPerson(w);
    await w.patch(`/employees/${String(p.id)}`, { status: "archived" });
    const res = await w.patch(`/employees/${String(p.id)}`, { status: "active", tracked: true });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "active", tracked: true });
    expect(await seatsInOrganization(w)).toBe(1);
  });

  it("3.1 status:active answers active even when the first profile fetch had not finished (it completes)", async () => {
    const slow = await bootEmulator({ seed: "empty", importDelayMs: 3_600_000 });
    try {
      const p = await slow.post("/employees", { networkUrl: profileUrl("slow-fetch"), name: "Temp Name" });
      expect(p.json.status).toBe("importing");
      await slow.patch(`/employees/${String(p.json.id)}`, { status: "archived" });
      const res = await slow.patch(`/employees/${String(p.json.id)}`, { status: "active" });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ status: "active", tracked: false });
      expect(res.json.name).not.toBe("Temp Name");
      expect(typeof res.json.profileImageUrl).toBe("string");
      await slow.advanceClock(3_600);
      expect((await slow.get(`/employees/${String(p.json.id)}`)).json).toMatchObject({
        status: "active",
        name: res.json.name,
      });
    } finally {
      await slow.close();
    }
  });

  it("3.1 tracked:true on an archived person: 400 naming tracked (README); it stays archived, untracked, seatless", async () => {
    const p = await addPerson(w);
    await w.patch(`/employees/${String(p.id)}`, { status: "archived" });
    expectInvalid(await w.patch(`/employees/${String(p.id)}`, { tracked: true }), "tracked");
    expect((await w.get(`/employees/${String(p.id)}`)).json).toMatchObject({ status: "archived", tracked: false });
    expect(await seatsInOrganization(w)).toBe(0);
    expect((await w.raw("POST", "/_emulator/signals", { employeeId: p.id })).status).toBe(409);
    // tracked:false on an archived person changes nothing and is fine
    expect((await w.patch(`/employees/${String(p.id)}`, { tracked: false })).json).toMatchObject({
      status: "archived",
      tracked: false,
    });
  });

  it("4.3 name and profile URL are not editable", async () => {
    const p = await waitImported(w, num((await addPerson(w)).id));
    const res = await w.patch(`/employees/${String(p.id)}`, { name: "Hacked", networkUrl: profileUrl() });
    expect(res.status).toBe(400);
    const after = await w.get(`/employees/${String(p.id)}`);
    expect(after.json).toMatchObject({ name: p.name, networkUrl: p.networkUrl });
  });

  it("4.3 404 for an unknown id", async () => {
    expectError(await w.patch("/employees/424242", { tracked: true }), 404, null);
  });
});

describe("4.3 DELETE /employees/{id}", () => {
  it("3.1 without permanent: archives, releases the seat, keeps history; body is the archived Employee", async () => {
    const p = await waitImported(w, num((await addPerson(w)).id));
    await w.signals({ employeeId: p.id, count: 2 });
    const before = await w.get(`/employees/${String(p.id)}/changes`);
    expect(before.json.total).toBe(2);
    const res = await w.delete(`/employees/${String(p.id)}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: p.id, status: "archived", tracked: false });
    expect(await seatsInOrganization(w)).toBe(0);
    const after = await w.get(`/employees/${String(p.id)}/changes`);
    expect(after.status).toBe(200);
    expect(after.json.items).toEqual(before.json.items);
  });

  it("3.1 permanent=true on an archived person erases person and history; body {id, deleted:true}", async () => {
    const p = await waitImported(w, num((await addPerson(w)).id));
    await w.signals({ employeeId: p.id, count: 1 });
    await w.delete(`/employees/${String(p.id)}`);
    const res = await w.delete(`/employees/${String(p.id)}`, { query: { permanent: true } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: p.id, deleted: true });
    expectError(await w.get(`/employees/${String(p.id)}`), 404, null);
    expectError(await w.get(`/employees/${String(p.id)}/changes`), 404, null);
    const feed = await w.get("/changes");
    expect(asArray(feed.json.items).some((c) => c.employeeId === p.id)).toBe(false);
  });

  it("3.1 permanent must be a boolean", async () => {
    const p = await addPerson(w);
    expectInvalid(await w.delete(`/employees/${String(p.id)}`, { query: { permanent: "perhaps" } }), "permanent");
  });

  it("4.3 404 for an unknown id", async () => {
    expectError(await w.delete("/employees/424242"), 404, null);
  });
});

describe("3.1 revive an archived profile", () => {
  it("3.1 archived + POST same URL revives the row with history and tracking window", async () => {
    const url = profileUrl("revive-me");
    const p = await waitImported(w, num((await addPerson(w, { networkUrl: url })).id));
    await w.signals({ employeeId: p.id, count: 3 });
    const history = await w.get(`/employees/${String(p.id)}/changes`);
    await w.delete(`/employees/${String(p.id)}`);
    await w.advanceClock(3600);
    const res = await w.post("/employees", { networkUrl: "http://linkedin.com/in/revive-me/" });
    expect([200, 201]).toContain(res.status);
    expect(res.json).toMatchObject({ id: p.id, tracked: true });
    expect(res.json.status).not.toBe("archived");
    expect(res.json.trackingStartedAt).toBe(p.trackingStartedAt);
    const after = await w.get(`/employees/${String(p.id)}/changes`);
    expect(after.json.items).toEqual(history.json.items);
    expect(await seatsInOrganization(w)).toBe(1);
    const roster = await w.get("/employees");
    expect(roster.json.total).toBe(1);
  });
});

describe("3.1 permanent erase of a non-archived person (not shown)", () => {
  it("3.1 permanent=true on a non-archived person erases it in one step (README choice) and frees the seat", async () => {
    const p = await addPerson(w);
    const res = await w.delete(`/employees/${String(p.id)}`, { query: { permanent: true } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: p.id, deleted: true });
    expectError(await w.get(`/employees/${String(p.id)}`), 404, null);
    expect(await seatsInOrganization(w)).toBe(0);
  });
});

describe("3.1 revive through bulk and the seat allowance", () => {
  it("3.1 an archived URL in a bulk batch is revived and listed in added (README)", async () => {
    const url = profileUrl();
    const p = await addPerson(w, { networkUrl: url });
    await w.delete(`/employees/${String(p.id)}`);
    const res = await w.post("/employees/bulk", { networkUrls: [url] });
    expect(res.status).toBe(201);
    const [revived] = asArray(res.json.added);
    expect(revived).toMatchObject({ id: p.id, tracked: true });
    expect((await w.get("/employees")).json.total).toBe(1);
  });

  it("8 PATCH tracked:true counts against the API seat allowance (README): 429 SEAT_QUOTA_EXCEEDED when spent", async () => {
    const limited = await bootEmulator({ seed: "empty", rateLimitPerMinute: 100_000 });
    try {
      await limited.setBilling({ apiSeatsPerDay: 2 });
      const a = await limited.post("/employees", { networkUrl: profileUrl(), tracked: false });
      await limited.post("/employees", { networkUrl: profileUrl() });
      await limited.post("/employees", { networkUrl: profileUrl() });
      const res = await limited.patch(`/employees/${String(a.json.id)}`, { tracked: true });
      expectError(res, 429, "SEAT_QUOTA_EXCEEDED");
    } finally {
      await limited.close();
    }
  });
});
