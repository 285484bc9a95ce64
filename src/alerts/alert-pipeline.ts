import type { DeliveryService } from "../delivery/delivery-service.js";
import type { Logger } from "../logger.js";
import type { StateStore } from "../store/state-store.js";
import type { Alert } from "./alert.js";
import { AlertCommitLog } from "./alert-commit.js";
import type { AlertSettings } from "./alert-settings.js";
import { DeliveryLedger } from "./delivery-ledger.js";
import type { HrisLookup } from "./enrich.js";
import { CURSOR_NAMESPACE, type PollClient, type PollReport, pollOnce } from "./poll-changes.js";
import type { WebhookDeps } from "./receive-webhook.js";
import { WebhookInbox } from "./webhook-inbox.js";

export interface AlertPipelineOptions {
  readonly settings: AlertSettings;
  readonly store: StateStore;
  readonly client: PollClient;
  /** The shared delivery service (built by the composition root, with this flow's backlog digests). */
  readonly delivery: DeliveryService<Alert>;
  readonly logger: Logger;
  readonly hris?: HrisLookup | undefined;
  /** Shutdown: the webhook inbox stops handing over between batches. */
  readonly signal?: AbortSignal | undefined;
  /** Replicas: the store webhook events are accepted into on any replica, and whether this one leads (WebhookInboxDeps). */
  readonly acceptStore?: StateStore | undefined;
  readonly leading?: (() => boolean) | undefined;
}

/** The alert path wired once: what `poll`, the daemon and the webhook receiver share. */
export interface AlertPipeline {
  readonly ledger: DeliveryLedger;
  readonly delivery: DeliveryService<Alert>;
  /** Accepted webhook events waiting for their hand-over (drained at start and after each event). */
  readonly inbox: WebhookInbox;
  poll(options: { now: Date; dryRun: boolean; signal?: AbortSignal | undefined }): Promise<PollReport>;
  /** Dependencies for createWebhookHandler/startWebhookReceiver. */
  webhookDeps(): WebhookDeps;
}

export function createAlertPipeline(options: AlertPipelineOptions): AlertPipeline {
  const { settings, store, logger, delivery } = options;
  const ledger = new DeliveryLedger(store, settings.retentionMs);
  const cursors = store.namespace(CURSOR_NAMESPACE);
  const commits = new AlertCommitLog({
    store,
    outbox: delivery.outbox,
    ledger,
    cursorNamespace: CURSOR_NAMESPACE,
    logger: logger.child({ component: "alerts-commit" }),
  });
  const inbox = new WebhookInbox({
    settings,
    ledger,
    commits,
    store,
    delivery,
    getEmployee: (id) => options.client.getEmployee(id),
    hris: options.hris,
    logger: logger.child({ component: "webhook" }),
    signal: options.signal,
    acceptStore: options.acceptStore,
    leading: options.leading,
  });
  return {
    ledger,
    delivery,
    inbox,
    poll: (pass) =>
      pollOnce(
        {
          settings,
          ledger,
          commits,
          delivery,
          client: options.client,
          logger: logger.child({ component: "poll" }),
          cursors,
          hris: options.hris,
        },
        pass,
      ),
    webhookDeps: () => ({ settings, ledger, inbox, logger }),
  };
}
