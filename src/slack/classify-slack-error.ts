import { ErrorCode } from "@slack/web-api";

/** What to do about a failed Slack call. */
export type SlackFailure =
  | { readonly kind: "rate-limited"; readonly code: string; readonly retryAfterMs: number }
  | { readonly kind: "retryable"; readonly code: string; readonly detail: string }
  | { readonly kind: "permanent"; readonly code: string; readonly fix: string };

const RETRYABLE_PLATFORM = new Set([
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
  "team_added_to_org",
]);

const AUTH_FIX =
  "Check SLACK_BOT_TOKEN (slack.token): it must be the bot token (xoxb-...) of an app installed in the workspace.";

/** The operator's fix for each permanent Slack error, keyed by Slack's `error` string. */
const FIXES: Readonly<Record<string, string>> = {
  channel_not_found:
    "Check the channel in alerts.routes[].channel or SLACK_CHANNEL (use the channel id for private channels) and invite the bot to it.",
  not_in_channel: "Invite the bot to the channel (/invite @<your bot>) or give the app the chat:write.public scope.",
  is_archived: "The channel is archived: unarchive it or route the alerts to another channel.",
  channel_is_archived: "The channel is archived: unarchive it or route the alerts to another channel.",
  invalid_auth: AUTH_FIX,
  not_authed: AUTH_FIX,
  token_revoked: AUTH_FIX,
  token_expired: AUTH_FIX,
  account_inactive: AUTH_FIX,
  missing_scope:
    "Add the chat:write scope (and users:read.email, im:write for manager DMs) to the Slack app and reinstall it.",
  restricted_action: "A workspace admin restricts posting in this channel: allow the app or pick another channel.",
  msg_too_long: "The message exceeds Slack's limits: this is a bug in retention-sync, please report it.",
  invalid_blocks: "Slack refused the message layout: this is a bug in retention-sync, please report it.",
  no_text: "The message was empty: this is a bug in retention-sync, please report it.",
  users_not_found:
    "The manager's HRIS email has no Slack account: fix the email in the roster or turn off alerts.managerDm.",
  user_not_found:
    "The manager's HRIS email has no Slack account: fix the email in the roster or turn off alerts.managerDm.",
};

/** Slack's answers that mean this bot cannot post to this channel until someone invites it. */
export const CHANNEL_ACCESS_ERRORS: ReadonlySet<string> = new Set(["not_in_channel", "channel_not_found"]);

/**
 * The fix for a channel the bot cannot post to, naming the channel: what the log, the daemon's
 * needs-operator note and `status` say. Undefined for any other error.
 */
export function channelAccessFix(code: string, channel: string): string | undefined {
  if (code === "not_in_channel") {
    return `run /invite @<your bot> in ${channel}, or give the app the chat:write.public scope (public channels only) and reinstall it`;
  }
  if (code === "channel_not_found") {
    return `check that ${channel} exists (alerts.routes[].channel, SLACK_CHANNEL, SLACK_POACHING_CHANNEL; a private channel is invisible to the bot: use its id) and run /invite @<your bot> in it`;
  }
  return undefined;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

/**
 * Sorts a @slack/web-api error (the client runs with retries off and `rejectRateLimitedCalls`):
 * a 429 (`RateLimitedError`, with `retryAfter` seconds) or a `ratelimited` platform answer pauses
 * the channel; network errors, HTTP 5xx and Slack's internal errors are retried with backoff;
 * every other platform error needs the operator and is permanent until the config is fixed.
 */
export function classifySlackError(error: unknown): SlackFailure {
  const e = record(error);
  const code = typeof e.code === "string" ? e.code : "";
  if (code === ErrorCode.RateLimitedError) {
    const seconds = typeof e.retryAfter === "number" && e.retryAfter > 0 ? e.retryAfter : 1;
    return { kind: "rate-limited", code: "ratelimited", retryAfterMs: seconds * 1000 };
  }
  if (code === ErrorCode.PlatformError) {
    const slackError = String(record(e.data).error ?? "unknown_error");
    if (slackError === "ratelimited" || slackError === "rate_limited") {
      return { kind: "rate-limited", code: slackError, retryAfterMs: 1000 };
    }
    if (RETRYABLE_PLATFORM.has(slackError)) return { kind: "retryable", code: slackError, detail: slackError };
    return {
      kind: "permanent",
      code: slackError,
      fix:
        FIXES[slackError] ??
        `Slack refused the call with "${slackError}"; see https://api.slack.com/methods/chat.postMessage.`,
    };
  }
  if (code === ErrorCode.HTTPError) {
    const status = typeof e.statusCode === "number" ? e.statusCode : 0;
    if (status === 401 || status === 403) return { kind: "permanent", code: `http_${status}`, fix: AUTH_FIX };
    if (status === 404) {
      return {
        kind: "permanent",
        code: "http_404",
        fix: "Check SLACK_API_URL (slack.apiUrl): it must end with /api/.",
      };
    }
    return { kind: "retryable", code: `http_${status}`, detail: `HTTP ${status}` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: "retryable", code: code === ErrorCode.RequestError ? "request_error" : "unknown", detail: message };
}
