import type { DeliveryService } from "../delivery/delivery-service.js";
import { PersonMarks } from "../interactive/person-marks.js";
import type { Logger } from "../logger.js";
import type { StateStore } from "../store/state-store.js";
import type { Alert } from "./alert.js";
import { AlertCommitLog } from "./alert-commit.js";
import { AlertEvents } from "./alert-events.js";
import type { AlertSettings } from "./alert-settings.js";
import { DeliveryLedger } from "./delivery-ledger.js";
import type { HrisLookup } from "./enrich.js";
import { LensList } from "./lens-list.js";
import { PersonDirectory } from "./person-directory.js";
import { CURSOR_NAMESPACE, type PollClient, pollOnce } from "./poll-changes.js";
import type { PollReport } from "./poll-report.js";
import type { WebhookDeps } from "./receive-webhook.js";
import { SCORES_NAMESPACE, ScoreHistory } from "./score-history.js";
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
  /** Where the alert path tells what it did (the daemon's observer subscribes first); a new one when absent. */
  readonly events?: AlertEvents | undefined;
}

/** The alert path wired once: what `poll`, the daemon and the webhook receiver share. */
export interface AlertPipeline {
  readonly ledger: DeliveryLedger;
  readonly delivery: DeliveryService<Alert>;
  /** Accepted webhook events waiting for their hand-over (drained at start and after each event). */
  readonly inbox: WebhookInbox;
  /** Person details from roster list pages, shared by every pass (its request counts show the cost). */
  readonly directory: PersonDirectory;
  /** What each hand-over (either door) or recovery put in the outbox, the passes, the refusals (metrics subscribe). */
  readonly events: AlertEvents;
  poll(options: { now: Date; dryRun: boolean; signal?: AbortSignal | undefined }): Promise<PollReport>;
  /** Dependencies for createWebhookHandler/startWebhookReceiver. */
  webhookDeps(): WebhookDeps;
}

export function createAlertPipeline(options: AlertPipelineOptions): AlertPipeline {
  const { settings, store, logger, delivery } = options;
  const ledger = new DeliveryLedger(store, settings.retentionMs);
  const cursors = store.namespace(CURSOR_NAMESPACE);
  const events = options.events ?? new AlertEvents();
  const commits = new AlertCommitLog({
    store,
    outbox: delivery.outbox,
    ledger,
    cursorNamespace: CURSOR_NAMESPACE,
    logger: logger.child({ component: "alerts-commit" }),
    events,
  });
  const scores = new ScoreHistory(store.namespace(SCORES_NAMESPACE), settings.retentionMs);
  // Snoozes and acknowledgements from the Slack buttons (empty namespaces when they are off).
  const marks = new PersonMarks(store);
  // Kept across passes: a roster read from list pages serves every pass for an hour.
  const directory = new PersonDirectory(options.client, { logger: logger.child({ component: "people" }) });
  // Kept across passes: the lens list is read again every five minutes and after a lens fails.
  const lenses = new LensList(options.client);
  const inbox = new WebhookInbox({
    settings,
    ledger,
    commits,
    scores,
    marks,
    store,
    delivery,
    // A person already read with a roster page costs no request; anyone else one GET, within the event's budget.
    getEmployee: (id) => directory.get(id),
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
    directory,
    events,
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
          directory,
          lenses,
          scores,
          marks,
        },
        pass,
      ),
    webhookDeps: () => ({ settings, ledger, inbox, logger, events }),
  };
}
