import type { WebhookEndpoint } from "../api/schemas.js";
import type { Config } from "../config/schema.js";

/**
 * Which of the company's registered endpoints are this daemon's receiver. A company may register
 * endpoints for other systems too, so not every endpoint is ours: with `alerts.webhook.publicUrl`
 * set, ours is the one at exactly that URL; without it, those whose path is the receiver's path
 * (`alerts.webhook.path`), since the proxy in front forwards the path unchanged (docs/webhooks.md).
 */

/** Whether the daemon runs the receiver: it needs alerts on as well as the receiver itself. */
export function receiverOn(config: Config): boolean {
  return config.alerts.enabled && config.alerts.webhook.enabled;
}

/** The URL in one spelling (`HTTPS://Hooks.Example.com:443/x` is `https://hooks.example.com/x`). */
function normalUrl(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).href : undefined;
}

export function isReceiverEndpoint(endpoint: WebhookEndpoint, config: Config): boolean {
  if (endpoint.url === undefined) return false;
  const { publicUrl, path } = config.alerts.webhook;
  if (publicUrl !== undefined) return normalUrl(endpoint.url) === normalUrl(publicUrl);
  return URL.canParse(endpoint.url) && new URL(endpoint.url).pathname === path;
}

/** What `webhooks register` tells about the URL it registered, against the receiver's config. */
export function registeredNotes(config: Config, url: string): string[] {
  const notes: string[] = [];
  const { publicUrl, path } = config.alerts.webhook;
  if (!receiverOn(config)) {
    notes.push(
      "the webhook receiver is off in this configuration (alerts.webhook.enabled: false). Turn it on where the " +
        "daemon runs: until it answers, the service's deliveries fail, and after many failures it disables the endpoint.",
    );
  }
  if (publicUrl !== undefined && normalUrl(publicUrl) !== normalUrl(url)) {
    notes.push(
      `alerts.webhook.publicUrl is ${publicUrl}, not this URL: \`check\` looks for an endpoint at publicUrl. Set it to ${url}.`,
    );
  } else if (publicUrl === undefined && URL.canParse(url) && new URL(url).pathname !== path) {
    notes.push(
      `this URL's path is not the receiver's path ${path} (alerts.webhook.path): the proxy in front must forward it ` +
        `there, and \`check\` recognises the endpoint only with alerts.webhook.publicUrl set to ${url}.`,
    );
  }
  return notes;
}
