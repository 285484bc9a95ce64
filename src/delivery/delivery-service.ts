import type { Logger } from "../logger.js";
import type { SlackPoster } from "../slack/slack-poster.js";
import type { StateStore } from "../store/state-store.js";
import { ChannelPacer } from "./channel-pacer.js";
import type { DeliveryEvents } from "./delivery-events.js";
import { Outbox, type OutboxDraft, ThreadIndex } from "./outbox.js";
import { type Coalesce, type FlushReport, OutboxSender, type OutboxSenderOptions } from "./outbox-sender.js";

export interface DeliverySettings<P> {
  /** slack.messagesPerSecondPerChannel */
  readonly messagesPerSecondPerChannel: number;
  /** slack.burstPerChannel (default 1: no burst) */
  readonly burstPerChannel?: number | undefined;
  /** How long sent marks and thread roots are kept (alerts.dedupeRetention). */
  readonly retentionMs: number;
  /** Backlog digests; the alert flow supplies it, delivery never decides a digest itself. */
  readonly coalesce?: Coalesce<P> | undefined;
}

export interface DeliveryOptions<P> {
  readonly store: StateStore;
  /** Absent without a Slack token (or in a dry run): messages wait in the outbox. */
  readonly poster?: SlackPoster | undefined;
  readonly settings: DeliverySettings<P>;
  readonly logger: Logger;
  /** Shutdown: flushes stop at the next safe point. */
  readonly signal?: AbortSignal | undefined;
  /**
   * The leadership term this process posts in (replicas: the fence's epoch); what delivery keeps in
   * memory from the store is read again when it changes.
   */
  readonly term?: (() => unknown) | undefined;
  /** The clock of sent marks, thread roots and the sender (default Date.now). */
  readonly now?: (() => number) | undefined;
  /** Told of a channel Slack refuses (or accepts again): the daemon's needs-operator note subscribes. */
  readonly events?: DeliveryEvents | undefined;
  /** Test overrides (retry delays, crash seam). */
  readonly sender?: Partial<Pick<OutboxSenderOptions<P>, "retry" | "maxRateLimitWaitMs" | "afterPost" | "sleep">>;
}

/**
 * The one way anything reaches Slack: a draft is written to the outbox first, then the sender posts
 * it (paced per channel, errors classified, crash-safe). Alerts and reconcile reports share it.
 */
export class DeliveryService<P = unknown> {
  readonly outbox: Outbox<P>;
  /** Undefined without a poster: `flush` then only reports what waits. */
  readonly sender: OutboxSender<P> | undefined;

  constructor(options: DeliveryOptions<P>) {
    const { store, settings, logger } = options;
    const now = options.now ?? Date.now;
    this.outbox = new Outbox<P>(store, settings.retentionMs, now);
    this.sender = options.poster
      ? new OutboxSender<P>({
          outbox: this.outbox,
          threads: new ThreadIndex(store, settings.retentionMs, now, options.term),
          poster: options.poster,
          // Wall-clock time: pacing is about Slack's clock, whatever clock the marks are written with.
          pacer: new ChannelPacer(settings.messagesPerSecondPerChannel, Date.now, undefined, settings.burstPerChannel),
          logger: logger.child({ component: "slack-outbox" }),
          coalesce: settings.coalesce,
          signal: options.signal,
          now,
          events: options.events,
          ...options.sender,
        })
      : undefined;
  }

  /** Stores drafts for delivery (ids already waiting or sent are skipped); returns how many were new. */
  enqueue(drafts: readonly OutboxDraft<P>[], nowMs: number): Promise<number> {
    return this.outbox.enqueue(drafts, nowMs);
  }

  /** Posts what waits; without a poster, undefined. Concurrent calls coalesce (see OutboxSender.flush). */
  async flush(): Promise<FlushReport | undefined> {
    return this.sender?.flush();
  }

  /**
   * Enqueues one message and delivers just that one (messages outside the alert flow: reconcile
   * reports). A one-shot command thus never posts the alert backlog a running daemon owns.
   */
  async send(draft: OutboxDraft<P>, nowMs: number): Promise<FlushReport | undefined> {
    await this.enqueue([draft], nowMs);
    return this.sender?.flush(new Set([draft.id]));
  }
}
