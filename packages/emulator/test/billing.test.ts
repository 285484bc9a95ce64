import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError, expectRetryAfter } from "./support/expect-error.js";
import { addPerson, seatsInOrganization } from "./support/people.js";
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

async function billing(): Promise<JsonObject> {
  const res = await w.get("/billing");
  expect(res.status).toBe(200);
  return res.json;
}

async function addTracked(n: number): Promise<void> {
  for (let left = n; left > 0; left -= 50) {
    const res = await w.post("/employees/bulk", { networkUrls: profileUrls(Math.min(50, left)) });
    expect(res.status, res.text).toBe(201);
  }
}

describe("4.2 GET /billing (2.10)", () => {
  it("2.10 200 with every required block, consistent with the roster", async () => {
    await addTracked(3);
    await addPerson(w, { tracked: false });
    const b = await billing();
    expect(b).toMatchObject({
      organizationId: w.organizationId,
      seats: { billable: 3, inThisOrganization: 3, organizationIds: expect.arrayContaining([w.organizationId]) },
      plan: { status: "active", interval: expect.stringMatching(/^(month|year)$/), perSeatUsd: 5 },
      estimate: { grossUsd: expect.any(Number), netUsd: expect.any(Number), discountUsd: expect.any(Number) },
      trial: { onFreeTrial: false, seatLimit: 100 },
      seatSettlement: { threshold: 10, maxUnbilledUsd: 50, chargeFailed: false },
      apiSeatAllowance: { perDay: 200, usedLast24h: 3, left: 197 },
    });
  });

  it("1/8 estimate: 5 USD per tracked seat per month", async () => {
    await addTracked(4);
    const b = await billing();
    const estimate = obj(b.estimate);
    const perInterval = obj(b.plan).interval === "year" ? 60 : 5;
    expect(estimate.grossUsd).toBeCloseTo(4 * perInterval, 5);
    expect(num(estimate.netUsd)).toBeCloseTo(num(estimate.grossUsd) - num(estimate.discountUsd), 5);
  });

  it("2.10 a read key may read billing; no key is 401", async () => {
    expect((await w.get("/billing", { key: w.readKey })).status).toBe(200);
    expectError(await w.get("/billing", { key: null }), 401, null);
  });
});

describe("8 free trial / 402 TRIAL_LIMIT_REACHED", () => {
  it("8 trial: 30 days, seat limit 100, seatsLeft counts down", async () => {
    await w.setBilling({ trial: true });
    await addTracked(10);
    const trial = obj((await billing()).trial);
    expect(trial).toMatchObject({ onFreeTrial: true, seatLimit: 100, seatsLeft: 90 });
    // the clock was not advanced, so the virtual now is the real now
    const now = Date.now();
    const ends = Date.parse(String(trial.endsAt));
    expect(Math.round((ends - now) / 86_400_000)).toBe(30);
  });

  it("8 the 101st tracked person on a trial: 402 TRIAL_LIMIT_REACHED (POST and PATCH tracked:true)", async () => {
    await w.setBilling({ trial: true });
    await addTracked(100);
    expectError(await w.post("/employees", { networkUrl: profileUrl() }), 402, "TRIAL_LIMIT_REACHED");
    const untracked = await addPerson(w, { tracked: false });
    expectError(await w.patch(`/employees/${String(untracked.id)}`, { tracked: true }), 402, "TRIAL_LIMIT_REACHED");
    expect(await seatsInOrganization(w)).toBe(100);
  });

  it("8/5.8 after 30 days the trial is over and API access pauses: 402 SUBSCRIPTION_INACTIVE", async () => {
    await w.setBilling({ trial: true });
    expect((await w.get("/me")).status).toBe(200);
    await w.advanceClock(30 * 86_400 + 60);
    expectError(await w.get("/me"), 402, "SUBSCRIPTION_INACTIVE");
  });
});

describe("5.8 402 SUBSCRIPTION_INACTIVE", () => {
  it("5.8 no active subscription or trial: every endpoint answers 402 SUBSCRIPTION_INACTIVE", async () => {
    await w.setBilling({ status: "canceled", trial: false });
    for (const path of ["/me", "/organization", "/billing", "/employees", "/changes", "/competitors", "/webhooks"]) {
      expectError(await w.get(path), 402, "SUBSCRIPTION_INACTIVE");
    }
    expectError(await w.post("/employees", { networkUrl: profileUrl() }), 402, "SUBSCRIPTION_INACTIVE");
    await w.setBilling({ status: "active" });
    expect((await w.get("/me")).status).toBe(200);
  });

  it("5.8 past_due still has a subscription (README): access continues", async () => {
    await w.setBilling({ status: "past_due" });
    expect((await w.get("/me")).status).toBe(200);
    expect(obj((await billing()).plan).status).toBe("past_due");
  });

  it("5.8 an expired trial (trialDaysLeft) pauses access, /billing included; a subscription restores it", async () => {
    await w.setBilling({ trial: true, trialDaysLeft: 1 });
    await w.advanceClock(86_400 + 1);
    expectError(await w.get("/billing"), 402, "SUBSCRIPTION_INACTIVE");
    await w.setBilling({ status: "active" });
    expect(obj((await billing()).plan).status).toBe("active");
  });
});

