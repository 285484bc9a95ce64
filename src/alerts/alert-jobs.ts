import type { RetentionClient } from "../api/client.js";
import type { Config } from "../config/schema.js";
import type { Logger } from "../logger.js";
import { createSlackWebClient, webClientPoster } from "../slack/slack-poster.js";
import type { StateStore } from "../store/state-store.js";
import { type AlertPipeline, createAlertPipeline } from "./alert-pipeline.js";
import { loadHrisLookup } from "./hris-lookup.js";
import type { PollReport } from "./poll-changes.js";
import { startWebhookReceiver, type WebhookReceiver } from "./receive-webhook.js";

export interface AlertJobs {
  readonly pipeline: AlertPipeline;
  /** For DaemonDeps.poll: `alerts.pollInterval`, or `alerts.backstopPollInterval` while webhooks are on. */
  readonly poll: { readonly intervalSeconds: number; run(signal: AbortSignal): Promise<void> };
  /** For DaemonDeps.webhookReceiver; undefined unless `alerts.webhook.enabled`. */
  readonly webhookReceiver: (() => Promise<WebhookReceiver>) | undefined;
}

/**
 * The alerts part of `retention-sync run`, ready for the daemon: a poll job (the HRIS roster is
 * re-read each pass so department and manager stay current) and the optional webhook receiver,
 * sharing one outbox, one dedupe ledger and one Slack sender.
 */
export function createAlertJobs(input: {
  readonly config: Config;
  readonly store: StateStore;
  readonly client: RetentionClient;
  readonly logger: Logger;
  /** Called after each pass (metrics). */
  readonly onPass?: (report: PollReport) => void;
}): AlertJobs {
  const { config, logger } = input;
  const poster = config.slack.token
    ? webClientPoster(createSlackWebClient({ token: config.slack.token, apiUrl: config.slack.apiUrl, logger }))
    : undefined;
  let hris: Awaited<ReturnType<typeof loadHrisLookup>>;
  const pipeline = createAlertPipeline({
    config,
    store: input.store,
    client: input.client,
    poster,
    logger,
    get hris() {
      return hris;
    },
  });
  const webhookOn = config.alerts.webhook.enabled;
  return {
    pipeline,
    poll: {
      intervalSeconds: webhookOn ? config.alerts.backstopPollInterval : config.alerts.pollInterval,
      async run() {
        try {
          hris = await loadHrisLookup(config.roster, new Date());
        } catch (error) {
          logger.warn({ err: error }, "HRIS roster unreadable: alerts go out without HRIS department and manager");
        }
        const report = await pipeline.poll({ now: new Date(), dryRun: false });
        input.onPass?.(report);
        if (report.error !== undefined) throw new Error(`poll pass failed: ${report.error}`);
      },
    },
    webhookReceiver: webhookOn
      ? () => startWebhookReceiver(config.alerts.webhook, { ...pipeline.webhookDeps(), hris: (url) => hris?.(url) })
      : undefined,
  };
}
