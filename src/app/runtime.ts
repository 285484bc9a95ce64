import type { RetryOptions, WebClient } from "@slack/web-api";
import type { Alert } from "../alerts/alert.js";
import { type AlertSettings, alertSettings } from "../alerts/alert-settings.js";
import { backlogDigest } from "../alerts/plan-deliveries.js";
import type { ApiEvents } from "../api/api-events.js";
import { RetentionClient, type RetentionClientOptions } from "../api/client.js";
import { RateLimiter } from "../api/rate-limiter.js";
import type { CommandIO } from "../commands/command-io.js";
import type { Config } from "../config/schema.js";
import type { DeliveryEvents } from "../delivery/delivery-events.js";
import { type DeliveryOptions, DeliveryService } from "../delivery/delivery-service.js";
import { ConfigError, type ConfigIssue } from "../errors.js";
import { createLogger, type Logger } from "../logger.js";
import { sourceSecretValues } from "../roster/sources/source-secrets.js";
import { createSlackWebClient, webClientPoster } from "../slack/slack-poster.js";
import { type Fence, openStateStore, postgresUrlPassword, type StateStore } from "../store/state-store.js";

/** What a command needs wired; only those adapters are built (and required by the config). */
export interface RuntimeNeeds {
  readonly client?: boolean;
  readonly store?: boolean;
  readonly slack?: boolean;
  /**
   * The one delivery service (outbox, pacer, sender) over the store; it posts through the Slack
   * client when `slack` is wired too, else messages wait in the outbox. Implies `store`.
   */
  readonly delivery?: boolean;
  /** Shutdown: cancels the poll client's requests in flight and stops deliveries at a safe point. */
  readonly signal?: AbortSignal | undefined;
  /**
   * The daemon's leadership: delivery (outbox send marks, thread roots) writes through the store's
   * view fenced by it, so a replica that lost the lead cannot mark or post after the new leader began.
   */
  readonly fence?: Fence | undefined;
  /** Test overrides for the delivery sender (retry delays, crash seam). */
  readonly deliveryOptions?: DeliveryOptions<Alert>["sender"];
  /**
   * The daemon: where the API clients tell each attempt and delivery each channel Slack refuses (or
   * accepts again); its observer turns them into metrics and readiness.
   */
  readonly events?:
    | { readonly api?: ApiEvents | undefined; readonly delivery?: DeliveryEvents | undefined }
    | undefined;
  /** Overrides for the API clients (tests pass small retry delays). */
  readonly clientOptions?: Partial<
    Pick<RetentionClientOptions, "retryBaseDelayMs" | "maxRetries" | "timeoutMs" | "signal">
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
interface DeliveryPart {
  readonly store: StateStore;
  readonly alertSettings: AlertSettings;
  readonly delivery: DeliveryService<Alert>;
}

export type Runtime<N extends RuntimeNeeds = RuntimeNeeds> = RuntimeBase &
  (N["client"] extends true ? ClientPart : Partial<ClientPart>) &
  (N["store"] extends true ? StorePart : Partial<StorePart>) &
  (N["slack"] extends true ? SlackPart : Partial<SlackPart>) &
  (N["delivery"] extends true ? DeliveryPart : Partial<DeliveryPart>);

function fenceTerm(fence: Fence): () => number | undefined {
  return () => fence.epoch;
}

/** The delivery service of the alert settings: their pacing and retention, their backlog digests. */
export function createDelivery(
  settings: AlertSettings,
  options: Omit<DeliveryOptions<Alert>, "settings">,
): DeliveryService<Alert> {
  return new DeliveryService<Alert>({
    ...options,
    settings: {
      messagesPerSecondPerChannel: settings.messagesPerSecondPerChannel,
      burstPerChannel: settings.burstPerChannel,
      retentionMs: settings.retentionMs,
      coalesce: backlogDigest(settings.digestThreshold, settings.format),
    },
  });
}

/** The secret values the logger scrubs from every line (the Postgres password too, as given and as URL-encoded). */
export function configSecrets(config: Config, env: NodeJS.ProcessEnv = {}): string[] {
  const urlPassword = config.state.url ? postgresUrlPassword(config.state.url) : undefined;
  const passwords = [urlPassword, env.PGPASSWORD].flatMap((p) => (p ? [p, encodeURIComponent(p)] : []));
  return [
    config.api.key,
    config.slack.token,
    config.slack.appToken,
    config.slack.interactivity.signingSecret,
    ...config.alerts.webhook.secrets,
    ...passwords,
    ...sourceSecretValues(config.roster.source, env),
  ].filter((s): s is string => typeof s === "string" && s.length > 0);
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

/**
 * The composition root: the only place that builds adapters. From the config it makes what a
 * command needs: the logger (scrubbing every secret), the API clients sharing one rate budget,
 * the state store, the one Slack WebClient, and the one delivery service that alerts and
 * reconcile reports share.
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
    secrets: configSecrets(config, io.env),
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
      events: needs.events?.api,
      ...needs.clientOptions,
    };
    // Shutdown cancels polling's requests in flight; reconcile's bulk writes stop between requests
    // instead (its journal then knows exactly what was sent).
    const client = new RetentionClient({
      ...base,
      ...(needs.signal ? { signal: needs.signal } : {}),
      logger: logger.child({ component: "api" }),
      priority: "poll",
    });
    const bulkClient = new RetentionClient({ ...base, logger: logger.child({ component: "api" }), priority: "bulk" });
    closers.push(
      () => client.close(),
      () => bulkClient.close(),
    );
    Object.assign(parts, { client, bulkClient, rateLimiter });
  }
  let slack: WebClient | undefined;
  if (needs.slack && config.slack.token) {
    slack = createSlackWebClient({
      token: config.slack.token,
      apiUrl: config.slack.apiUrl,
      logger,
      ...(needs.slackRetry ? { retry: needs.slackRetry } : {}),
    });
    parts.slack = slack;
  }
  if (needs.store || needs.delivery) {
    try {
      const store = await openStateStore(config.state.url ?? config.state.path, {
        logger,
        password: io.env.PGPASSWORD,
      });
      closers.push(() => store.close());
      parts.store = store;
      if (needs.delivery) {
        const settings = alertSettings(config);
        parts.alertSettings = settings;
        parts.delivery = createDelivery(settings, {
          store: needs.fence ? store.fenced(needs.fence) : store,
          ...(needs.fence ? { term: fenceTerm(needs.fence) } : {}),
          poster: slack ? webClientPoster(slack) : undefined,
          logger,
          signal: needs.signal,
          events: needs.events?.delivery,
          ...(needs.deliveryOptions ? { sender: needs.deliveryOptions } : {}),
        });
      }
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
