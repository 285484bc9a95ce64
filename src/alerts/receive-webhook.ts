import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Employee } from "../api/spec-records.js";
import type { DeliveryService } from "../delivery/delivery-service.js";
import { WebhookSignatureError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Alert } from "./alert.js";
import { eventKeyOf } from "./dedupe.js";
import { ChangeEnricher, type HrisLookup } from "./enrich.js";
import { type HandOverDeps, handOver } from "./hand-over.js";
import { verifySignature } from "./verify-signature.js";
import { anyEventSchema, eventAsChangeItem, eventChangeKey, eventLens, riskEventSchema } from "./webhook-event.js";

export const MAX_WEBHOOK_BODY_BYTES = 256 * 1024;
/** Employee details for a reduced payload are fetched only if they come this fast: the service waits 10 s at most. */
const ENRICH_BUDGET_MS = 2000;

export interface WebhookDeps extends HandOverDeps {
  readonly delivery: DeliveryService<Alert>;
  readonly getEmployee?: ((id: number) => Promise<Employee>) | undefined;
  readonly hris?: HrisLookup | undefined;
  readonly logger: Logger;
  readonly now?: () => Date;
}

type Answer = { status: number; body: Record<string, unknown> };

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function withBudget<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The webhook request handler (spec 6): verifies the signature over the raw body, validates the
 * event, drops events already handled (by event id, and by change identity shared with the poller),
 * puts the alert in the outbox and answers 2xx at once; Slack delivery follows in the background.
 * A bad or stale signature gets 401 (a malformed header 400) and nothing is processed.
 */
export function createWebhookHandler(deps: WebhookDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const now = deps.now ?? (() => new Date());
  const logger = deps.logger.child({ component: "webhook" });

  async function handle(req: IncomingMessage): Promise<Answer> {
    if (req.method !== "POST") return { status: 405, body: { error: "use POST" } };
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
      logger.warn({ reason: error.reason, detail: error.message }, "webhook delivery refused: bad signature");
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

    const getEmployee = deps.getEmployee;
    const enricher = new ChangeEnricher({
      getEmployee: (id) =>
        getEmployee ? withBudget(getEmployee(id), ENRICH_BUDGET_MS) : Promise.reject(new Error("no API client")),
      hris: deps.hris,
      dashboardUrl: deps.settings.dashboardUrl,
      logger,
    });
    const received = now();
    const handed = await handOver(deps, {
      arrivals: [{ item: eventAsChangeItem(event, changeKey, received), lens, keys: [eventKey, changeKey] }],
      enricher,
      cursors: {},
      nowMs: received.getTime(),
      dryRun: false,
    });
    if (handed.fresh.length === 0) {
      logger.info({ eventId: event.id, changeKey }, "webhook event already handled; not posting again");
      return { status: 200, body: { ok: true, duplicate: true } };
    }
    if (handed.plan.unrouted.length > 0) {
      logger.warn(
        { eventId: event.id, changeKey },
        "webhook event matched no route and no catch-all is set (slack.channel / SLACK_CHANNEL): not posted",
      );
    }
    logger.info(
      { eventId: event.id, changeKey, channels: Object.keys(handed.plan.perChannel) },
      "webhook event queued",
    );
    return { status: 202, body: { ok: true, queued: handed.plan.drafts.length } };
  }

  return (req, res) => {
    handle(req)
      .catch((error: unknown): Answer => {
        if (error instanceof BodyTooLarge) return { status: 413, body: { error: "body too large" } };
        logger.error({ err: error }, "webhook delivery could not be stored; the service will retry it");
        return { status: 500, body: { error: "internal error" } };
      })
      .then((answer) => {
        res.writeHead(answer.status, { "content-type": "application/json" });
        res.end(JSON.stringify(answer.body));
        if (answer.status === 202) {
          deps.delivery
            .flush()
            .catch((error: unknown) => logger.error({ err: error }, "outbox flush after webhook failed"));
        }
      });
  };
}

export interface WebhookReceiver {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** Serves the handler on `host:port` at `path` (TLS is terminated in front of it). */
export async function startWebhookReceiver(
  options: { host: string; port: number; path: string },
  deps: WebhookDeps,
): Promise<WebhookReceiver> {
  const handler = createWebhookHandler(deps);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://receiver").pathname;
    if (path !== options.path) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "not found" }));
      return;
    }
    handler(req, res);
  });
  server.requestTimeout = 10_000;
  server.listen(options.port, options.host);
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const host = options.host === "0.0.0.0" ? "127.0.0.1" : options.host;
  return {
    url: `http://${host}:${port}${options.path}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
