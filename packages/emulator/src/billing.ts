import { DAY, iso } from "./clock.js";
import type { BillingAccount, PlanStatus } from "./model.js";

/** Billing rules of spec 2.10, 3.4 and 8, as functions of an account, the roster counts and `now`. */

export const PER_SEAT_USD_MONTH = 5;
export const TRIAL_DAYS = 30;
export const TRIAL_SEAT_LIMIT = 100;
/** Emulator choice: a competitor workspace's own trial allowance (spec 8: "value not shown"). */
export const WORKSPACE_TRIAL_ALLOWANCE = 25;
export const SETTLEMENT_SEATS = 10;
export const SETTLEMENT_USD = 50;
export const API_SEATS_PER_DAY = 200;
/** Emulator choice: rows added per rolling 24 h, tracked or not (spec 8: "value not shown"). */
export const ROWS_PER_DAY = 1000;

export function newAccount(now: number, status: PlanStatus = "active"): BillingAccount {
  return {
    status,
    interval: "month",
    trialEndsAt: status === "trialing" ? now + TRIAL_DAYS * DAY : null,
    periodStart: now - 10 * DAY,
    periodEnd: now + 20 * DAY,
    cancelAtPeriodEnd: false,
    unbilledSeats: 0,
    unbilledUsd: 0,
    chargeFailed: false,
    chargeFailedAt: null,
    chargeFailsNext: false,
    chargeRetryableNext: false,
    apiSeatAdds: [],
    rowAdds: [],
    apiSeatsPerDay: API_SEATS_PER_DAY,
    rowsPerDay: ROWS_PER_DAY,
    charges: [],
  };
}

/** Rolls the billing period forward on the virtual clock (a monthly subscription renews). */
export function rollPeriod(acc: BillingAccount, now: number): void {
  while (now >= acc.periodEnd) {
    const length = acc.periodEnd - acc.periodStart;
    acc.periodStart = acc.periodEnd;
    acc.periodEnd += length;
  }
}

export function onTrial(acc: BillingAccount, now: number): boolean {
  return acc.status === "trialing" && acc.trialEndsAt !== null && now < acc.trialEndsAt;
}

/** Spec 5.8: API access needs an active subscription or a running trial (past_due still has one). */
export function accessActive(acc: BillingAccount, now: number): boolean {
  if (acc.status === "active" || acc.status === "past_due") return true;
  return onTrial(acc, now);
}

/** The plan status shown: an expired trial with no subscription reads as canceled. */
export function shownStatus(acc: BillingAccount, now: number): string {
  if (acc.status === "trialing" && !onTrial(acc, now)) return "canceled";
  return acc.status === "none" ? "canceled" : acc.status;
}

/** Number of times within the rolling 24 h ending at `now` (times are ascending). */
export function countLast24h(times: number[], now: number): number {
  const from = now - DAY;
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] ?? 0) <= from) lo = mid + 1;
    else hi = mid;
  }
  return times.length - lo;
}

/** Drops times older than 24 h (keeps arrays small). */
export function prune(times: number[], now: number): void {
  const keep = countLast24h(times, now);
  if (keep < times.length) times.splice(0, times.length - keep);
}

/** Milliseconds until `needed` more slots free up in a rolling 24 h allowance of `perDay`. */
export function msUntilSlots(times: number[], now: number, perDay: number, needed = 1): number {
  prune(times, now);
  const over = times.length + needed - perDay;
  if (over <= 0) return 0;
  const freeing = times[over - 1];
  return freeing === undefined ? DAY : freeing + DAY - now;
}

export function seatAllowance(acc: BillingAccount, now: number): { perDay: number; usedLast24h: number; left: number } {
  const used = countLast24h(acc.apiSeatAdds, now);
  return { perDay: acc.apiSeatsPerDay, usedLast24h: used, left: Math.max(0, acc.apiSeatsPerDay - used) };
}

export function rowAllowance(acc: BillingAccount, now: number): { perDay: number; usedLast24h: number; left: number } {
  const used = countLast24h(acc.rowAdds, now);
  return { perDay: acc.rowsPerDay, usedLast24h: used, left: Math.max(0, acc.rowsPerDay - used) };
}

const cents = (usd: number): number => Math.round(usd * 100) / 100;

/** One seat's price for the rest of the current period (prorated), in USD. */
export function proratedSeatUsd(acc: BillingAccount, now: number): number {
  const length = acc.periodEnd - acc.periodStart;
  const left = Math.min(length, Math.max(0, acc.periodEnd - now));
  return cents((PER_SEAT_USD_MONTH * left) / length);
}

