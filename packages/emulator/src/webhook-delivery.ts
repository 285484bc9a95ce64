import { setMaxListeners } from "node:events";
import type { VirtualClock } from "./clock.js";
import type { EmulatorLogger } from "./logger.js";
import type { DeliveryRecord, WebhookEndpointRecord } from "./model.js";
import {
  AUTO_DISABLE_EVENTS,
  AUTO_DISABLE_SPAN_MS,
  DELIVERY_TIMEOUT_MS,
  MAX_RECENT_DELIVERIES,
  RETRY_DELAYS_MS,
  signatureHeader,
} from "./webhooks.js";

interface PendingAttempt {
  endpointId: string;
  eventId: string;
  eventType: string;
  rawBody: string;
  attempt: number;
  /** Virtual time the attempt is scheduled for (the retry schedule counts from here). */
  dueAt: number;
}

/**
 * Sends events to endpoints: first attempt immediately, then retries 5m/30m/2h/8h/24h on the
 * virtual clock (6 attempts), 10 s timeout, redirects never followed, auto-disable once
 * AUTO_DISABLE_EVENTS events in a row failed over at least AUTO_DISABLE_SPAN_MS, last 20 attempts
 * kept as delivery health.
 */
export class WebhookDispatcher {
  private queue: PendingAttempt[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly closing = (() => {
    const controller = new AbortController();
    // Every delivery in flight listens for close: a burst of signals has a thousand at once.
    setMaxListeners(0, controller.signal);
    return controller;
  })();
  private timer: NodeJS.Timeout | undefined;
  private nextDelivery = 1;

  constructor(
    private readonly endpoints: () => Map<string, WebhookEndpointRecord>,
    private readonly clock: VirtualClock,
    private readonly logger: EmulatorLogger,
    private readonly timeoutMs = DELIVERY_TIMEOUT_MS,
  ) {
    this.timer = setInterval(() => void this.runDue(), 1000);
    this.timer.unref();
  }

  /** Queues the first attempt of an event for an endpoint and sends it now. */
  enqueue(endpoint: WebhookEndpointRecord, eventId: string, eventType: string, rawBody: string): Promise<void> {
    const p: PendingAttempt = {
      endpointId: endpoint.id,
      eventId,
      eventType,
      rawBody,
      attempt: 1,
      dueAt: this.clock.now(),
    };
    return this.track(this.attempt(p));
  }

  /** Runs every attempt due on the virtual clock, including retries that fall due one after another. */
  async runDue(): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const due = this.queue.filter((p) => p.dueAt <= now);
      if (due.length === 0) return;
      this.queue = this.queue.filter((p) => p.dueAt > now);
      await Promise.all(due.map((p) => this.track(this.attempt(p))));
    }
  }

  /** Drops queued retries of an endpoint (disabled or deleted: deliveries stop). */
  dropEndpoint(endpointId: string): void {
    this.queue = this.queue.filter((p) => p.endpointId !== endpointId);
  }

  pending(): readonly PendingAttempt[] {
    return this.queue;
  }

  clear(): void {
    this.queue = [];
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.queue = [];
    this.closing.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  /** Waits for deliveries currently on the wire (tests and the control API). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private track(p: Promise<void>): Promise<void> {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
    return p;
  }

  private async attempt(p: PendingAttempt): Promise<void> {
    const ep = this.endpoints().get(p.endpointId);
    if (!ep?.enabled) return;
    const deliveryId = `whd_${String(this.nextDelivery++).padStart(8, "0")}`;
    const started = Date.now();
    let httpStatus: number | null = null;
    let error: string | null = null;
    // An explicit timer (not AbortSignal.timeout inside AbortSignal.any, which Node 20 may collect).
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, this.timeoutMs);
    const onClose = () => abort.abort();
    this.closing.signal.addEventListener("abort", onClose, { once: true });
    try {
      // Signature time is wall-clock time: receivers check its age against their own clock.
      const t = Math.floor(Date.now() / 1000);
      const res = await fetch(ep.url, {
        method: "POST",
        redirect: "manual",
        signal: abort.signal,
        headers: {
          "content-type": "application/json",
          "user-agent": "retention-service-emulator/1.0",
          "x-service-event": p.eventType,
          "x-service-delivery": deliveryId,
          "x-service-signature": signatureHeader(ep.secret, t, p.rawBody),
        },
        body: p.rawBody,
      });
      httpStatus = res.status;
      await res.arrayBuffer().catch(() => undefined);
      if (res.status >= 300 && res.status < 400) error = "redirect not followed";
      else if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`;
    } catch (err) {
      error = timedOut
        ? `timeout after ${Math.round(this.timeoutMs / 1000)} s`
        : `connection error: ${String((err as Error).cause ?? err)}`;
    } finally {
      clearTimeout(timer);
      this.closing.signal.removeEventListener("abort", onClose);
    }
    const now = this.clock.now();
    const record: DeliveryRecord = {
      deliveryId,
      eventId: p.eventId,
      eventType: p.eventType,
      attempt: p.attempt,
      at: new Date(now).toISOString(),
      ok: error === null,
      httpStatus,
      error,
      durationMs: Date.now() - started,
    };
    ep.recentDeliveries.unshift(record);
    ep.recentDeliveries.length = Math.min(ep.recentDeliveries.length, MAX_RECENT_DELIVERIES);
    ep.lastDeliveryAt = now;
    ep.lastStatus = error === null ? "succeeded" : "failed";
    if (error === null) {
      // Any success ends the failure streak.
      ep.consecutiveFailures = 0;
      ep.failingSince = null;
      ep.failedEventIds = [];
      return;
    }
    ep.consecutiveFailures += 1;
    ep.failingSince ??= now;
    if (!ep.failedEventIds.includes(p.eventId)) ep.failedEventIds.push(p.eventId);
    this.logger.debug({ endpoint: ep.id, eventId: p.eventId, attempt: p.attempt, error }, "webhook delivery failed");
    const events = ep.failedEventIds.length;
    if (events >= AUTO_DISABLE_EVENTS && now - ep.failingSince >= AUTO_DISABLE_SPAN_MS) {
      ep.enabled = false;
      ep.disabledReason = `disabled after ${events} events in a row failed every attempt since ${new Date(ep.failingSince).toISOString()}`;
      this.dropEndpoint(ep.id);
      return;
    }
    const delay = RETRY_DELAYS_MS[p.attempt - 1];
    if (delay !== undefined) this.queue.push({ ...p, attempt: p.attempt + 1, dueAt: p.dueAt + delay });
  }
}
