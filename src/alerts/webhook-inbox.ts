import type { Employee } from "../api/spec-records.js";
import type { DeliveryService } from "../delivery/delivery-service.js";
import type { Logger } from "../logger.js";
import type { StateStore } from "../store/state-store.js";
import type { Alert } from "./alert.js";
import { ChangeEnricher, type HrisLookup } from "./enrich.js";
import { type Arrival, type HandOverDeps, handOver } from "./hand-over.js";
import { splitUnrouted, unroutedSentences } from "./unrouted.js";

/** The queue of accepted webhook events waiting for their hand-over. */
export const INBOX_QUEUE = "webhook.inbox";
/** Events handed over per transaction: a burst becomes a few hand-overs (and digests), not thousands. */
const BATCH = 500;
/** Employee details for a reduced payload are waited for this long at most; the alert goes out without them. */
const ENRICH_BUDGET_MS = 2000;

/** An accepted event as stored: the change it reports, in the poller's terms. */
export interface InboxEvent {
  readonly arrival: Arrival;
}

export interface WebhookInboxDeps extends HandOverDeps {
  readonly store: StateStore;
  readonly delivery: DeliveryService<Alert>;
  readonly getEmployee?: ((id: number) => Promise<Employee>) | undefined;
  readonly hris?: HrisLookup | undefined;
  readonly logger: Logger;
  /** Shutdown: stop between batches; what is left waits in the inbox for the next start. */
  readonly signal?: AbortSignal | undefined;
  readonly now?: () => Date;
  /**
   * Replicas: where `accept` writes (the store without the leader's fence: a standby accepts too),
   * and whether this replica leads (a standby never hands over or posts; the leader drains the
   * shared inbox). Defaults: `store`, always leading.
   */
  readonly acceptStore?: StateStore | undefined;
  readonly leading?: (() => boolean) | undefined;
}

function withBudget<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Hands accepted webhook events over behind the receiver's answer: the receiver's only work is
 * one durable write per event, so a burst is answered in milliseconds however slow enrichment or
 * Slack are. Each batch's hand-over consumes its inbox items in the same transaction, so an event
 * is handed over exactly once across crashes; then the outbox is flushed.
 */
export class WebhookInbox {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly deps: WebhookInboxDeps) {}

  /** Stores an accepted event; false when it is already waiting (a retry of the service). */
  async accept(eventId: string, arrival: Arrival): Promise<boolean> {
    const store = this.deps.acceptStore ?? this.deps.store;
    const added = await store.queue<InboxEvent>(INBOX_QUEUE).enqueue([{ id: eventId, value: { arrival } }]);
    return added > 0;
  }

  /** Hands over what waits, then flushes. Calls during a drain make it run once more; never rejects. */
  drain(): Promise<void> {
    if (this.deps.leading?.() === false) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.drainOnce().catch((error: unknown) =>
          this.deps.logger.error({ err: error }, "webhook events could not be handed over; they wait in the inbox"),
        );
      } while (this.again && !this.deps.signal?.aborted);
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async drainOnce(): Promise<void> {
    const { deps } = this;
    const inbox = deps.store.queue<InboxEvent>(INBOX_QUEUE);
    const getEmployee = deps.getEmployee;
    const enricher = new ChangeEnricher({
      getEmployee: (id) =>
        getEmployee ? withBudget(getEmployee(id), ENRICH_BUDGET_MS) : Promise.reject(new Error("no API client")),
      hris: deps.hris,
      dashboardUrl: deps.settings.dashboardUrl,
      logger: deps.logger,
    });
    for (;;) {
      if (deps.signal?.aborted) return;
      const items = await inbox.pending(BATCH);
      if (items.length === 0) break;
      const handed = await handOver(deps, {
        arrivals: items.map((item) => item.value.arrival),
        enricher,
        cursors: {},
        nowMs: (deps.now?.() ?? new Date()).getTime(),
        dryRun: false,
        consumed: { queue: INBOX_QUEUE, ids: items.map((item) => item.id) },
      });
      deps.logger.info(
        { events: items.length, fresh: handed.fresh.length, messages: handed.enqueued },
        "webhook events handed over",
      );
      const unrouted = splitUnrouted(handed.plan.unrouted);
      const { warning, note } = unroutedSentences({
        retention: unrouted.retention.length,
        poaching: unrouted.poaching.length,
      });
      if (warning)
        deps.logger.warn(
          { changeKeys: unrouted.retention.slice(0, 5).map((a) => a.key) },
          `webhook events: ${warning}`,
        );
      if (note) deps.logger.info({ alerts: unrouted.poaching.length }, `webhook events: ${note}`);
    }
    await deps.delivery.flush();
  }
}
