import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { WebhookSignatureError } from "../errors.js";
import { type Refuse, SERVER_LIMITS, type ServerLimits, startGuardedServer } from "../guarded-server.js";
import type { ObservedPart } from "../observed-part.js";
import type { AlertEvents } from "./alert-events.js";
import type { AlertSettings } from "./alert-settings.js";
import { eventKeyOf } from "./dedupe.js";
import type { DeliveryLedger } from "./delivery-ledger.js";
import { verifySignature } from "./verify-signature.js";
import { anyEventSchema, eventAsChangeItem, eventChangeKey, eventLens, riskEventSchema } from "./webhook-event.js";
import type { WebhookInbox } from "./webhook-inbox.js";

export const MAX_WEBHOOK_BODY_BYTES = 256 * 1024;

/** Its events tell of every refused request (the metric); the log shows them as a count per minute. */
export interface WebhookDeps extends ObservedPart<AlertEvents, Date> {
  readonly settings: AlertSettings;
  readonly ledger: DeliveryLedger;
  /** Where an accepted event is stored before the answer, and handed over behind it. */
  readonly inbox: WebhookInbox;
}

/** An answer to send, or none: the connection is gone (the client left, or a deadline cut it off). */
type Answer = { status: number; body: Record<string, unknown>; close?: boolean } | undefined;

class BodyTooLarge extends Error {}
/** The request ended before its body did: the client left, or the server cut it off (already counted). */
class ClientGone extends Error {}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > limit) throw new BodyTooLarge();
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    throw error instanceof BodyTooLarge ? error : new ClientGone();
  }
  return Buffer.concat(chunks);
}

/**
 * The webhook request handler (spec 6): verifies the signature over the raw body, validates the
 * event, drops events already handled (by event id, and by change identity shared with the poller),
 * stores the event in the inbox (one durable write) and answers 2xx; the hand-over and Slack
 * delivery follow in the background (WebhookInbox).
 * A bad or stale signature gets 401 (a malformed header 400) and nothing is processed; such
 * refusals are counted through `refuse`, not logged one by one (a flood of forged requests).
 */
