import type { Config } from "../config/schema.js";
import { interactivityMode } from "../interactive/interactive-settings.js";
import { tryOpenSocketConnection } from "../interactive/open-connection.js";
import type { CheckReport } from "./check-report.js";

function platformError(error: unknown): string | undefined {
  return (error as { data?: { error?: string } } | null)?.data?.error;
}

/** Bot scopes the buttons need besides posting: user groups are read only when access rules name some. */
export function neededScopes(config: Config): string[] {
  const { interactivity } = config.slack;
  const groups = [interactivity.stopTracking, interactivity.acknowledge, interactivity.snooze].some(
    (rule) => rule.allowedUsergroups.length > 0,
  );
  return ["chat:write", ...(groups ? ["usergroups:read"] : [])];
}

/**
 * The buttons: the app token opens a Socket Mode connection (apps.connections.open; the socket is
 * not kept), the bot token has the scopes (from auth.test's `x-oauth-scopes`), the HTTP mode has
 * its signing secret.
 */
export async function checkInteractivity(
  config: Config,
  botScopes: readonly string[] | undefined,
  report: CheckReport,
): Promise<void> {
  const mode = interactivityMode(config);
  if (mode === "off") {
    report.note("Slack buttons off: no SLACK_APP_TOKEN (slack.interactivity.mode off)");
    return;
  }
  if (mode === "socket") {
    const token = config.slack.appToken;
    if (!token) {
      report.fail("config", "Slack buttons in socket mode need SLACK_APP_TOKEN (an xapp- app-level token)");
    } else {
      try {
        await tryOpenSocketConnection(token, config.slack.apiUrl);
        report.pass("Slack app token works: apps.connections.open answered (Socket Mode)");
      } catch (error) {
        const code = platformError(error);
        if (code === "not_allowed_token_type") {
          report.fail(
            "config",
            "SLACK_APP_TOKEN is not an app-level token: create one (xapp-) with connections:write under Basic Information",
          );
        } else if (code === "invalid_auth" || code === "not_authed" || code === "token_revoked") {
          report.fail(
            "config",
            `SLACK_APP_TOKEN rejected (${code}): create a new app-level token with connections:write`,
          );
        } else if (code) {
          report.fail(
            "config",
            `apps.connections.open failed (${code}): turn on Socket Mode for the app (docs/slack.md)`,
          );
        } else {
          report.fail(
            "runtime",
            `apps.connections.open at ${config.slack.apiUrl} unreachable: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    }
  } else if (!config.slack.interactivity.signingSecret) {
    report.fail("config", "Slack buttons in http mode need SLACK_SIGNING_SECRET (slack.interactivity.signingSecret)");
  } else {
    report.pass(
      `Slack buttons over HTTP: Request URL path ${config.slack.interactivity.path} on the ops server, signing secret set`,
    );
  }
  if (botScopes === undefined) {
    report.note(
      `Slack did not report the bot's scopes (x-oauth-scopes): make sure it has ${neededScopes(config).join(", ")}`,
    );
    return;
  }
  const missing = neededScopes(config).filter((scope) => !botScopes.includes(scope));
  if (missing.length > 0) {
    report.fail(
      "config",
      `the Slack bot token lacks scope(s) the buttons need: ${missing.join(", ")} (add them in OAuth & Permissions, then reinstall the app)`,
    );
  } else {
    report.pass(`Slack bot scopes for the buttons: ${neededScopes(config).join(", ")}`);
  }
}
