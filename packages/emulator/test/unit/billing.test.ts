import { describe, expect, it } from "vitest";
import {
  accessActive,
  billingView,
  countLast24h,
  msUntilSlots,
  newAccount,
  proratedSeatUsd,
  recordSeat,
  settleBeforeAdd,
  settlementDue,
  settlementView,
} from "../../src/billing.js";
import { DAY, HOUR } from "../../src/clock.js";

const NOW = Date.parse("2026-11-23T10:00:00Z");

describe("emulator billing rules (spec 2.10, 3.4, 8)", () => {
  it("a trial gives access for 30 days, then access is paused", () => {
    const acc = newAccount(NOW, "trialing");
    expect(accessActive(acc, NOW + 29 * DAY)).toBe(true);
    expect(accessActive(acc, NOW + 30 * DAY)).toBe(false);
    expect(accessActive(newAccount(NOW, "canceled"), NOW)).toBe(false);
  });

  it("counts a rolling 24 h window and says when a slot frees", () => {
    const times = [NOW - 25 * HOUR, NOW - 23 * HOUR, NOW - HOUR];
    expect(countLast24h(times, NOW)).toBe(2);
    expect(msUntilSlots([...times], NOW, 2)).toBe(HOUR);
    expect(msUntilSlots([...times], NOW, 3)).toBe(0);
  });

  it("prorates a seat over the rest of the period", () => {
    const acc = newAccount(NOW);
    const full = proratedSeatUsd(acc, acc.periodStart);
    const half = proratedSeatUsd(acc, acc.periodStart + (acc.periodEnd - acc.periodStart) / 2);
    expect(full).toBe(5);
    expect(half).toBe(2.5);
  });

  it("a batch is due at 10 seats and the next add charges it", () => {
    const acc = newAccount(NOW);
    for (let i = 0; i < 9; i++) recordSeat(acc, NOW, true);
    expect(settlementDue(acc)).toBe(false);
    expect(settlementView(acc, NOW).seatsUntilNextCharge).toBe(1);
    recordSeat(acc, NOW, true);
    expect(settlementDue(acc)).toBe(true);
    expect(settleBeforeAdd(acc, NOW)).toBe(true);
    expect(acc.unbilledSeats).toBe(0);
    expect(acc.charges.at(-1)?.outcome).toBe("succeeded");
  });

  it("a declined batch charge blocks every further add", () => {
    const acc = newAccount(NOW);
    for (let i = 0; i < 10; i++) recordSeat(acc, NOW, true);
    acc.chargeFailsNext = true;
    expect(settleBeforeAdd(acc, NOW)).toBe(false);
    expect(acc.chargeFailed).toBe(true);
    expect(settleBeforeAdd(acc, NOW + HOUR)).toBe(false);
    expect(settlementView(acc, NOW).chargeFailedAt).toBe(new Date(NOW).toISOString());
  });

  it("trial seats are not charged and the view is consistent with the roster", () => {
    const acc = newAccount(NOW, "trialing");
    recordSeat(acc, NOW, true);
    expect(acc.unbilledSeats).toBe(0);
    const view = billingView(acc, NOW, 7, { billable: 3, inThisOrganization: 2, organizationIds: [7, 8] });
    // the trial's 100 count every workspace (billable), not only this organization
    expect(view.trial).toMatchObject({ onFreeTrial: true, seatLimit: 100, seatsLeft: 97 });
    expect(view.estimate).toMatchObject({ grossUsd: 15, netUsd: 15, interval: "month" });
    expect(view.apiSeatAllowance).toMatchObject({ perDay: 200, usedLast24h: 1, left: 199 });
  });
});

describe("emulator billing: retryable decline (spec 3.4)", () => {
  it("a single retryable decline does not block; the next add charges the batch", () => {
    const acc = newAccount(NOW);
    for (let i = 0; i < 10; i++) recordSeat(acc, NOW, true);
    acc.chargeRetryableNext = true;
    expect(settleBeforeAdd(acc, NOW)).toBe(true);
    expect(acc.chargeFailed).toBe(false);
    expect(acc.unbilledSeats).toBe(10);
    expect(settleBeforeAdd(acc, NOW)).toBe(true);
    expect(acc.charges.map((c) => c.outcome)).toEqual(["retryable_decline", "succeeded"]);
    expect(acc.unbilledSeats).toBe(0);
  });
});
