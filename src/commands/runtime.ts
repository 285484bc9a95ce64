import { LogLevel, type RetryOptions, type Logger as SlackLogger, WebClient } from "@slack/web-api";
import { RetentionClient, type RetentionClientOptions } from "../api/client.js";
import { RateLimiter } from "../api/rate-limiter.js";
import type { Config } from "../config/schema.js";
import { ConfigError, type ConfigIssue } from "../errors.js";
import { createLogger, type Logger } from "../logger.js";
import { openStateStore, type StateStore } from "../store/state-store.js";
import type { CommandIO } from "./command-io.js";

/** What a command needs wired; only those adapters are built (and required by the config). */
export interface RuntimeNeeds {
  readonly client?: boolean;
  readonly store?: boolean;
  readonly slack?: boolean;
  /** Overrides for the API clients (tests pass small retry delays). */
  readonly clientOptions?: Partial<
    Pick<RetentionClientOptions, "retryBaseDelayMs" | "maxRetries" | "timeoutMs" | "onAttempt" | "signal">
  >;
  /** Overrides the Slack retry policy (`check` fails fast; tests use `{ retries: 0 }`). */
  readonly slackRetry?: RetryOptions;
  /** Where log lines go; the command's stderr by default so stdout stays for command output. */
  readonly logDestination?: { write(line: string): unknown };
}

interface RuntimeBase {
  readonly config: Config;
  readonly logger: Logger;
  /** Releases everything opened (HTTP connections, the store). Idempotent. */
  close(): Promise<void>;
}
interface ClientPart {
  /** Client for polling/alerts ("poll" priority in the shared rate budget). */
  readonly client: RetentionClient;
  /** Same key and bucket, "bulk" priority: reconcile, so it never delays alerts. */
  readonly bulkClient: RetentionClient;
  readonly rateLimiter: RateLimiter;
}
interface StorePart {
  readonly store: StateStore;
}
interface SlackPart {
  readonly slack: WebClient;
}

export type Runtime<N extends RuntimeNeeds = RuntimeNeeds> = RuntimeBase &
  (N["client"] extends true ? ClientPart : Partial<ClientPart>) &
  (N["store"] extends true ? StorePart : Partial<StorePart>) &
  (N["slack"] extends true ? SlackPart : Partial<SlackPart>);

/**
 * A daemon's Slack retries: a few quick attempts in-process; anything longer is the outbox's job,
 * so a Slack outage never blocks the poller. 429s wait the full Retry-After (the SDK pauses its queue).
 */
export const DAEMON_SLACK_RETRY: RetryOptions = {
  retries: 3,
  factor: 3,
  minTimeout: 1_000,
  maxTimeout: 15_000,
  randomize: true,
};

/** The secret values the logger scrubs from every line. */
export function configSecrets(config: Config): string[] {
  return [config.api.key, config.slack.token, ...config.alerts.webhook.secrets].filter(
    (s): s is string => typeof s === "string" && s.length > 0,
  );
}

function requireSettings(config: Config, needs: RuntimeNeeds): void {
  const issues: ConfigIssue[] = [];
  if (needs.client && !config.api.url) {
    issues.push({
      path: "api.url",
      message: "required: set RETENTION_API_URL (or api.url) to the service base URL including /api/v1",
    });
  }
  if (needs.client && !config.api.key) {
    issues.push({ path: "api.key", message: "required: set RETENTION_API_KEY to the service API key" });
  }
  if (needs.slack && !config.slack.token) {
    issues.push({ path: "slack.token", message: "required: set SLACK_BOT_TOKEN to the Slack bot token (xoxb-...)" });
  }
  if (issues.length > 0) throw new ConfigError("missing settings", issues);
}

/** Routes the Slack SDK's own logging into pino at debug (warnings stay warnings). */
function slackLogger(logger: Logger): SlackLogger {
  let level = LogLevel.DEBUG;
  return {
    debug: (...msg: unknown[]) => logger.debug({ component: "slack-sdk" }, msg.map(String).join(" ")),
    info: (...msg: unknown[]) => logger.debug({ component: "slack-sdk" }, msg.map(String).join(" ")),
    warn: (...msg: unknown[]) => logger.warn({ component: "slack-sdk" }, msg.map(String).join(" ")),
    error: (...msg: unknown[]) => logger.error({ component: "slack-sdk" }, msg.map(String).join(" ")),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

/**
 * Builds the adapters a command needs from the config: the logger (scrubbing every secret), the
 * API clients sharing one rate budget, the state store and the Slack WebClient.
 */
export async function openRuntime<const N extends RuntimeNeeds>(
  config: Config,
  io: CommandIO,
  needs: N = {} as N,
): Promise<Runtime<N>> {
  requireSettings(config, needs);
  const destination = needs.logDestination ?? io.stderr;
  const logger = createLogger({
    level: config.log.level,
    secrets: configSecrets(config),
    destination: { write: (line: string) => void destination.write(line) },
  });
  const closers: Array<() => Promise<void>> = [];
  const parts: Record<string, unknown> = {};

  if (needs.client && config.api.url && config.api.key) {
    const rateLimiter = new RateLimiter({
      requestsPerMinute: config.api.requestsPerMinute,
      reservedShare: config.api.pollingReservedShare,
    });
    const base: RetentionClientOptions = {
      baseUrl: config.api.url,
      apiKey: config.api.key,
      timeoutMs: config.api.timeoutSeconds * 1000,
      maxRetries: config.api.maxRetries,
      rateLimiter,
      ...needs.clientOptions,
    };
    const client = new RetentionClient({ ...base, logger: logger.child({ component: "api" }), priority: "poll" });
    const bulkClient = new RetentionClient({ ...base, logger: logger.child({ component: "api" }), priority: "bulk" });
    closers.push(
      () => client.close(),
      () => bulkClient.close(),
    );
    Object.assign(parts, { client, bulkClient, rateLimiter });
  }
  if (needs.slack && config.slack.token) {
    parts.slack = new WebClient(config.slack.token, {
      slackApiUrl: config.slack.apiUrl,
      retryConfig: needs.slackRetry ?? DAEMON_SLACK_RETRY,
      timeout: 10_000,
      logger: slackLogger(logger),
      logLevel: LogLevel.DEBUG,
    });
  }
  if (needs.store) {
    try {
      const store = await openStateStore(config.state.path);
      closers.push(() => store.close());
      parts.store = store;
    } catch (error) {
      await Promise.allSettled(closers.map((close) => close()));
      throw error;
    }
  }

  let closed = false;
  const runtime: RuntimeBase = {
    config,
    logger,
    async close() {
      if (closed) return;
      closed = true;
      const results = await Promise.allSettled(closers.reverse().map((close) => close()));
      const failure = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failure) throw failure.reason;
    },
  };
  return Object.assign(runtime, parts) as Runtime<N>;
}
