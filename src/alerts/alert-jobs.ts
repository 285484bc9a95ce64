import type { RetentionClient } from "../api/client.js";
import type { Config } from "../config/schema.js";
import type { DeliveryService } from "../delivery/delivery-service.js";
import type { Logger } from "../logger.js";
import type { RefusalReason } from "../refusal-tally.js";
import type { StateStore } from "../store/state-store.js";
import type { Alert } from "./alert.js";
import { type AlertPipeline, createAlertPipeline } from "./alert-pipeline.js";
import type { AlertSettings } from "./alert-settings.js";
import type { HrisLookup } from "./enrich.js";
import { cachedHrisLookup } from "./hris-lookup.js";
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
 * read again whenever the export changed, so department and manager stay current) and the optional webhook receiver,
 * sharing one dedupe ledger and the one delivery service.
 */
export function createAlertJobs(input: {
  readonly config: Pick<Config, "alerts" | "roster">;
  readonly settings: AlertSettings;
  readonly store: StateStore;
  readonly client: RetentionClient;
  readonly delivery: DeliveryService<Alert>;
  readonly logger: Logger;
  /** Shutdown: the webhook inbox stops between batches. */
  readonly signal?: AbortSignal | undefined;
  /** Called after each pass (metrics). */
  readonly onPass?: (report: PollReport) => void;
  /** Called with what each hand-over of either door put in the outbox (metrics). */
  readonly onQueued?: (count: number) => void;
  /** Called for every request the webhook receiver refuses (metrics). */
  readonly onRefused?: ((reason: RefusalReason) => void) | undefined;
  /** Replicas: the unfenced store webhook events are accepted into, and whether this replica leads. */
  readonly acceptStore?: StateStore | undefined;
  readonly leading?: (() => boolean) | undefined;
}): AlertJobs {
  const { config, logger } = input;
  let hris: HrisLookup | undefined;
  const currentHris = cachedHrisLookup(config.roster);
  const pipeline = createAlertPipeline({
    settings: input.settings,
    store: input.store,
    client: input.client,
    delivery: input.delivery,
    logger,
    hris: (url) => hris?.(url),
    signal: input.signal,
    onQueued: input.onQueued,
    acceptStore: input.acceptStore,
    leading: input.leading,
  });
  const webhookOn = config.alerts.webhook.enabled;
  return {
    pipeline,
    poll: {
      intervalSeconds: webhookOn ? config.alerts.backstopPollInterval : config.alerts.pollInterval,
      async run(signal) {
        try {
          hris = await currentHris(new Date());
        } catch (error) {
          logger.warn({ err: error }, "HRIS roster unreadable: alerts go out without HRIS department and manager");
        }
        const report = await pipeline.poll({ now: new Date(), dryRun: false, signal });
        input.onPass?.(report);
        if (report.error !== undefined) throw new Error(`poll pass failed: ${report.error}`);
      },
    },
    webhookReceiver: webhookOn
      ? async () => {
          const receiver = await startWebhookReceiver(config.alerts.webhook, {
            ...pipeline.webhookDeps(),
            onRefused: input.onRefused,
          });
          // Events accepted before a stop or crash and not yet handed over go first.
          void pipeline.inbox.drain();
          return receiver;
        }
      : undefined,
  };
}
