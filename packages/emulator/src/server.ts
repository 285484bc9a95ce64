import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { stringify } from "yaml";
import { accessActive } from "./billing.js";
import { handleControl } from "./control.js";
import type { Emulator } from "./emulator.js";
import { decideFault, FAULT_MESSAGES, MALFORMED_BODY } from "./faults.js";
import { HttpError, retryAfterSeconds } from "./http-error.js";
import type { KeyRecord } from "./model.js";
import { openApiDocument } from "./openapi.js";
import { matchRoute, type Route, type RouteResult, WRITE_METHODS } from "./router.js";
import { accountRoutes } from "./routes/account.js";
import { bulkRoutes } from "./routes/bulk.js";
import { changeRoutes } from "./routes/changes.js";
import { competitorRoutes } from "./routes/competitors.js";
import { employeeRoutes } from "./routes/employees.js";
import { webhookRoutes } from "./routes/webhooks.js";

const API_PREFIX = "/api/v1";
/** Bulk must be matched before /employees/:id. */
const ROUTES: readonly Route[] = [
  ...accountRoutes,
  ...bulkRoutes,
  ...employeeRoutes,
  ...changeRoutes,
  ...competitorRoutes,
  ...webhookRoutes,
];

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'Invalid parameter "body": not valid JSON.', "INVALID_BODY");
  }
}

function authenticate(em: Emulator, header: string | undefined): KeyRecord {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!match)
    throw new HttpError(401, "Missing or malformed Authorization header; send Authorization: Bearer <API_KEY>.");
  const key = em.state.keys.get(match[1] ?? "");
  if (!key || key.revoked) throw new HttpError(401, "Unknown or revoked API key.");
  return key;
}

/** Holds a response past any client timeout; `close()` of the emulator ends these. */
export const heldResponses = new WeakMap<Emulator, Set<ServerResponse>>();

async function handleApi(
  em: Emulator,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  raw: string,
  log: (status: number, keyId: string | null, responseLost?: boolean) => void,
): Promise<void> {
  em.settle();
  const fault = decideFault(em.faults, em.faultRng);
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
  const faultKeyId = presented === undefined ? null : (em.state.keys.get(presented)?.id ?? null);
  if (em.faults.latencyMs > 0) await sleep(em.faults.latencyMs);
  if (fault.kind === "status" || fault.kind === "error") {
    const status = fault.status;
    send(
      res,
      status,
      { error: FAULT_MESSAGES[status] ?? `Injected HTTP ${status}.` },
      status === 429 || status === 503 ? { "Retry-After": "1" } : {},
    );
    return log(status, faultKeyId);
  }
  if (fault.kind === "malformed") {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    res.end(MALFORMED_BODY);
    return log(200, faultKeyId);
  }
  if (fault.kind === "timeout") {
    let held = heldResponses.get(em);
    if (!held) {
      held = new Set();
      heldResponses.set(em, held);
    }
    held.add(res);
    res.on("close", () => held?.delete(res));
    await sleep(fault.delayMs, undefined, { signal: em.closing.signal }).catch(() => undefined);
    held.delete(res);
    send(res, 504, { error: FAULT_MESSAGES[504] });
    return log(504, faultKeyId);
  }
  let keyId: string | null = null;
  try {
    const key = authenticate(em, req.headers.authorization);
    keyId = key.id;
    const now = em.clock.now();
    const wait = em.limiter.take(key.id, now);
    if (wait > 0) {
      const s = retryAfterSeconds(wait);
      throw new HttpError(429, `Over ${em.limiter.perMinute} requests per minute; retry in ${s} seconds.`, undefined, {
        "Retry-After": String(s),
      });
    }
    if (!accessActive(em.account(key.organizationId), now)) {
      throw new HttpError(
        402,
        "The company has no active subscription or trial; API access is paused.",
        "SUBSCRIPTION_INACTIVE",
      );
    }
    const path = url.pathname.slice(API_PREFIX.length) || "/";
    const method = req.method ?? "GET";
    const found = matchRoute(ROUTES, method, path);
    if (!found) throw new HttpError(404, `No endpoint ${method} ${API_PREFIX}${path}.`);
    if (WRITE_METHODS.has(method) && !key.scopes.includes("write")) {
      throw new HttpError(403, "This API key is read-only; the operation needs the write scope.", "INSUFFICIENT_SCOPE");
    }
    const result: RouteResult = await found.route.handler({
      em,
      key,
      params: found.params,
      query: url.searchParams,
      body: parseJson(raw),
      now,
    });
    if (fault.kind === "lost") {
      // The operation happened; only its answer is lost, so the client cannot know it did.
      req.socket.destroy();
      return log(result.status, keyId, true);
    }
    send(res, result.status, result.body, result.headers);
    log(result.status, keyId);
  } catch (err) {
    const e = toHttpError(em, err);
    send(res, e.status, e.body(), e.headers);
    log(e.status, keyId);
  }
}

function toHttpError(em: Emulator, err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  em.config.logger.error({ err }, "emulator handler failed");
  return new HttpError(500, "Internal error in the emulator.");
}

/** The request listener: OpenAPI documents, the control API and API v1. */
export function requestListener(em: Emulator) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = Date.now();
    const url = new URL(req.url ?? "/", "http://emulator.local");
    const method = req.method ?? "GET";
    const log = (status: number, keyId: string | null, responseLost?: boolean) => {
      em.log({
        method,
        path: url.pathname,
        query: url.search,
        status,
        time: new Date(em.clock.now()).toISOString(),
        keyId,
        durationMs: Date.now() - started,
        ...(responseLost ? { responseLost } : {}),
      });
      em.config.logger.debug({ method, path: url.pathname, status, keyId }, "emulator request");
    };
    try {
      const raw = await readBody(req);
      if (url.pathname === "/openapi.json" && method === "GET") return send(res, 200, openApiDocument());
      if (url.pathname === "/openapi.yaml" && method === "GET") {
        res.writeHead(200, { "content-type": "application/yaml; charset=utf-8" });
        res.end(stringify(openApiDocument()));
        return;
      }
      if (url.pathname.startsWith("/_emulator/")) {
        const result = await handleControl(em, method, url.pathname, url.searchParams, parseJson(raw));
        return send(res, result.status, result.body, result.headers);
      }
      if (url.pathname === API_PREFIX || url.pathname.startsWith(`${API_PREFIX}/`)) {
        await handleApi(em, req, res, url, raw, log);
        return;
      }
      send(res, 404, { error: `No such path ${url.pathname}.` });
    } catch (err) {
      const e = toHttpError(em, err);
      send(res, e.status, e.body(), e.headers);
    }
  };
}
