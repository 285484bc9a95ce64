import type { Config } from "../config/schema.js";

/**
 * The webhook receiver is on but has no signing secret: it cannot verify any delivery, so it
 * answers every one 401 and the service's events only arrive by the backstop poll. Said by
 * `check` (a failed check) and by the daemon (a needs-operator note on /readyz and the metric).
 * Undefined when the receiver is off or has a secret.
 */
export function webhookSecretProblem(config: Config): string | undefined {
  const { enabled, webhook } = config.alerts;
  if (!enabled || !webhook.enabled || webhook.secrets.length > 0) return undefined;
  return (
    "the webhook receiver is on (alerts.webhook.enabled) but has no signing secret, so every delivery is refused (401): " +
    "set RETENTION_WEBHOOK_SECRETS (alerts.webhook.secrets) to the endpoint's signing secret, which POST /webhooks " +
    "returns once when the endpoint is created (an admin can also copy it from the dashboard), " +
    "or turn the receiver off (alerts.webhook.enabled: false)"
  );
}
