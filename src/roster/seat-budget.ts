import type { Billing } from "../api/schemas.js";

/** Why a seat-taking change waits for a later run. */
export type DeferReason =
  | "subscription-inactive"
  | "charge-failed"
  | "trial-seat-limit"
  | "api-seat-allowance"
  | "max-seats"
  | "max-monthly-usd"
  | "seat-quota-exceeded"
  | "row-quota-exceeded"
  | "payment-required"
  | "interrupted";

export type BillingState = "paying" | "trial" | "inactive" | "charge-failed";

/** The seat room of one run, from GET /billing and the user's own caps. */
export interface SeatBudget {
  readonly state: BillingState;
  readonly planStatus: string | undefined;
  /** False: no adds, revives or tracking at all this run. */
  readonly addsAllowed: boolean;
  readonly blockReason?: DeferReason;
  /** Caps on new tracked seats; the plan takes the smallest after counting seats it releases. */
  readonly caps: ReadonlyArray<{
    readonly reason: DeferReason;
    readonly left: number;
    readonly absoluteSeats?: boolean;
  }>;
  readonly perSeatUsd: number;
}

/** The spec's list price (part 8: 5 USD per seat per month), for when /billing does not say. */
export const DEFAULT_SEAT_USD = 5;
const LIVE_PLAN = new Set(["active", "trialing", "past_due"]);

/** The price of a seat: what /billing says (`plan.perSeatUsd`), else the list price (no answer, or no price in it). */
export function seatPrice(billing: Billing | undefined): number {
  return billing?.plan.perSeatUsd ?? DEFAULT_SEAT_USD;
}

/** Reads billing and the user's caps into a budget. Pure: `now` decides whether a trial has ended. */
export function seatBudget(input: {
  readonly billing: Billing;
  readonly maxSeats?: number | undefined;
  readonly maxMonthlyUsd?: number | undefined;
  readonly now: Date;
}): SeatBudget {
  const { billing, now } = input;
  const perSeatUsd = seatPrice(billing);
  const planStatus = billing.plan.status;
  const trialEnds = billing.trial.endsAt ? Date.parse(billing.trial.endsAt) : Number.NaN;
  const onTrial = billing.trial.onFreeTrial === true && !(trialEnds <= now.getTime());
  const userCaps: Array<{ reason: DeferReason; left: number; absoluteSeats: boolean }> = [];
  if (input.maxSeats !== undefined) userCaps.push({ reason: "max-seats", left: input.maxSeats, absoluteSeats: true });
  if (input.maxMonthlyUsd !== undefined && perSeatUsd > 0) {
    userCaps.push({
      reason: "max-monthly-usd",
      left: Math.floor(input.maxMonthlyUsd / perSeatUsd + 1e-9),
      absoluteSeats: true,
    });
  }
  const base = { planStatus, perSeatUsd };
  if (!onTrial && !LIVE_PLAN.has(planStatus ?? "")) {
    return { ...base, state: "inactive", addsAllowed: false, blockReason: "subscription-inactive", caps: userCaps };
  }
  if (billing.seatSettlement.chargeFailed === true) {
    return { ...base, state: "charge-failed", addsAllowed: false, blockReason: "charge-failed", caps: userCaps };
  }
  const caps = [...userCaps];
  if (onTrial) {
    const left = billing.trial.seatsLeft ?? Math.max(0, billing.trial.seatLimit ?? 100);
    caps.push({ reason: "trial-seat-limit", left: Math.max(0, left), absoluteSeats: false });
  } else if (billing.apiSeatAllowance?.left !== undefined) {
    caps.push({ reason: "api-seat-allowance", left: Math.max(0, billing.apiSeatAllowance.left), absoluteSeats: false });
  }
  return { ...base, state: onTrial ? "trial" : "paying", addsAllowed: true, caps };
}

/**
 * The budget of a run the service refused to be read at all (a 402 on the read calls: spec 5.8,
 * no subscription or trial): nothing may be added, and with no /billing answer the price is the
 * list price. A code other than SUBSCRIPTION_INACTIVE is reported as a failed charge.
 */
export function refusedBudget(code: string | undefined): SeatBudget {
  const inactive = code === "SUBSCRIPTION_INACTIVE";
  return {
    state: inactive ? "inactive" : "charge-failed",
    planStatus: undefined,
    addsAllowed: false,
    blockReason: inactive ? "subscription-inactive" : "charge-failed",
    caps: [],
    perSeatUsd: seatPrice(undefined),
  };
}

/** How many new tracked seats the run may take, and which cap binds. `trackedAfter` counts releases. */
export function seatRoom(budget: SeatBudget, trackedAfter: number): { left: number; reason: DeferReason | undefined } {
  let left = Number.POSITIVE_INFINITY;
  let reason: DeferReason | undefined;
  for (const cap of budget.caps) {
    const room = Math.max(0, cap.absoluteSeats ? cap.left - trackedAfter : cap.left);
    if (room < left) {
      left = room;
      reason = cap.reason;
    }
  }
  return { left, reason };
}
