import type { CreatedWebhookEndpoint, WebhookEndpoint } from "../api/schemas.js";

/**
 * What `webhooks` prints about endpoint records. The spec does not show the record's field names
 * (2.12), so every field may be missing: a missing one is shown as unknown, never guessed.
 */

/** Lowest risk score each sensitivity level delivers (spec 6.2); departures come at every level. */
const LEVEL_FROM: Readonly<Record<number, string>> = { 1: "0.90", 2: "0.75", 3: "0.50", 4: "0.35", 5: "0.20" };

/** Where the signing secret goes, named in the register output and the docs. */
export const SECRET_ENV = "RETENTION_WEBHOOK_SECRETS";
export const SECRET_CONFIG_KEY = "alerts.webhook.secrets";

/** Disabled with failed deliveries on the counter: the service turned it off, or someone did while it failed. */
export function disabledByFailures(endpoint: WebhookEndpoint): boolean {
  return endpoint.enabled === false && (endpoint.health?.consecutiveFailures ?? 0) > 0;
}

function stateText(endpoint: WebhookEndpoint): string {
  if (endpoint.enabled === undefined) return "state unknown";
  if (!endpoint.enabled) return disabledByFailures(endpoint) ? "DISABLED after failed deliveries" : "disabled";
  return "enabled";
}

function lensText(name: string, on: boolean | undefined, level: number | undefined): string {
  if (on === false) return `${name} off`;
  const from = level === undefined ? "" : ` (sensitivity ${level}: risk ${LEVEL_FROM[level] ?? "?"} and up)`;
  return `${name} ${on === undefined ? "?" : "on"}${from}`;
}

/** The two lenses an endpoint takes and from which score. */
export function lensesText(endpoint: WebhookEndpoint): string {
  return [
    lensText("employee warnings", endpoint.employeeWarnings, endpoint.employeeWarningSensitivity),
    lensText("poaching opportunities", endpoint.poachingOpportunities, endpoint.poachingOpportunitySensitivity),
  ].join(", ");
}

/** Delivery health as far as the record carries it. */
export function healthText(endpoint: WebhookEndpoint): string {
  const health = endpoint.health;
  if (!health) return "delivery health not reported";
  const parts: string[] = [];
  if (health.consecutiveFailures !== undefined) parts.push(`${health.consecutiveFailures} failed in a row`);
  if (health.failingSince) parts.push(`failing since ${health.failingSince}`);
  if (health.lastDeliveryAt === null) parts.push("no delivery yet");
  else if (health.lastDeliveryAt !== undefined) {
    const status = health.lastStatus === undefined || health.lastStatus === null ? "" : `: ${health.lastStatus}`;
    parts.push(`last delivery ${health.lastDeliveryAt}${status}`);
  }
  if (health.disabledReason) parts.push(health.disabledReason);
  return parts.length > 0 ? parts.join("; ") : "delivery health not reported";
}

/** One endpoint: a head line with id, state and URL, then its details. */
export function endpointLines(endpoint: WebhookEndpoint): string[] {
  return [
    `${endpoint.id}  ${stateText(endpoint)}  ${endpoint.url ?? "(url not reported)"}`,
    ...(endpoint.description ? [`    description: ${endpoint.description}`] : []),
    `    ${lensesText(endpoint)}`,
    `    deliveries: ${healthText(endpoint)}`,
  ];
}

export function listText(endpoints: readonly WebhookEndpoint[]): string {
  if (endpoints.length === 0) {
    return "No webhook endpoint is registered. Register the receiver: retention-sync webhooks register --url https://...\n";
  }
  const lines = endpoints.flatMap((e) => [...endpointLines(e), ""]);
  return `${lines.join("\n")}`;
}

/** The record without the secret: what the JSON output and every other line may show. */
export function withoutSecret(created: CreatedWebhookEndpoint): WebhookEndpoint {
  const { secret: _secret, ...endpoint } = created;
  return endpoint;
}

/**
 * The register output: the record, the secret once on a line of its own, and where it goes.
 * `notes` are the checks against the receiver's config (off, another path).
 */
export function registeredText(created: CreatedWebhookEndpoint, notes: readonly string[]): string {
  const lines = [`Registered webhook endpoint:`, "", ...endpointLines(withoutSecret(created)), ""];
  if (created.secret === undefined) {
    lines.push(
      "The service returned no signing secret. An admin can copy it from the service's dashboard; " +
        `give it to the receiver in ${SECRET_ENV}.`,
    );
  } else {
    lines.push(
      "Signing secret. It is shown only this once; the service never returns it again:",
      "",
      `    ${created.secret}`,
      "",
      `Give it to the daemon's webhook receiver, then restart the daemon: set ${SECRET_ENV} to it`,
      `(comma-separated when several: during a rotation keep the old secret next to the new one),`,
      `or put it in ${SECRET_CONFIG_KEY} of the config file (the environment keeps it out of files).`,
      "Lost it? An admin can copy it from the service's dashboard, or delete this endpoint and register again.",
    );
  }
  for (const note of notes) lines.push("", `Note: ${note}`);
  return `${lines.join("\n")}\n`;
}