describe("8 daily API seat allowance / 429 SEAT_QUOTA_EXCEEDED", () => {
  it("8 201st tracked API add in 24 h: 429 SEAT_QUOTA_EXCEEDED with a long Retry-After; rolling window frees it", async () => {
    await addTracked(200);
    const res = await w.post("/employees", { networkUrl: profileUrl() });
    expectError(res, 429, "SEAT_QUOTA_EXCEEDED");
    const seconds = expectRetryAfter(res, 61);
    expect(seconds).toBeLessThanOrEqual(86_400);
    // untracked rows take no seat
    expect((await w.post("/employees", { networkUrl: profileUrl(), tracked: false })).status).toBe(201);
    await w.advanceClock(seconds);
    expect((await w.post("/employees", { networkUrl: profileUrl() })).status).toBe(201);
  });

  it("7 rule 1 the daily-allowance 429 carries a code, the per-minute 429 none", async () => {
    const limited = await bootEmulator({ seed: "empty", rateLimitPerMinute: 1 });
    try {
      await limited.get("/me");
      const perMinute = await limited.get("/me");
      expectError(perMinute, 429, null);
    } finally {
      await limited.close();
    }
    await addTracked(200);
    expectError(await w.post("/employees", { networkUrl: profileUrl() }), 429, "SEAT_QUOTA_EXCEEDED");
  });
});

describe("8 daily allowance of rows / 429 ROW_QUOTA_EXCEEDED", () => {
  it("8 once the daily row allowance is spent, even untracked adds get 429 ROW_QUOTA_EXCEEDED", async () => {
    let reachedQuota = false;
    for (let i = 0; i < 200 && !reachedQuota; i += 1) {
      const res = await w.post("/employees/bulk", { networkUrls: profileUrls(50), tracked: false });
      expect([201, 207]).toContain(res.status);
      const reasons = asArray(res.json.skipped).map((s) => s.reason);
      if (reasons.length > 0) {
        expect(new Set(reasons)).toEqual(new Set(["row_quota"]));
        reachedQuota = true;
      }
    }
    expect(reachedQuota).toBe(true);
    const res = await w.post("/employees", { networkUrl: profileUrl(), tracked: false });
    expectError(res, 429, "ROW_QUOTA_EXCEEDED");
    expectRetryAfter(res);
    await w.advanceClock(86_400);
    expect((await w.post("/employees", { networkUrl: profileUrl(), tracked: false })).status).toBe(201);
  });
});