export function createWebhookHandler(
  deps: WebhookDeps,
): (req: IncomingMessage, res: ServerResponse, refuse: Refuse) => void {
  const now = deps.now ?? (() => new Date());
  const logger = deps.logger.child({ component: "webhook" });

  async function handle(req: IncomingMessage, refuse: Refuse): Promise<Answer> {
    if (req.method !== "POST") {
      refuse("wrong_method");
      return { status: 405, body: { error: "use POST" } };
    }
    const raw = await readBody(req, MAX_WEBHOOK_BODY_BYTES);
    const header = req.headers["x-service-signature"];
    try {
      verifySignature({
        header: Array.isArray(header) ? header.join(",") : header,
        rawBody: raw,
        secrets: deps.settings.webhook.secrets,
        nowSeconds: Math.floor(now().getTime() / 1000),
        toleranceSeconds: deps.settings.webhook.toleranceSeconds,
      });
    } catch (error) {
      if (!(error instanceof WebhookSignatureError)) throw error;
      refuse(error.reason === "stale" ? "stale_timestamp" : "bad_signature", error.message);
      const malformed = error.reason === "malformed" || error.reason === "missing";
      return { status: malformed ? 400 : 401, body: { error: error.message } };
    }
    let json: unknown;
    try {
      json = JSON.parse(raw.toString("utf8"));
    } catch {
      return { status: 400, body: { error: "body is not JSON" } };
    }
    const envelope = anyEventSchema.safeParse(json);
    if (!envelope.success) return { status: 400, body: { error: "event without id or type" } };
    if (envelope.data.type !== "employee.warning" && envelope.data.type !== "poaching.opportunity") {
      logger.info(
        { eventId: envelope.data.id, type: envelope.data.type },
        "webhook event acknowledged (nothing to post)",
      );
      return { status: 200, body: { ok: true, ignored: envelope.data.type } };
    }
    const parsed = riskEventSchema.safeParse(json);
    if (!parsed.success) {
      logger.warn(
        { eventId: envelope.data.id, issues: parsed.error.issues.slice(0, 5) },
        "webhook event refused: invalid payload",
      );
      return { status: 400, body: { error: "invalid event payload" } };
    }
    const event = parsed.data;
    const lens = eventLens(event);
    const changeKey = eventChangeKey(event) ?? eventKeyOf(event.id);
    if (!lens) return { status: 400, body: { error: "poaching.opportunity without data.competitor" } };
    const eventKey = eventKeyOf(event.id);
    const handled = await deps.ledger.handled([eventKey, changeKey]);
    if (handled.size > 0) {
      logger.info({ eventId: event.id, changeKey }, "webhook event already handled; not posting again");
      return { status: 200, body: { ok: true, duplicate: true } };
    }
    const arrival = { item: eventAsChangeItem(event, changeKey, now()), lens, keys: [eventKey, changeKey] };
    // The one durable write before the answer: the hand-over (enrichment, routing, Slack) follows it.
    if (!(await deps.inbox.accept(eventKey, arrival))) {
      logger.info({ eventId: event.id, changeKey }, "webhook event already waiting; not queued again");
      return { status: 200, body: { ok: true, duplicate: true } };
    }
    logger.info({ eventId: event.id, changeKey }, "webhook event queued");
    return { status: 202, body: { ok: true, queued: true } };
  }

  return (req, res, refuse) => {
    handle(req, refuse)
      .catch((error: unknown): Answer => {
        if (error instanceof ClientGone) return undefined;
        if (error instanceof BodyTooLarge) {
          refuse("too_large");
          // The rest of the body is not read: the connection closes after the answer.
          return { status: 413, body: { error: "body too large" }, close: true };
        }
        logger.error({ err: error }, "webhook delivery could not be stored; the service will retry it");
        return { status: 500, body: { error: "internal error" } };
      })
      .then((answer) => {
        if (answer === undefined || res.destroyed) return;
        res.writeHead(answer.status, {
          "content-type": "application/json",
          ...(answer.close ? { connection: "close" } : {}),
        });
        res.end(JSON.stringify(answer.body));
        if (answer.status === 202) void deps.inbox.drain();
      });
  };
}

export interface WebhookReceiver {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** The path of a request target (absolute form too); undefined for one that is not a URL (never a throw). */
function pathnameOf(target: string | undefined): string | undefined {
  try {
    return new URL(target ?? "/", "http://receiver").pathname;
  } catch {
    return undefined;
  }
}

/**
 * Serves the handler on `host:port` at `path` (TLS is terminated in front of it), with
 * SERVER_LIMITS (a slow request is cut off well within the service's 10 s) and
 * `alerts.webhook.maxConnections`.
 */
export async function startWebhookReceiver(
  options: {
    host: string;
    port: number;
    path: string;
    maxConnections: number;
    /** Tests: shorter deadlines, fewer connections. */
    limits?: Partial<ServerLimits> | undefined;
  },
  deps: WebhookDeps,
): Promise<WebhookReceiver> {
  const handler = createWebhookHandler(deps);
  const guarded = await startGuardedServer({
    name: "webhook",
    host: options.host,
    port: options.port,
    limits: { ...SERVER_LIMITS, maxConnections: options.maxConnections, ...options.limits },
    logger: deps.logger.child({ component: "webhook" }),
    onRefused: (reason) => deps.events?.emit("webhook-refused", { reason }),
    handle: (req, res, refuse) => {
      if (pathnameOf(req.url) !== options.path) {
        refuse("wrong_path");
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "not found" }));
        return;
      }
      handler(req, res, refuse);
    },
  });
  return { url: `${guarded.origin}${options.path}`, server: guarded.server, close: () => guarded.close() };
}
