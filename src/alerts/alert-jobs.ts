import type { RetentionClient } from "../api/client.js";
import type { Config } from "../config/schema.js";
import { lastPulledExport } from "../roster/sources/last-pull.js";
import { type AlertPipeline, type AlertPipelineOptions, createAlertPipeline } from "./alert-pipeline.js";
import { type Every, HrisSource } from "./hris-source.js";
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

/** The pipeline's options (the HRIS lookup is the jobs' own watch), and what only the jobs need. */
export interface AlertJobsInput extends Omit<AlertPipelineOptions, "client" | "hris"> {
  readonly config: Pick<Config, "alerts" | "roster" | "state">;
  readonly client: RetentionClient;
  /** The timer of the HRIS export watch (tests drive it). */
  readonly hrisEvery?: Every | undefined;
}

/**
 * The alerts part of `retention-sync run`, ready for the daemon: a poll job, the optional webhook
 * receiver, sharing one dedupe ledger and the one delivery service, and the watch of the HRIS
 * export (read again whenever it changed, so department and manager stay current in either mode).
 */
export function createAlertJobs(input: AlertJobsInput): AlertJobs {
  const { config, hrisEvery, ...options } = input;
  const hris = new HrisSource(
    config.roster,
    options.logger,
    config.roster.source.type === "file" ? undefined : () => lastPulledExport(config),
  );
  const pipeline = createAlertPipeline({ ...options, hris: (url) => hris.current?.(url) });
  const webhookOn = config.alerts.webhook.enabled;
  return {
    pipeline,
    poll: {
      intervalSeconds: webhookOn ? config.alerts.backstopPollInterval : config.alerts.pollInterval,
      async run(signal) {
        await hris.refresh(new Date());
        const report = await pipeline.poll({ now: new Date(), dryRun: false, signal });
        pipeline.events.emit("poll-pass", { report, at: new Date() });
        if (report.error !== undefined) throw new Error(`poll pass failed: ${report.error}`);
      },
    },
    webhookReceiver: webhookOn
      ? async () => {
          const receiver = await startWebhookReceiver(config.alerts.webhook, pipeline.webhookDeps());
          // Events accepted before a stop or crash and not yet handed over go first.
          void pipeline.inbox.drain();
          return receiver;
        }
      : undefined,
    hrisWatch: config.roster.enabled && config.roster.file ? hris.watch(hrisEvery) : undefined,
  };
}
