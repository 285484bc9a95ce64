import type { RiskLevel } from "../api/spec-records.js";
import { threadKeyOf } from "../interactive/action-target.js";
import type { HrisDetails } from "./hris-details.js";
import type { Lens } from "./lens.js";

/** The person an alert is about, after enrichment (API employee record + HRIS row). */
export interface AlertPerson {
  readonly employeeId?: number | undefined;
  readonly name: string;
  readonly title?: string | undefined;
  readonly department?: string | undefined;
  readonly location?: string | undefined;
  /** Public profile URL on the professional network. */
  readonly profileUrl?: string | undefined;
  /** Dashboard page of the person. */
  readonly dashboardUrl?: string | undefined;
  /** From the HRIS roster, for the optional manager DM. */
  readonly managerEmail?: string | undefined;
  /** What the HRIS roster file says about the person, when they are in it (shown as HR data). */
  readonly hris?: HrisDetails | undefined;
}

/**
 * One detected change, enriched and ready to route. Built from a polled change item or from a
 * webhook event: both paths share `key` (`chg:<change id>`), so a change seen twice posts once.
 */
export interface Alert {
  readonly key: string;
  readonly lens: Lens;
  readonly changeType: string;
  readonly riskScore: number | null;
  readonly riskLevel: RiskLevel;
  readonly detectedAt?: string | undefined;
  readonly summary?: string | undefined;
  readonly factors?: readonly string[] | undefined;
  readonly changedFields?: string | undefined;
  readonly person: AlertPerson;
  /** Score of the person's previous delivered change in this lens (`alerts.scores`), for "0.52 → 0.81". */
  readonly previousScore?: number | undefined;
  /** Someone pressed Acknowledge on an earlier alert about this person (`interactive.acks`). */
  readonly acknowledged?: { readonly by: string; readonly at: string } | undefined;
}

export const DEPARTURE = "employee_departed";

/** Lower bound of each risk level (spec 2.4). */
export const RISK_LEVEL_FLOOR: Readonly<Record<RiskLevel, number>> = { high: 0.75, watch: 0.5, low: 0 };

/** The score an alert is compared with: its own, or its level's floor when the score is null (departures). */
export function effectiveScore(alert: Pick<Alert, "riskScore" | "riskLevel">): number {
  return alert.riskScore ?? RISK_LEVEL_FLOOR[alert.riskLevel];
}

/** Identity of the person inside one organization, for Slack threads. */
export function personKey(alert: Alert): string {
  return threadKeyOf(alert);
}
