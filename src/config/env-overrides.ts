/**
 * The environment variables that override the config file, in one table so that
 * `loadConfig`, `--help` and the README cannot drift apart.
 */

export interface EnvOverride {
  readonly env: string;
  /** Dotted config path the variable sets. */
  readonly path: string;
  readonly description: string;
  /** Raw text -> config value. Unparseable text is passed through so the schema reports it. */
  readonly parse: (raw: string) => unknown;
  /** When the value decides where it goes: the dotted path for this raw text (else `path`). */
  readonly pathFor?: (raw: string) => string;
}

const text = (raw: string): unknown => raw.trim();
const integer = (raw: string): unknown => (/^\s*\d+\s*$/.test(raw) ? Number(raw) : raw);
const list = (raw: string): unknown =>
  raw
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.length > 0);

export const ENV_OVERRIDES: readonly EnvOverride[] = [
  { env: "RETENTION_API_URL", path: "api.url", description: "service base URL including /api/v1", parse: text },
  {
    env: "RETENTION_API_KEY",
    path: "api.key",
    description: "API key (read, or read+write for reconcile)",
    parse: text,
  },
  { env: "SLACK_BOT_TOKEN", path: "slack.token", description: "Slack bot token (xoxb-...)", parse: text },
  {
    env: "SLACK_APP_TOKEN",
    path: "slack.appToken",
    description: "Slack app-level token (xapp-...) for Socket Mode buttons",
    parse: text,
  },
  {
    env: "SLACK_SIGNING_SECRET",
    path: "slack.interactivity.signingSecret",
    description: "Slack signing secret (HTTP mode buttons)",
    parse: text,
  },
  { env: "SLACK_API_URL", path: "slack.apiUrl", description: "Slack Web API base URL", parse: text },
  {
    env: "SLACK_CHANNEL",
    path: "slack.channel",
    description: "channel for retention alerts no route takes (never the poaching lens)",
    parse: text,
  },
  {
    env: "SLACK_POACHING_CHANNEL",
    path: "slack.poachingChannel",
    description: "channel for poaching alerts no route takes (unset: not posted)",
    parse: text,
  },
  { env: "SLACK_OPS_CHANNEL", path: "slack.opsChannel", description: "channel for reconcile reports", parse: text },
  {
    env: "RETENTION_SYNC_STATE",
    path: "state.path",
    description: "SQLite state database path, or a postgres:// URL (sets state.url)",
    parse: text,
    pathFor: (raw) => (/^\s*postgres(ql)?:\/\//i.test(raw) ? "state.url" : "state.path"),
  },
  { env: "HRIS_ROSTER_FILE", path: "roster.file", description: "HRIS roster export (CSV/JSON/NDJSON)", parse: text },
  { env: "OPS_PORT", path: "daemon.port", description: "health and metrics port", parse: integer },
  { env: "LOG_LEVEL", path: "log.level", description: "fatal|error|warn|info|debug|trace|silent", parse: text },
  {
    env: "RETENTION_WEBHOOK_SECRETS",
    path: "alerts.webhook.secrets",
    description: "webhook signing secrets, comma-separated",
    parse: list,
  },
];

/** `RETENTION_SYNC_CONFIG`: the config file path when no `--config` is given. */
export const CONFIG_FILE_ENV = "RETENTION_SYNC_CONFIG";