/** A settlement batch is due once 10 seats or 50 USD of additions are unbilled; the next add charges it. */
export function settlementDue(acc: BillingAccount): boolean {
  return acc.unbilledSeats >= SETTLEMENT_SEATS || acc.unbilledUsd >= SETTLEMENT_USD;
}

export function settlementView(acc: BillingAccount, now: number) {
  const perSeat = Math.max(0.01, proratedSeatUsd(acc, now));
  const bySeats = Math.max(0, SETTLEMENT_SEATS - acc.unbilledSeats);
  const byAmount = Math.max(0, Math.ceil(cents(SETTLEMENT_USD - acc.unbilledUsd) / perSeat));
  return {
    threshold: SETTLEMENT_SEATS,
    maxUnbilledUsd: SETTLEMENT_USD,
    unbilledSeats: acc.unbilledSeats,
    estimatedUnbilledUsd: cents(acc.unbilledUsd),
    seatsUntilNextCharge: Math.min(bySeats, byAmount),
    trigger: byAmount < bySeats ? "amount" : "seats",
    chargeFailed: acc.chargeFailed,
    chargeFailedAt: acc.chargeFailedAt === null ? null : iso(acc.chargeFailedAt),
  };
}

/** Records one seat added (on a paying plan only: trial seats are not charged). */
export function recordSeat(acc: BillingAccount, now: number, viaApi: boolean): void {
  if (viaApi) acc.apiSeatAdds.push(now);
  if (onTrial(acc, now)) return;
  acc.unbilledSeats += 1;
  acc.unbilledUsd = cents(acc.unbilledUsd + proratedSeatUsd(acc, now));
}

/**
 * Charges a due batch before an add. A decline armed through the control API is final: it sets
 * `chargeFailed` (spec 3.4) and the add is refused. Returns false when adds are blocked.
 */
export function settleBeforeAdd(acc: BillingAccount, now: number): boolean {
  if (acc.chargeFailed) return false;
  if (!settlementDue(acc)) return true;
  return chargeBatch(acc, now);
}

/** Charges the unbilled batch now; on decline marks the account blocked. */
export function chargeBatch(acc: BillingAccount, now: number): boolean {
  const seats = acc.unbilledSeats;
  const usd = cents(acc.unbilledUsd);
  if (acc.chargeRetryableNext) {
    // A single retryable decline does not count (spec 3.4): the batch stays unbilled, the next add retries it.
    acc.chargeRetryableNext = false;
    acc.charges.push({ at: now, seats, usd, outcome: "retryable_decline" });
    return true;
  }
  if (acc.chargeFailsNext) {
    acc.charges.push({ at: now, seats, usd, outcome: "declined" });
    acc.chargeFailed = true;
    acc.chargeFailedAt = now;
    return false;
  }
  acc.charges.push({ at: now, seats, usd, outcome: "succeeded" });
  acc.unbilledSeats = 0;
  acc.unbilledUsd = 0;
  acc.chargeFailed = false;
  acc.chargeFailedAt = null;
  return true;
}

export interface RosterCounts {
  billable: number;
  inThisOrganization: number;
  organizationIds: number[];
}

/** The Billing record of spec 2.10. */
export function billingView(acc: BillingAccount, now: number, organizationId: number, counts: RosterCounts) {
  const trial = onTrial(acc, now);
  const gross = cents(counts.billable * PER_SEAT_USD_MONTH);
  return {
    organizationId,
    billingOrganizationId: organizationId,
    seats: {
      billable: counts.billable,
      inThisOrganization: counts.inThisOrganization,
      organizationIds: counts.organizationIds,
    },
    plan: {
      status: shownStatus(acc, now),
      interval: acc.interval,
      perSeatUsd: PER_SEAT_USD_MONTH,
      quantity: counts.billable,
      currentPeriodEnd: iso(acc.periodEnd),
      cancelAtPeriodEnd: acc.cancelAtPeriodEnd,
    },
    estimate: { grossUsd: gross, discountUsd: 0, netUsd: gross, interval: acc.interval },
    trial: {
      onFreeTrial: trial,
      endsAt: acc.trialEndsAt === null ? null : iso(acc.trialEndsAt),
      seatLimit: TRIAL_SEAT_LIMIT,
      // The trial's 100 count across the company and its competitor workspaces (spec 8 "through any door").
      seatsLeft: trial ? Math.max(0, TRIAL_SEAT_LIMIT - counts.billable) : null,
    },
    seatSettlement: settlementView(acc, now),
    apiSeatAllowance: seatAllowance(acc, now),
  };
}
