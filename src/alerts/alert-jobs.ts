import type { RetentionClient } from "../api/client.js";
import type { Config } from "../config/schema.js";
import type { DeliveryService } from "../delivery/delivery-service.js";
import type { Logger } from "../logger.js";
import type { RefusalReason } from "../refusal-tally.js";
import { lastPulledExport } from "../roster/sources/last-pull.js";
import type { StateStore } from "../store/state-store.js";
import type { Alert } from "./alert.js";
import { type AlertPipeline, createAlertPipeline } from "./alert-pipeline.js";
import type { AlertSettings } from "./alert-settings.js";
import { type Every, HrisSource } from "./hris-source.js";
import type { PollReport } from "./poll-changes.js";
import { startWebhookReceiver, type WebhookReceiver } from "./receive-webhook.js";

export interface AlertJobs {
  readonly pipeline: AlertPipeline;
  /** For DaemonDeps.poll: `alerts.pollInterval`, or `alerts.backstopPollInterval` while webhooks are on. */
  readonly poll: { readonly intervalSeconds: number; run(signal: AbortSignal): Promise<void> };
  /** For DaemonDeps.webhookReceiver; undefined unless `alerts.webhook.enabled`. */
  readonly webhookReceiver: (() => Promise<WebhookReceiver>) | undefined;
  /**
   * For DaemonDeps.leaderServices: the leader reads the HRIS export again within `HRIS_WATCH_MS`
   * of a change, between poll passes; undefined without a roster file.
   */
  readonly hrisWatch: { readonly name: string; start(): Promise<void>; stop(): Promise<void> } | undefined;
}

/**
 * The alerts part of `retention-sync run`, ready for the daemon: a poll job, the optional webhook
 * receiver, sharing one dedupe ledger and the one delivery service, and the watch of the HRIS
 * export (read again whenever it changed, so department and manager stay current in either mode).
 */
export function createAlertJobs(input: {
  readonly config: Pick<Config, "alerts" | "roster" | "state">;
  readonly settings: AlertSettings;
  readonly store: StateStore;
  readonly client: RetentionClient;
  readonly delivery: DeliveryService<Alert>;
  readonly logger: Logger;
  /** Shutdown: the webhook inbox stops between batches. */
  readonly signal?: AbortSignal | undefined;
  /** Called after each pass (metrics). */
  readonly onPass?: (report: PollReport) => void;
  /** Called for every request the webhook receiver refuses (metrics). */
  readonly onRefused?: ((reason: RefusalReason) => void) | undefined;
  /** Replicas: the unfenced store webhook events are accepted into, and whether this replica leads. */
  readonly acceptStore?: StateStore | undefined;
  readonly leading?: (() => boolean) | undefined;
  /** The timer of the HRIS export watch (tests drive it). */
  readonly hrisEvery?: Every | undefined;
}): AlertJobs {
  const { config, logger } = input;
  const hris = new HrisSource(
    config.roster,
    logger,
    config.roster.source.type === "file" ? undefined : () => lastPulledExport(config),
  );
  const pipeline = createAlertPipeline({
    settings: input.settings,
    store: input.store,
    client: input.client,
    delivery: input.delivery,
    logger,
    hris: (url) => hris.current?.(url),
    signal: input.signal,
    acceptStore: input.acceptStore,
    leading: input.leading,
  });
  const webhookOn = config.alerts.webhook.enabled;
  return {
    pipeline,
    poll: {
      intervalSeconds: webhookOn ? config.alerts.backstopPollInterval : config.alerts.pollInterval,
      async run(signal) {
        await hris.refresh(new Date());
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
    hrisWatch: config.roster.enabled && config.roster.file ? hris.watch(input.hrisEvery) : undefined,
  };
}
