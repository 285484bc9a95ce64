import type { RetentionClient } from "../api/client.js";
import type { WebhookEndpoint } from "../api/schemas.js";
import type { Config } from "../config/schema.js";
import { PermissionError, RetentionSyncError } from "../errors.js";
import type { CheckReport } from "./check-report.js";
import { isReceiverEndpoint, receiverOn } from "./receiver-endpoints.js";
import { disabledByFailures, healthText, lensesText } from "./webhook-text.js";

/**
 * `check`: the endpoints registered with the service against the receiver's config. Either side
 * alone is a silent failure: a receiver with no endpoint never gets an event (only the backstop
 * poll brings changes), and an endpoint with no receiver fails every delivery until the service
 * disables it. Which endpoints are the receiver's: receiver-endpoints.ts.
 */
export async function checkWebhookEndpoints(config: Config, client: RetentionClient, report: CheckReport) {
  let endpoints: WebhookEndpoint[];
  try {
    endpoints = await client.listWebhooks();
  } catch (error) {
    if (error instanceof PermissionError) {
      report.note(
        "webhook endpoints not compared with the receiver: the API key may not read GET /webhooks (403); " +
          "`retention-sync webhooks list` with a key that can shows them",
      );
      return;
    }
    if (!(error instanceof RetentionSyncError)) throw error;
    report.fail("runtime", `Could not list the webhook endpoints (GET /webhooks): ${error.message}`);
    return;
  }
  const ours = endpoints.filter((e) => isReceiverEndpoint(e, config));
  const others = endpoints.filter((e) => !ours.includes(e));
  if (receiverOn(config)) receiverOnChecks(config, ours, others, report);
  else receiverOffChecks(config, ours, report);
}

const idsOf = (endpoints: readonly WebhookEndpoint[]) => endpoints.map((e) => e.id).join(", ");

/** The endpoints the receiver should be getting events through. */
function receiverOnChecks(
  config: Config,
  ours: readonly WebhookEndpoint[],
  others: readonly WebhookEndpoint[],
  report: CheckReport,
): void {
  const { publicUrl, path } = config.alerts.webhook;
  for (const endpoint of ours.filter(disabledByFailures)) {
    report.fail(
      "runtime",
      `Webhook endpoint ${endpoint.id} (${endpoint.url}) is disabled after failed deliveries: ` +
        "fix what keeps the service from reaching the receiver (docs/webhooks.md), then " +
        `"retention-sync webhooks enable ${endpoint.id}"`,
      [`deliveries: ${healthText(endpoint)}`],
    );
  }
  const enabled = ours.filter((e) => e.enabled !== false);
  if (enabled.length > 0) {
    report.pass(
      `Webhook endpoint${enabled.length === 1 ? "" : "s"} registered and enabled for the receiver: ${idsOf(enabled)}`,
      enabled.flatMap((e) => [`${e.id} ${e.url}: ${lensesText(e)}`, `  deliveries: ${healthText(e)}`]),
    );
    return;
  }
  const where = publicUrl ?? `https://<public host>${path}`;
  const disabled = ours.filter((e) => !disabledByFailures(e));
  const enableHint = disabled.length > 0 ? `, or enable ${idsOf(disabled)} ("retention-sync webhooks enable ID")` : "";
  const pathHint =
    publicUrl === undefined && others.length > 0
      ? [
          `registered at other paths, so not taken as this receiver's (${path}): ` +
            others.map((e) => `${e.id} ${e.url ?? "?"}`).join(", "),
          "if your proxy forwards one of them to the receiver, set alerts.webhook.publicUrl to its URL",
        ]
      : [];
  report.fail(
    "config",
    `The webhook receiver is on but no enabled endpoint is registered ${publicUrl ? `at alerts.webhook.publicUrl ${publicUrl}` : "for it"}: ` +
      "no event will ever arrive, only the backstop poll brings changes (alerts.backstopPollInterval). " +
      `Register it: "retention-sync webhooks register --url ${where}"${enableHint}`,
    pathHint,
  );
}

/** Endpoints the service delivers to while nothing here answers them. */
function receiverOffChecks(config: Config, ours: readonly WebhookEndpoint[], report: CheckReport): void {
  const why = config.alerts.enabled ? "alerts.webhook.enabled: false" : "alerts.enabled: false";
  const enabled = ours.filter((e) => e.enabled !== false);
  if (enabled.length === 0) {
    report.note(`webhook receiver off (${why}) and no endpoint registered for it: polling only`);
    return;
  }
  report.fail(
    "config",
    `Webhook endpoint${enabled.length === 1 ? "" : "s"} ${idsOf(enabled)} registered and enabled, but the receiver is off ` +
      `(${why}): every delivery fails, and after many the service disables the endpoint. ` +
      `Turn the receiver on (docs/webhooks.md), or stop the deliveries: "retention-sync webhooks disable ${enabled[0]?.id}"`,
    enabled.map((e) => `${e.id} ${e.url}`),
  );
}
