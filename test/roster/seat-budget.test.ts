import { describe, expect, it } from "vitest";
import type { Billing } from "../../src/api/schemas.js";
import { seatBudget, seatRoom } from "../../src/roster/seat-budget.js";

const now = new Date("2026-11-23T10:00:00Z");
function billing(plan: Billing["plan"], trial: Billing["trial"] = {}, extra: Partial<Billing> = {}): Billing {
  return { organizationId: 1, seats: {}, plan, estimate: {}, trial, seatSettlement: {}, ...extra } as Billing;
}

describe("seatBudget", () => {
  it("uses the API allowance on a paying plan, and the plan's seat price", () => {
    const b = seatBudget({
      billing: billing({ status: "active", perSeatUsd: 7 }, {}, { apiSeatAllowance: { left: 12 } }),
      now,
    });
    expect(b).toMatchObject({ state: "paying", addsAllowed: true, perSeatUsd: 7 });
    expect(seatRoom(b, 100)).toEqual({ left: 12, reason: "api-seat-allowance" });
  });

  it("uses the trial's seats left, and treats an ended trial as inactive", () => {
    const live = seatBudget({
      billing: billing({ status: "trialing" }, { onFreeTrial: true, seatsLeft: 4, endsAt: "2026-12-01T00:00:00Z" }),
      now,
    });
    expect(live.state).toBe("trial");
    expect(seatRoom(live, 96)).toEqual({ left: 4, reason: "trial-seat-limit" });
    const ended = seatBudget({
      billing: billing({ status: "incomplete" }, { onFreeTrial: true, seatsLeft: 4, endsAt: "2026-11-01T00:00:00Z" }),
      now,
    });
    expect(ended).toMatchObject({ state: "inactive", addsAllowed: false, blockReason: "subscription-inactive" });
  });

  it("blocks adds on a failed charge and on a canceled plan; defaults to 5 USD a seat", () => {
    const failed = seatBudget({
      billing: billing({ status: "active" }, {}, { seatSettlement: { chargeFailed: true } }),
      now,
    });
    expect(failed).toMatchObject({ state: "charge-failed", addsAllowed: false, perSeatUsd: 5 });
    expect(seatBudget({ billing: billing({ status: "canceled" }), now }).addsAllowed).toBe(false);
  });

  it("applies the user's seat and monthly caps to the seats after releases", () => {
    const b = seatBudget({
      billing: billing({ status: "active" }, {}, { apiSeatAllowance: { left: 200 } }),
      maxSeats: 50,
      maxMonthlyUsd: 230,
      now,
    });
    expect(seatRoom(b, 40)).toEqual({ left: 6, reason: "max-monthly-usd" });
    expect(seatRoom(b, 60)).toEqual({ left: 0, reason: "max-seats" });
  });
});