describe("8 seat settlement / 3.4 billing block", () => {
  it("8 unbilled seats accumulate to the batch of 10; the next add charges the batch", async () => {
    await addTracked(9);
    let s = obj((await billing()).seatSettlement);
    expect(s).toMatchObject({ unbilledSeats: 9, seatsUntilNextCharge: 1, chargeFailed: false });
    expect(["seats", "amount"]).toContain(s.trigger);
    await addTracked(1);
    s = obj((await billing()).seatSettlement);
    expect(s.unbilledSeats).toBe(10);
    await addTracked(1);
    s = obj((await billing()).seatSettlement);
    expect(num(s.unbilledSeats)).toBeLessThan(10);
  });

  it("8 any next add charges a due batch, an untracked one too; 3.4 a single retryable decline blocks nothing", async () => {
    await addTracked(10);
    expect(obj((await billing()).seatSettlement)).toMatchObject({ unbilledSeats: 10, seatsUntilNextCharge: 0 });
    await w.setBilling({ chargeFails: "retryable" });
    // the charge meets one retryable decline: the add goes through, the batch stays unbilled
    expect((await w.post("/employees", { networkUrl: profileUrl(), tracked: false })).status).toBe(201);
    expect(obj((await billing()).seatSettlement)).toMatchObject({ unbilledSeats: 10, chargeFailed: false });
    // the following add (untracked again) charges it
    expect((await w.post("/employees", { networkUrl: profileUrl(), tracked: false })).status).toBe(201);
    expect(obj((await billing()).seatSettlement)).toMatchObject({
      unbilledSeats: 0,
      estimatedUnbilledUsd: 0,
      seatsUntilNextCharge: 10,
      chargeFailed: false,
    });
  });

  it("3.4 a declined batch charge sets chargeFailed; every add gets 402 SEAT_CHARGE_FAILED; tracked stay tracked", async () => {
    await w.setBilling({ chargeFails: true });
    await addTracked(10);
    // the next add triggers the batch charge, which is declined
    await w.post("/employees", { networkUrl: profileUrl() });
    const s = obj((await billing()).seatSettlement);
    expect(s.chargeFailed).toBe(true);
    expect(typeof s.chargeFailedAt).toBe("string");
    expectError(await w.post("/employees", { networkUrl: profileUrl() }), 402, "SEAT_CHARGE_FAILED");
    expectError(await w.post("/employees", { networkUrl: profileUrl(), tracked: false }), 402, "SEAT_CHARGE_FAILED");
    const tracked = await w.get("/employees", { query: { tracked: true, pageSize: 100 } });
    expect(num(tracked.json.total)).toBeGreaterThanOrEqual(10);
    // already-tracked people stay monitored: signals are still detected for them
    expect((await w.raw("POST", "/_emulator/signals", { count: 2 })).status).toBe(201);
    expect((await w.get("/changes")).json.total).toBe(2);
  });

  it("3.4/7 rule 2 while blocked, bulk adds skip every URL with reason charge_failed (the emulator's wire shape), 207", async () => {
    await w.setBilling({ chargeFails: true });
    await addTracked(10);
    await w.post("/employees", { networkUrl: profileUrl() });
    for (const tracked of [true, false]) {
      const res = await w.post("/employees/bulk", { networkUrls: profileUrls(2), tracked });
      expect(res.status).toBe(207);
      expect(asArray(res.json.added)).toHaveLength(0);
      expect(asArray(res.json.skipped).map((s) => s.reason)).toEqual(["charge_failed", "charge_failed"]);
    }
  });

  it("3.4 the block lifts by itself once a payment succeeds", async () => {
    await w.setBilling({ chargeFails: true });
    await addTracked(10);
    await w.post("/employees", { networkUrl: profileUrl() });
    expect(obj((await billing()).seatSettlement).chargeFailed).toBe(true);
    await w.setBilling({ chargeFails: false });
    const res = await w.post("/employees", { networkUrl: profileUrl() });
    expect(res.status, res.text).toBe(201);
    expect(obj((await billing()).seatSettlement).chargeFailed).toBe(false);
  });
});

describe("3.4/8 the billing block covers every door that adds seats", () => {
  const page = (slug: string) => `https://www.linkedin.com/company/${slug}`;

  /** Adds a due batch of 10 and lets the next add meet the armed final decline. */
  async function blockAdds(): Promise<void> {
    await addTracked(10);
    await w.setBilling({ chargeFails: true });
    expectError(await w.post("/employees", { networkUrl: profileUrl() }), 402, "SEAT_CHARGE_FAILED");
    expect(obj((await billing()).seatSettlement).chargeFailed).toBe(true);
  }

  it("3.4 creating a competitor workspace while blocked: 402 SEAT_CHARGE_FAILED, nothing created or imported", async () => {
    await blockAdds();
    const before = num(obj((await billing()).seats).billable);
    expectError(
      await w.post("/competitors", { companyNetworkUrl: page("blocked-co"), name: "Blocked Co" }),
      402,
      "SEAT_CHARGE_FAILED",
    );
    await w.advanceClock(5);
    expect(asArray((await w.get("/competitors")).body)).toHaveLength(0);
    expect(num(obj((await billing()).seats).billable)).toBe(before);
    // a payment clears: creation works again
    await w.setBilling({ chargeFails: false });
    expect((await w.post("/competitors", { companyNetworkUrl: page("blocked-co") })).status).toBe(201);
  });

  it("3.4 while blocked a workspace can be paused, but not resumed or retargeted (402); seats stay off", async () => {
    const c = await w.post("/competitors", { companyNetworkUrl: page("held-co"), name: "Held Co" });
    const id = num(c.json.id);
    await w.advanceClock(5);
    const imported = num((await w.get(`/competitors/${id}`)).json.trackedEmployeeCount);
    expect(imported).toBeGreaterThan(0);
    await blockAdds();
    expect((await w.patch(`/competitors/${id}`, { paused: true })).json).toMatchObject({ paused: true });
    const billable = num(obj((await billing()).seats).billable);
    expectError(await w.patch(`/competitors/${id}`, { paused: false }), 402, "SEAT_CHARGE_FAILED");
    expectError(await w.patch(`/competitors/${id}`, { roleFilters: ["sales"] }), 402, "SEAT_CHARGE_FAILED");
    await w.advanceClock(5);
    expect((await w.get(`/competitors/${id}`)).json).toMatchObject({
      paused: true,
      roleFilters: [],
      trackedEmployeeCount: 0,
    });
    expect(num(obj((await billing()).seats).billable)).toBe(billable);
    await w.setBilling({ chargeFails: false });
    expect((await w.patch(`/competitors/${id}`, { paused: false })).json).toMatchObject({
      paused: false,
      trackedEmployeeCount: imported,
    });
  });

  it("3.4 a roster import falling due while blocked adds nobody until a payment clears", async () => {
    const slow = await bootEmulator({ seed: "empty", rateLimitPerMinute: 100_000, importDelayMs: 60_000 });
    try {
      const bill = async () => (await slow.get("/billing")).json;
      const c = await slow.post("/competitors", { companyNetworkUrl: page("late-co"), name: "Late Co" });
      expect(c.status).toBe(201);
      const id = num(c.json.id);
      // a due batch of 10, then the armed final decline blocks adds before the import is due
      expect((await slow.post("/employees/bulk", { networkUrls: profileUrls(10) })).status).toBe(201);
      await slow.setBilling({ chargeFails: true });
      expectError(await slow.post("/employees", { networkUrl: profileUrl() }), 402, "SEAT_CHARGE_FAILED");
      await slow.advanceClock(61);
      expect(num(obj((await bill()).seats).billable)).toBe(10);
      expect((await slow.get(`/competitors/${id}`)).json).toMatchObject({ trackedEmployeeCount: 0, importing: true });
      await slow.setBilling({ chargeFails: false });
      expect(num((await slow.get(`/competitors/${id}`)).json.trackedEmployeeCount)).toBeGreaterThan(0);
      expect(num(obj((await bill()).seats).billable)).toBeGreaterThan(10);
    } finally {
      await slow.close();
    }
  });
});

