import type { DeliveryService } from "../delivery/delivery-service.js";
import type { Logger } from "../logger.js";
import { postedPlanRecord } from "../slack/plan-buttons.js";
import type { ReconcileReport } from "./report.js";
import { renderReportSlack } from "./report-slack.js";

/**
 * Posts the report to the ops channel through the shared delivery service, so it is paced with
 * the alerts, kept in the outbox through a Slack outage or a crash, and its errors classified. A
 * Slack failure is logged, never fails the reconcile. A `quiet` report (a repeat of the last one
 * posted: same export, nothing done, nothing new) is not posted.
 */
export async function postReconcileReport(
  delivery: Pick<DeliveryService, "send">,
  channel: string,
  report: ReconcileReport,
  logger: Logger,
): Promise<void> {
  if (report.quiet === true) {
    logger.info({ component: "reconcile", channel }, "reconcile report not posted: nothing new since the last one");
    return;
  }
  try {
    await delivery.send(
      {
        id: `r|${report.startedAt}|${report.dryRun ? "dry" : "run"}`,
        channel,
        kind: "report",
        message: renderReportSlack(report),
        alertKeys: [],
        // Review and Approve act only on the plan recorded for the message, whatever a press says.
        ...(report.heldPlan ? { postedRecord: postedPlanRecord(report.heldPlan.id) } : {}),
      },
      Date.now(),
    );
  } catch (error) {
    logger.warn({ component: "reconcile", err: error, channel }, "could not hand the reconcile report to Slack");
  }
}
