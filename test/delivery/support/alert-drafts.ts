import { type AlertDraft, planDeliveries } from "../../../src/alerts/plan-deliveries.js";
import { buildAlert } from "../../alerts/support/build-alert.js";

/**
 * Single-alert drafts into `channel`, about people named `<channel>-<i>` (all one person when
 * `personId` is given, so that later ones thread under the first); the digest threshold is high
 * enough that the plan keeps every alert a message of its own.
 */
export function singleAlertDrafts(channel: string, count: number, personId?: number): AlertDraft[] {
  const alerts = Array.from({ length: count }, (_, i) =>
    buildAlert({ person: { name: `${channel}-${i}`, ...(personId !== undefined ? { employeeId: personId } : {}) } }),
  );
  return planDeliveries({
    alerts,
    routing: { routes: [{ lens: "both", minRiskScore: 0, channel }] },
    digestThreshold: 100,
    managerDm: false,
  }).drafts;
}