describe("4.3 503 SEAT_RESERVATION_BUSY", () => {
  it("8 concurrent adds over the per-company limit: 503 SEAT_RESERVATION_BUSY with Retry-After", async () => {
    const slow = await bootEmulator({ seed: "empty", rateLimitPerMinute: 100_000, importDelayMs: 0 });
    try {
      await slow.faults({ latencyMs: 100 });
      const results = await Promise.all(
        Array.from({ length: 30 }, () => slow.post("/employees", { networkUrl: profileUrl() })),
      );
      const busy = results.filter((r) => r.status === 503);
      expect(busy.length).toBeGreaterThan(0);
      for (const r of busy) {
        expectError(r, 503, "SEAT_RESERVATION_BUSY");
        expectRetryAfter(r);
      }
      expect(results.every((r) => r.status === 201 || r.status === 503)).toBe(true);
    } finally {
      await slow.close();
    }
  });
});

describe("1/8 prorated seat price", () => {
  it("8 unbilled seats are estimated prorated: at most 5 USD each, less later in the period", async () => {
    await addTracked(1);
    const first = num(obj((await billing()).seatSettlement).estimatedUnbilledUsd);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(5);
    const periodEnd = Date.parse(String(obj((await billing()).plan).currentPeriodEnd));
    const daysLeft = (periodEnd - Date.now()) / 86_400_000;
    expect(daysLeft).toBeGreaterThan(2);
    await w.advanceClock(Math.floor(daysLeft / 2) * 86_400);
    await addTracked(1);
    const second = num(obj((await billing()).seatSettlement).estimatedUnbilledUsd) - first;
    expect(second).toBeGreaterThan(0);
    expect(second).toBeLessThan(first);
  });
});

describe("2.10 seats across workspaces", () => {
  it("2.10 seats.billable counts the company and its competitor workspaces; organizationIds lists them", async () => {
    const demo = await bootEmulator({ seed: "demo" });
    try {
      const b = (await demo.get("/billing")).json;
      const seats = obj(b.seats);
      const own = num((await demo.get("/organization")).json.trackedEmployeeCount);
      const competitors = asArray((await demo.get("/competitors")).body);
      const theirs = competitors.reduce((sum, c) => sum + num(c.trackedEmployeeCount), 0);
      expect(theirs).toBeGreaterThan(0);
      expect(seats).toMatchObject({ inThisOrganization: own, billable: own + theirs });
      expect(seats.organizationIds).toEqual(
        expect.arrayContaining([demo.organizationId, ...competitors.map((c) => c.id)]),
      );
      expect(obj(b.plan).quantity).toBe(own + theirs);
    } finally {
      await demo.close();
    }
  });
});
