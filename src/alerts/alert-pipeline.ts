import type { Config } from "../config/schema.js";
import type { Logger } from "../logger.js";
import { ChannelPacer } from "../slack/channel-pacer.js";
import { OUTBOX_INDEX_NAMESPACE, OUTBOX_NAMESPACE, Outbox, THREADS_NAMESPACE, ThreadIndex } from "../slack/outbox.js";
import { OutboxSender, type OutboxSenderOptions } from "../slack/outbox-sender.js";
import type { SlackPoster } from "../slack/slack-poster.js";
import type { StateStore } from "../store/state-store.js";
import { AlertCommitLog, COMMIT_NAMESPACE } from "./alert-commit.js";
import { DELIVERED_NAMESPACE, DeliveryLedger } from "./delivery-ledger.js";
import type { HrisLookup } from "./enrich.js";
import { backlogDigest } from "./plan-deliveries.js";
import { CURSOR_NAMESPACE, type PollClient, type PollReport, pollOnce, routingOf } from "./poll-changes.js";
import type { WebhookDeps } from "./receive-webhook.js";

export interface AlertPipelineOptions {
  readonly config: Pick<Config, "alerts" | "slack">;
  readonly store: StateStore;
  readonly client: PollClient;
  /** Absent for a dry run: nothing is posted. */
  readonly poster?: SlackPoster | undefined;
  readonly logger: Logger;
  readonly hris?: HrisLookup | undefined;
  /** Test overrides (retry delays, crash seam, clock). */
  readonly sender?: Partial<Pick<OutboxSenderOptions, "retry" | "maxRateLimitWaitMs" | "afterPost" | "sleep">>;
}

/** The alert path wired once: what `poll`, the daemon and the webhook receiver share. */
export interface AlertPipeline {
  readonly outbox: Outbox;
  readonly ledger: DeliveryLedger;
  readonly sender: OutboxSender | undefined;
  poll(options: { now: Date; dryRun: boolean }): Promise<PollReport>;
  /** Dependencies for createWebhookHandler/startWebhookReceiver. */
  webhookDeps(): WebhookDeps;
}

export function createAlertPipeline(options: AlertPipelineOptions): AlertPipeline {
  const { config, store, logger } = options;
  const retentionMs = config.alerts.dedupeRetention * 1000;
  const outbox = new Outbox(store.namespace(OUTBOX_NAMESPACE), store.namespace(OUTBOX_INDEX_NAMESPACE), retentionMs);
  const ledger = new DeliveryLedger(store.namespace(DELIVERED_NAMESPACE), retentionMs);
  const cursors = store.namespace(CURSOR_NAMESPACE);
  const commits = new AlertCommitLog({
    journal: store.namespace(COMMIT_NAMESPACE),
    outbox,
    ledger,
    cursors,
    logger: logger.child({ component: "alerts-commit" }),
  });
  const sender = options.poster
    ? new OutboxSender({
        outbox,
        threads: new ThreadIndex(store.namespace(THREADS_NAMESPACE), retentionMs),
        poster: options.poster,
        pacer: new ChannelPacer(config.slack.messagesPerSecondPerChannel),
        logger: logger.child({ component: "slack-outbox" }),
        coalesce: backlogDigest(config.alerts.digestThreshold),
        ...options.sender,
      })
    : undefined;
  return {
    outbox,
    ledger,
    sender,
    poll: (pass) =>
      pollOnce(
        {
          client: options.client,
          config,
          logger: logger.child({ component: "poll" }),
          cursors,
          ledger,
          outbox,
          commits,
          sender,
          hris: options.hris,
        },
        pass,
      ),
    webhookDeps: () => ({
      secrets: config.alerts.webhook.secrets,
      toleranceSeconds: config.alerts.webhook.toleranceSeconds,
      routing: routingOf(config),
      managerDm: config.alerts.managerDm.enabled,
      ledger,
      outbox,
      commits,
      sender,
      getEmployee: (id) => options.client.getEmployee(id),
      hris: options.hris,
      dashboardUrl: config.alerts.dashboardUrl,
      logger,
    }),
  };
}
