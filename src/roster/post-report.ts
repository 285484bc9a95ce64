import type { DeliveryService } from "../delivery/delivery-service.js";
import type { Logger } from "../logger.js";
import { type ReconcileReport, renderReportSlack } from "./report.js";

/**
 * Posts the report to the ops channel through the shared delivery service, so it is paced with
 * the alerts, kept in the outbox through a Slack outage or a crash, and its errors classified. A
 * Slack failure is logged, never fails the reconcile.
 */
export async function postReconcileReport(
  delivery: Pick<DeliveryService, "send">,
  channel: string,
  report: ReconcileReport,
  logger: Logger,
): Promise<void> {
  try {
    await delivery.send(
      {
        id: `r|${report.startedAt}|${report.dryRun ? "dry" : "run"}`,
        channel,
        kind: "report",
        message: renderReportSlack(report),
        alertKeys: [],
      },
      Date.now(),
    );
  } catch (error) {
    logger.warn({ component: "reconcile", err: error, channel }, "could not hand the reconcile report to Slack");
  }
}
