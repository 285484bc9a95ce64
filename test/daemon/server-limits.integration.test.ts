/**
 * Slow and excess clients on the daemon's two HTTP servers (the ops server, which also serves
 * Slack's HTTP interactivity, and the webhook receiver): a request that does not fully arrive in
 * time is answered 408 and its connection closed, connections over the cap are closed when
 * accepted, keep-alive ends, and a normal request is served afterwards; every refusal is counted. The servers run with
 * short deadlines here (the production figures are checked on the servers themselves at the
 * end); every wait is bounded and ends as soon as the server acts.
 */
import type { Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { AlertEvents } from "../../src/alerts/alert-events.js";
import { alertSettings } from "../../src/alerts/alert-settings.js";
import { DeliveryLedger } from "../../src/alerts/delivery-ledger.js";
import { startWebhookReceiver, type WebhookDeps } from "../../src/alerts/receive-webhook.js";
import { computeSignature } from "../../src/alerts/verify-signature.js";
import type { WebhookInbox } from "../../src/alerts/webhook-inbox.js";
import { configSchema } from "../../src/config/schema.js";
import { HealthMonitor } from "../../src/daemon/health-monitor.js";
import { createMetrics } from "../../src/daemon/metrics.js";
import { startOpsServer } from "../../src/daemon/ops-server.js";
import type { ServerLimits } from "../../src/guarded-server.js";
import { slackInteractivityHandler } from "../../src/interactive/http-endpoint.js";
import type { RefusalReason } from "../../src/refusal-tally.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";
import { captureLogs } from "../helpers/capture-logs.js";
import { registerSecret } from "../helpers/known-secrets.js";
import { type RawClient, rawConnect, trickle } from "../helpers/raw-client.js";

const WEBHOOK_SECRET = "whsec_slow_clients_test_0001";
const SIGNING_SECRET = "slack_signing_slow_clients_0001";
registerSecret(WEBHOOK_SECRET, "slow-clients webhook secret");
registerSecret(SIGNING_SECRET, "slow-clients Slack signing secret");

/** Short deadlines, so a cut-off comes within about a second; the tests never measure it. */
const SHORT: ServerLimits = {
  headersMs: 1_000,
  requestMs: 1_000,
  checkEveryMs: 50,
  keepAliveMs: 1_000,
  maxRequestsPerSocket: 3,
  maxConnections: 50,
};
/** A bound on every wait for the server to act: far above the deadlines above, only a safety net. */
const SAFETY_MS = 15_000;
const TRICKLE = { everyMs: 100, maxPieces: 150 };

interface Started {
  readonly server: Server;
  readonly origin: string;
  /** A complete request the server answers 200. */
  readonly normalRequest: () => string;
  /** The start of a POST whose body the server reads before answering (Content-Length: 100000). */
  readonly slowBodyHead: string;
  readonly refused: () => Promise<RefusalReason[]>;
  readonly errorLines: () => number;
  close(): Promise<void>;
}

interface Kind {
  readonly name: string;
  start(limits: Partial<ServerLimits>): Promise<Started>;
}

const opsServer: Kind = {
  name: "ops server",
  async start(limits) {
    const logs = captureLogs({ level: "info" });
    const metrics = createMetrics();
    const ops = await startOpsServer({
      host: "127.0.0.1",
      port: 0,
      health: new HealthMonitor(300_000),
      metrics,
      logger: logs.logger,
      routes: {
        "/slack/interactivity": slackInteractivityHandler({
          signingSecret: SIGNING_SECRET,
          logger: logs.logger,
          leading: () => true,
          receive: async () => undefined,
        }),
      },
      limits,
    });
    return {
      server: ops.server,
      origin: ops.url,
      normalRequest: () => "GET /livez HTTP/1.1\r\nHost: ops\r\n\r\n",
      slowBodyHead:
        "POST /slack/interactivity HTTP/1.1\r\nHost: ops\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\npayload=",
      refused: async () =>
        (await metrics.requestsRefused.get()).values.flatMap((v) =>
          Array<RefusalReason>(v.value).fill(v.labels.reason as RefusalReason),
        ),
      errorLines: () => logs.records().filter((r) => Number(r.level) >= 50).length,
      close: () => ops.close(),
    };
  },
};

/** Ledger and inbox are never reached by these requests (refusals and a signed ping). */
const unreachable = new Proxy({} as WebhookInbox, {
  get() {
    throw new Error("a refused request or a ping reached the inbox");
  },
});

let stores: StateStore[] = [];

const webhookReceiver: Kind = {
  name: "webhook receiver",
  async start(limits) {
    const logs = captureLogs({ level: "info" });
    const store = await openStateStore(":memory:");
    stores.push(store);
    const refused: RefusalReason[] = [];
    const config = configSchema.parse({ alerts: { webhook: { secrets: [WEBHOOK_SECRET] } } });
    const events = new AlertEvents();
    events.on("webhook-refused", ({ reason }) => refused.push(reason));
    const deps: WebhookDeps = {
      settings: alertSettings(config),
      ledger: new DeliveryLedger(store, 60_000),
      inbox: unreachable,
      logger: logs.logger,
      events,
    };
    const receiver = await startWebhookReceiver(
      { host: "127.0.0.1", port: 0, path: "/hook", maxConnections: config.alerts.webhook.maxConnections, limits },
      deps,
    );
    return {
      server: receiver.server,
      origin: new URL(receiver.url).origin,
      normalRequest: () => {
        const body = JSON.stringify({ id: "evt_ping_slow", type: "ping", createdAt: new Date().toISOString() });
        const t = Math.floor(Date.now() / 1000);
        return [
          "POST /hook HTTP/1.1",
          "Host: receiver",
          "Content-Type: application/json",
          `Content-Length: ${Buffer.byteLength(body)}`,
          `X-Service-Signature: t=${t},v1=${computeSignature(WEBHOOK_SECRET, t, body)}`,
          "",
          body,
        ].join("\r\n");
      },
      slowBodyHead: `POST /hook HTTP/1.1\r\nHost: receiver\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nX-Service-Signature: t=1,v1=${"0".repeat(64)}\r\n\r\n{`,
      refused: async () => [...refused],
      errorLines: () => logs.records().filter((r) => Number(r.level) >= 50).length,
      close: () => receiver.close(),
    };
  },
};

let running: Started[] = [];
let clients: RawClient[] = [];

afterEach(async () => {
  for (const client of clients) client.destroy();
  clients = [];
  for (const server of running) await server.close();
  running = [];
  for (const store of stores) await store.close();
  stores = [];
});

async function start(kind: Kind, limits: Partial<ServerLimits>): Promise<Started> {
  const started = await kind.start(limits);
  running.push(started);
  return started;
}

async function client(origin: string): Promise<RawClient> {
  const c = await rawConnect(origin);
  clients.push(c);
  return c;
}

/** Sends the server's normal request on a new connection; the status line of its answer. */
async function served(server: Started): Promise<string> {
  const c = await client(server.origin);
  c.socket.write(server.normalRequest());
  await c.whenReceived("\r\n", SAFETY_MS);
  return c.received().split("\r\n")[0] ?? "";
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const connections = (server: Server) =>
  new Promise<number>((resolve, reject) => server.getConnections((error, n) => (error ? reject(error) : resolve(n))));

describe.each([opsServer, webhookReceiver])("$name", (kind) => {
  it("answers 408 and closes the connection of a client sending its headers slowly, then serves a normal request", async () => {
    const server = await start(kind, SHORT);
    const slow = await client(server.origin);
    const closedByServer = await trickle(slow, "GET /livez HTTP/1.1\r\nHost: x\r\n", "X-Slow: 1\r\n", TRICKLE);
    expect(closedByServer).toBe(true);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(await served(server)).toBe("HTTP/1.1 200 OK");
    expect(await server.refused()).toEqual(["slow_client"]);
  });

  it("answers 408 and closes the connection of a client sending its body slowly, then serves a normal request", async () => {
    const server = await start(kind, SHORT);
    const slow = await client(server.origin);
    const closedByServer = await trickle(slow, server.slowBodyHead, "a", TRICKLE);
    expect(closedByServer).toBe(true);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(await served(server)).toBe("HTTP/1.1 200 OK");
    expect(await server.refused()).toEqual(["slow_client"]);
    // The handler reading the body sees the connection end: nothing failed, nothing to retry.
    expect(server.errorLines()).toBe(0);
  });

  it("closes connections beyond the cap as soon as they are accepted, and serves again once the others are gone", async () => {
    // Long deadlines: the held connections stay while the test looks.
    const server = await start(kind, { ...SHORT, headersMs: 60_000, requestMs: 60_000, maxConnections: 5 });
    const held: RawClient[] = [];
    for (let i = 0; i < 5; i += 1) held.push(await client(server.origin));
    await until(async () => (await connections(server.server)) === 5, "the server to hold 5 connections");
    const excess: RawClient[] = [];
    for (let i = 0; i < 3; i += 1) excess.push(await client(server.origin));
    for (const c of excess) expect(await c.whenClosed(SAFETY_MS)).toBe(true);
    expect(excess.map((c) => c.received())).toEqual(["", "", ""]);
    expect(held.filter((c) => c.closed())).toHaveLength(0);
    expect(await server.refused()).toEqual(["too_many_connections", "too_many_connections", "too_many_connections"]);

    for (const c of held) c.destroy();
    await until(async () => (await connections(server.server)) === 0, "the held connections to be gone");
    expect(await served(server)).toBe("HTTP/1.1 200 OK");
  });

  it("tells a keep-alive connection to close after its last allowed request, and closes an idle one", async () => {
    const server = await start(kind, SHORT);
    const busy = await client(server.origin);
    for (let i = 1; i <= 3; i += 1) {
      busy.socket.write(server.normalRequest());
      await until(() => busy.received().split("HTTP/1.1 200 OK").length - 1 === i || busy.closed(), `answer ${i}`);
    }
    expect(await busy.whenClosed(SAFETY_MS)).toBe(true);
    expect(busy.received().split("HTTP/1.1 200 OK")).toHaveLength(4);
    expect(busy.received().toLowerCase()).toContain("connection: close");

    const idle = await client(server.origin);
    idle.socket.write(server.normalRequest());
    expect(await idle.whenReceived("HTTP/1.1 200 OK", SAFETY_MS)).toBe(true);
    expect(await idle.whenClosed(SAFETY_MS)).toBe(true);
    expect(await server.refused()).toEqual([]);
  });

  it("runs with the production limits unless a test shortens them", async () => {
    const server = await start(kind, {});
    expect({
      headersTimeout: server.server.headersTimeout,
      requestTimeout: server.server.requestTimeout,
      checkEvery: (server.server as Server & { connectionsCheckingInterval?: number }).connectionsCheckingInterval,
      keepAliveTimeout: server.server.keepAliveTimeout,
      maxRequestsPerSocket: server.server.maxRequestsPerSocket,
      maxConnections: server.server.maxConnections,
    }).toEqual({
      headersTimeout: 5_000,
      requestTimeout: 5_000,
      checkEvery: 500,
      keepAliveTimeout: 5_000,
      maxRequestsPerSocket: 1_000,
      maxConnections: kind === opsServer ? 100 : 1_000,
    });
  });
});

describe("webhook receiver: odd requests", () => {
  it("answers 404 to a target that is not a URL and keeps serving", async () => {
    const server = await start(webhookReceiver, SHORT);
    const odd = await client(server.origin);
    odd.socket.write("POST http://[ HTTP/1.1\r\nHost: receiver\r\nContent-Length: 0\r\n\r\n");
    expect(await odd.whenReceived("\r\n", SAFETY_MS)).toBe(true);
    expect(odd.received()).toMatch(/^HTTP\/1\.1 404 /);
    expect(await served(server)).toBe("HTTP/1.1 200 OK");
    expect(await server.refused()).toEqual(["wrong_path"]);
  });

  it("answers 413 to a body declared larger than 256 KB without reading it, and closes the connection", async () => {
    const server = await start(webhookReceiver, SHORT);
    const big = await client(server.origin);
    big.socket.write(`POST /hook HTTP/1.1\r\nHost: receiver\r\nContent-Length: ${300 * 1024}\r\n\r\n`);
    expect(await big.whenClosed(SAFETY_MS)).toBe(true);
    expect(big.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(await server.refused()).toEqual(["too_large"]);
  });
});
