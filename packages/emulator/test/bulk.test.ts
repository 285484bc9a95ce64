import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError, expectInvalid } from "./support/expect-error.js";
import { addPerson, seatsInOrganization } from "./support/people.js";
import { asArray, bootEmulator, num, obj, profileUrl, profileUrls, type Wire } from "./support/wire.js";

let w: Wire;
beforeEach(async () => {
  w = await bootEmulator({ seed: "empty", rateLimitPerMinute: 10_000 });
});
afterEach(async () => {
  await w.close();
});

describe("4.3 POST /employees/bulk", () => {
  it("4.3 201 when every URL was added: added Employees importing, skipped empty, seatAllowance", async () => {
    const urls = profileUrls(5);
    const res = await w.post("/employees/bulk", { networkUrls: urls });
    expect(res.status).toBe(201);
    const added = asArray(res.json.added);
    expect(added).toHaveLength(5);
    for (const e of added) expect(e).toMatchObject({ id: expect.any(Number), status: "importing", tracked: true });
    expect(res.json.skipped).toEqual([]);
    const allowance = obj(res.json.seatAllowance);
    expect(allowance).toMatchObject({ perDay: 200, usedLast24h: 5, left: 195 });
    expect(await seatsInOrganization(w)).toBe(5);
  });

  it("4.3 207 with skipped items for a bad URL and a duplicate; the rest is added", async () => {
    const existing = profileUrl();
    await addPerson(w, { networkUrl: existing });
    const fresh = profileUrls(2);
    const res = await w.post("/employees/bulk", {
      networkUrls: [...fresh, "https://www.linkedin.com/in/ACoAAA0000000000000000000000000000000", existing, "nope"],
    });
    expect(res.status).toBe(207);
    expect(asArray(res.json.added)).toHaveLength(2);
    const skipped = asArray(res.json.skipped);
    expect(skipped).toHaveLength(3);
    for (const s of skipped) {
      expect(typeof s.reason).toBe("string");
      expect(typeof s.message).toBe("string");
      expect(String(s.message).length).toBeGreaterThan(0);
    }
    const reasons = skipped.map((s) => s.reason).sort();
    expect(reasons).toEqual(["duplicate", "invalid_url", "invalid_url"]);
    expect(skipped.find((s) => s.reason === "duplicate")?.networkUrl).toBe(existing);
  });

  it("4.3 the same URL twice in one batch is added once and skipped once as duplicate", async () => {
    const url = profileUrl();
    const res = await w.post("/employees/bulk", { networkUrls: [url, url.replace("https://www.", "http://")] });
    expect(res.status).toBe(207);
    expect(asArray(res.json.added)).toHaveLength(1);
    expect(asArray(res.json.skipped).map((s) => s.reason)).toEqual(["duplicate"]);
  });

  it("4.3 tracked:false applies to the whole batch and takes no seat", async () => {
    const res = await w.post("/employees/bulk", { networkUrls: profileUrls(3), tracked: false });
    expect(res.status).toBe(201);
    expect(asArray(res.json.added).every((e) => e.tracked === false)).toBe(true);
    expect(await seatsInOrganization(w)).toBe(0);
    expect(obj(res.json.seatAllowance).usedLast24h).toBe(0);
  });

  it("8 bulk size is 1 to 50 URLs; missing or mistyped networkUrls: 400 naming networkUrls", async () => {
    expectInvalid(await w.post("/employees/bulk", { networkUrls: [] }), "networkUrls");
    expectInvalid(await w.post("/employees/bulk", { networkUrls: profileUrls(51) }), "networkUrls");
    expectInvalid(await w.post("/employees/bulk", {}), "networkUrls");
    expectInvalid(await w.post("/employees/bulk", { networkUrls: "https://www.linkedin.com/in/x" }), "networkUrls");
    const fifty = await w.post("/employees/bulk", { networkUrls: profileUrls(50) });
    expect(fifty.status).toBe(201);
    expect(asArray(fifty.json.added)).toHaveLength(50);
    expect((await w.get("/employees")).json.total).toBe(50);
  });

  it("7 rule 2 a spent seat allowance skips items with a seat ceiling reason, never fails the batch", async () => {
    for (let i = 0; i < 4; i += 1) {
      expect((await w.post("/employees/bulk", { networkUrls: profileUrls(50) })).status).toBe(201);
    }
    const res = await w.post("/employees/bulk", { networkUrls: profileUrls(3) });
    expect(res.status).toBe(207);
    expect(asArray(res.json.added)).toHaveLength(0);
    const skipped = asArray(res.json.skipped);
    expect(skipped.map((s) => s.reason)).toEqual(["seat_limit", "seat_limit", "seat_limit"]);
    expect(obj(res.json.seatAllowance)).toMatchObject({ perDay: 200, usedLast24h: 200, left: 0 });
    // untracked people take no seat, so they still go in
    const untracked = await w.post("/employees/bulk", { networkUrls: profileUrls(2), tracked: false });
    expect(untracked.status).toBe(201);
  });

  it("7 rule 2 a partial fit adds what fits (trial cap) and skips the rest", async () => {
    await w.setBilling({ trial: true });
    expect((await w.post("/employees/bulk", { networkUrls: profileUrls(50) })).status).toBe(201);
    expect((await w.post("/employees/bulk", { networkUrls: profileUrls(45) })).status).toBe(201);
    const res = await w.post("/employees/bulk", { networkUrls: profileUrls(10) });
    expect(res.status).toBe(207);
    expect(asArray(res.json.added)).toHaveLength(5);
    expect(asArray(res.json.skipped).map((s) => s.reason)).toEqual(Array(5).fill("trial_limit"));
    expect(await seatsInOrganization(w)).toBe(100);
  });

  it("4.3 organizationId adds into a competitor workspace; an unreachable one is 404", async () => {
    const c = await w.post("/competitors", {
      companyNetworkUrl: "https://www.linkedin.com/company/bulk-rival",
      name: "Bulk Rival",
    });
    const id = num(c.json.id);
    const res = await w.post("/employees/bulk", { networkUrls: profileUrls(2), organizationId: id });
    expect(res.status).toBe(201);
    expect(asArray(res.json.added).every((e) => e.organizationId === id)).toBe(true);
    expectError(await w.post("/employees/bulk", { networkUrls: profileUrls(1), organizationId: 555555 }), 404, null);
  });
});
