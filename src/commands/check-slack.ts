import type { WebClient } from "@slack/web-api";
import type { Config } from "../config/schema.js";
import type { CheckReport } from "./check-report.js";

/** Slack's answers that mean the token itself is wrong (a setting), not that Slack is down. */
const TOKEN_ERRORS = new Set(["invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"]);

interface SlackFailure {
  readonly code?: string;
  readonly data?: { error?: string };
  readonly statusCode?: number;
  readonly message?: string;
}

function slackError(error: unknown): { platform?: string; text: string } {
  const e = (typeof error === "object" && error !== null ? error : {}) as SlackFailure;
  const platform = e.data?.error;
  if (platform) return { platform, text: platform };
  if (e.statusCode) return { text: `HTTP ${e.statusCode} from Slack` };
  return { text: e.message ?? String(error) };
}

/** Every channel the config posts to, with the option that names it. */
export function configuredChannels(config: Config): Array<{ channel: string; option: string }> {
  const out: Array<{ channel: string; option: string }> = [];
  if (config.slack.channel) out.push({ channel: config.slack.channel, option: "slack.channel (SLACK_CHANNEL)" });
  if (config.slack.poachingChannel) {
    out.push({ channel: config.slack.poachingChannel, option: "slack.poachingChannel (SLACK_POACHING_CHANNEL)" });
  }
  if (config.slack.opsChannel) {
    out.push({ channel: config.slack.opsChannel, option: "slack.opsChannel (SLACK_OPS_CHANNEL)" });
  }
  config.alerts.routes.forEach((route, i) => {
    out.push({ channel: route.channel, option: `alerts.routes[${i}].channel` });
  });
  return out;
}

const looksLikeId = (channel: string) => /^[CGD][A-Z0-9]{6,}$/.test(channel);

interface ChannelInfo {
  readonly id?: string;
  readonly name?: string;
  readonly is_member?: boolean;
  readonly is_archived?: boolean;
}

async function listChannelsByName(slack: WebClient): Promise<Map<string, ChannelInfo>> {
  const byName = new Map<string, ChannelInfo>();
  const pages = slack.paginate("conversations.list", {
    types: "public_channel,private_channel",
    exclude_archived: true,
    limit: 200,
  });
  for await (const page of pages) {
    for (const channel of (page as { channels?: ChannelInfo[] }).channels ?? []) {
      if (channel.name) byName.set(channel.name, channel);
    }
  }
  return byName;
}

/**
 * Checks the token with auth.test, then that every configured channel exists and the bot is in it.
 * Returns the bot's scopes (auth.test's `x-oauth-scopes` header), undefined when unknown.
 */
export async function checkSlack(config: Config, slack: WebClient, report: CheckReport): Promise<string[] | undefined> {
  let botName = "the bot";
  let scopes: string[] | undefined;
  try {
    const auth = await slack.auth.test();
    scopes = auth.response_metadata?.scopes;
    botName = auth.user ? `@${auth.user}` : botName;
    report.pass(`Slack token works: workspace ${auth.team ?? "?"}, bot ${botName}`);
  } catch (error) {
    const { platform, text } = slackError(error);
    if (platform && TOKEN_ERRORS.has(platform)) {
      report.fail("config", `Slack token rejected (${text}): set SLACK_BOT_TOKEN to a valid bot token (xoxb-...)`);
    } else {
      report.fail("runtime", `Slack Web API at ${config.slack.apiUrl} unreachable: ${text}`);
    }
    return undefined; // channel checks need a working token
  }

  const channels = configuredChannels(config);
  if (
    config.alerts.enabled &&
    !config.slack.channel &&
    !config.slack.poachingChannel &&
    config.alerts.routes.length === 0
  ) {
    report.fail("config", "no alert destination: set SLACK_CHANNEL (slack.channel) or configure alerts.routes");
  }
  let byName: Map<string, ChannelInfo> | undefined;
  for (const { channel, option } of channels) {
    let info: ChannelInfo | undefined;
    try {
      if (looksLikeId(channel)) {
        info = (await slack.conversations.info({ channel })).channel as ChannelInfo | undefined;
      } else {
        byName ??= await listChannelsByName(slack);
        info = byName.get(channel.replace(/^#/, ""));
      }
    } catch (error) {
      const { platform, text } = slackError(error);
      if (platform === "channel_not_found") info = undefined;
      else {
        report.fail(platform ? "config" : "runtime", `Slack channel ${channel} (${option}): cannot check: ${text}`);
        continue;
      }
    }
    const label = `Slack channel ${channel} (${option})`;
    if (!info) {
      report.fail("config", `${label}: not found — create it, or invite ${botName} if it is private`);
    } else if (info.is_archived) {
      report.fail("config", `${label}: archived — unarchive it or pick another channel`);
    } else if (!info.is_member) {
      report.fail(
        "config",
        `${label}: ${botName} is not a member — run /invite ${botName} in ${channel}, or give the app the chat:write.public scope (public channels only)`,
      );
    } else {
      report.pass(`${label}: exists, ${botName} is a member`);
    }
  }
  return scopes;
}
