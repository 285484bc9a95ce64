import {
  msUntilSlots,
  onTrial,
  recordSeat,
  settleBeforeAdd,
  TRIAL_SEAT_LIMIT,
  WORKSPACE_TRIAL_ALLOWANCE,
} from "./billing.js";
import type { EmulatorWorld } from "./emulator-world.js";
import { HttpError, invalid, retryAfterSeconds } from "./http-error.js";
import type { OrganizationRecord } from "./model.js";

export type SkipReason = "invalid_url" | "duplicate" | "seat_limit" | "trial_limit" | "row_quota" | "charge_failed";

export interface Refusal {
  reason: SkipReason;
  error: HttpError;
}

/**
 * The ceilings an add must pass (spec 3.4, 7, 8), in order: a blocked or failing settlement
 * charge, the daily row allowance (new rows), the trial seat cap and the daily API seat
 * allowance (tracked). Returns the refusal, or null when the add may proceed.
 */
export function checkAdd(
  em: EmulatorWorld,
  org: OrganizationRecord,
  now: number,
  opts: { tracked: boolean; newRow: boolean },
): Refusal | null {
  const acc = em.account(org.companyId);
  const blocked = chargeBlock(em, org.companyId, now);
  if (blocked) return { reason: "charge_failed", error: blocked };
  if (opts.newRow) {
    const wait = msUntilSlots(acc.rowAdds, now, acc.rowsPerDay);
    if (wait > 0) {
      const s = retryAfterSeconds(wait);
      return {
        reason: "row_quota",
        error: new HttpError(
          429,
          `The daily allowance of ${acc.rowsPerDay} people added is spent; retry in ${s} seconds.`,
          "ROW_QUOTA_EXCEEDED",
          { "Retry-After": String(s) },
        ),
      };
    }
  }
  if (!opts.tracked) return null;
  if (trialRoom(em, org, now) <= 0) {
    const total = em.state.companyTracked(org.companyId) >= TRIAL_SEAT_LIMIT;
    return {
      reason: "trial_limit",
      error: new HttpError(
        402,
        total
          ? `The free trial allows at most ${TRIAL_SEAT_LIMIT} tracked people across the company and its competitor workspaces.`
          : `The free trial allows at most ${WORKSPACE_TRIAL_ALLOWANCE} tracked people in each competitor workspace.`,
        "TRIAL_LIMIT_REACHED",
      ),
    };
  }
  const wait = msUntilSlots(acc.apiSeatAdds, now, acc.apiSeatsPerDay);
  if (wait > 0) {
    const s = retryAfterSeconds(wait);
    return {
      reason: "seat_limit",
      error: new HttpError(
        429,
        `The daily allowance of ${acc.apiSeatsPerDay} tracked people added through the API is spent; retry in ${s} seconds.`,
        "SEAT_QUOTA_EXCEEDED",
        { "Retry-After": String(s) },
      ),
    };
  }
  return null;
}

/**
 * Tracked seats a free trial still allows in `org` (spec 8): at most 100 across the company and
 * its competitor workspaces, "through any door", and in a workspace also its own allowance
 * (emulator value: 25). Infinity when the company is not on a trial.
 */
export function trialRoom(em: EmulatorWorld, org: OrganizationRecord, now: number): number {
  if (!onTrial(em.account(org.companyId), now)) return Number.POSITIVE_INFINITY;
  const total = TRIAL_SEAT_LIMIT - em.state.companyTracked(org.companyId);
  const own = org.kind === "competitor" ? WORKSPACE_TRIAL_ALLOWANCE - em.state.trackedIn(org.id) : total;
  return Math.max(0, Math.min(total, own));
}

/**
 * Spec 3.4: a due settlement batch is charged before anything that adds people or seats; a final
 * decline (now or earlier) blocks every such add until a payment clears. Besides person adds this
 * covers competitor creation, resuming a workspace and a role-filter change (they import or
 * re-track people). Returns the 402 to answer, or null.
 */
export function chargeBlock(em: EmulatorWorld, companyId: number, now: number): HttpError | null {
  if (settleBeforeAdd(em.account(companyId), now)) return null;
  return new HttpError(
    402,
    "A seat charge was declined; no new people can be added until a payment clears.",
    "SEAT_CHARGE_FAILED",
  );
}

/**
 * Spec 3.2: in a paused workspace everyone is untracked and the scan stops, so nobody can be
 * tracked there until it is resumed: a 400 naming `tracked` (untracked adds are fine).
 */
export function pausedRefusal(org: OrganizationRecord): HttpError | null {
  if (!org.paused) return null;
  return invalid(
    `Invalid parameter "tracked": competitor workspace ${org.id} is paused and tracks nobody; send tracked:false, or resume it first (PATCH /competitors/${org.id} with paused:false).`,
  );
}

/** Books an admitted add against the allowances and the settlement batch. */
export function commitAdd(
  em: EmulatorWorld,
  org: OrganizationRecord,
  now: number,
  opts: { tracked: boolean; newRow: boolean },
): void {
  const acc = em.account(org.companyId);
  if (opts.newRow) acc.rowAdds.push(now);
  if (opts.tracked) recordSeat(acc, now, true);
}
