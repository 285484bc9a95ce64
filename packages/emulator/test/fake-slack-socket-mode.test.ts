import { type Logger, LogLevel, SocketModeClient } from "@slack/socket-mode";
import { WebClient } from "@slack/web-api";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeSlack, type FakeSlackOptions, startFakeSlack } from "../src/fake-slack-server.js";
import { connectPlain, type PlainSocketClient, refusedStatus } from "./support/socket-client.js";

let slack: FakeSlack | undefined;
const plainClients: PlainSocketClient[] = [];
const realClients: SocketModeClient[] = [];

async function start(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  slack = await startFakeSlack(options);
  return slack;
}

afterEach(async () => {
  for (const client of realClients.splice(0)) await client.disconnect();
  for (const client of plainClients.splice(0)) await client.close();
  await slack?.close();
  slack = undefined;
});

function web(fake: FakeSlack, token: string): WebClient {
  return new WebClient(token, { slackApiUrl: fake.url, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR });
}

async function openUrl(fake: FakeSlack): Promise<string> {
  const answer = await web(fake, fake.appToken).apps.connections.open({});
  return answer.url ?? "";
}

async function plain(fake: FakeSlack): Promise<PlainSocketClient> {
  const client = await connectPlain(await openUrl(fake));
  plainClients.push(client);
  return client;
}

/** The real client's own logger would print to the console; its lines are kept here instead. */
function quietLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  let level = LogLevel.DEBUG;
  const keep = (...msg: unknown[]) => {
    lines.push(msg.map(String).join(" "));
  };
  return {
    lines,
    debug: keep,
    info: keep,
    warn: keep,
    error: keep,
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

/** The real @slack/socket-mode client against the fake; a 1 s ping timeout makes it reconnect after 1 s. */
function realClient(fake: FakeSlack): SocketModeClient {
  const client = new SocketModeClient({
    appToken: fake.appToken,
    logger: quietLogger(),
    clientPingTimeout: 1000,
    clientOptions: { slackApiUrl: fake.url },
  });
  realClients.push(client);
  return client;
}

describe("apps.connections.open", () => {
  it("takes only the app-level token, and the app-level token opens nothing else", async () => {
    const fake = await start({ appToken: "xapp-1-A0FAKE0001-1-abcdef0123456789" });
    expect(fake.appToken).toBe("xapp-1-A0FAKE0001-1-abcdef0123456789");
    await expect(web(fake, fake.token).apps.connections.open({})).rejects.toMatchObject({
      data: { error: "not_allowed_token_type" },
    });
    await expect(web(fake, "xapp-1-A0FAKE0001-1-wrong").apps.connections.open({})).rejects.toMatchObject({
      data: { error: "invalid_auth" },
    });
    await expect(web(fake, fake.appToken).chat.postMessage({ channel: "#general", text: "x" })).rejects.toMatchObject({
      data: { error: "not_allowed_token_type" },
    });
    const url = await openUrl(fake);
    expect(url).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${new URL(fake.url).port}/link/\\?ticket=[0-9a-f]{16,}$`));
    expect(await openUrl(fake)).not.toBe(url);
    expect(fake.calls.map((c) => [c.method, c.error])).toEqual([
      ["apps.connections.open", "not_allowed_token_type"],
      ["apps.connections.open", "invalid_auth"],
      ["chat.postMessage", "not_allowed_token_type"],
      ["apps.connections.open", undefined],
      ["apps.connections.open", undefined],
    ]);
  });

  it("a default app token looks like Slack's and differs between fakes", async () => {
    const first = await start();
    const other = await startFakeSlack();
    try {
      expect(first.appToken).toMatch(/^xapp-1-A0FAKE0001-\d+-[0-9a-f]{64}$/);
      expect(other.appToken).not.toBe(first.appToken);
      expect(first.signingSecret).toMatch(/^[0-9a-f]{32}$/);
      expect(other.signingSecret).not.toBe(first.signingSecret);
    } finally {
      await other.close();
    }
  });

  it("each ticket opens one connection; another path or a made-up ticket is refused", async () => {
    const fake = await start();
    const url = await openUrl(fake);
    const client = await connectPlain(url);
    plainClients.push(client);
    expect(await client.next()).toMatchObject({ type: "hello" });
    expect(await refusedStatus(url)).toBe(401);
    expect(await refusedStatus(url.replace(/ticket=[0-9a-f]+/, "ticket=0123456789abcdef"))).toBe(401);
    expect(await refusedStatus(url.replace("/link/", "/other/"))).toBe(404);
    expect(fake.socketConnections()).toBe(1);
    expect(fake.socketEvents().filter((e) => e.kind === "rejected")).toEqual([
      { kind: "rejected", reason: "bad_ticket" },
      { kind: "rejected", reason: "bad_ticket" },
      { kind: "rejected", reason: "wrong_path" },
    ]);
  });
});

describe("the wire, with a plain ws client", () => {
  it("says hello with the number of connections, the app id and debug info", async () => {
    const fake = await start();
    const first = await plain(fake);
    expect(await first.next()).toEqual({
      type: "hello",
      num_connections: 1,
      connection_info: { app_id: "A0FAKE0001" },
      debug_info: expect.objectContaining({ host: expect.any(String) }),
    });
    const second = await plain(fake);
    expect(await second.next()).toMatchObject({ type: "hello", num_connections: 2 });
    await fake.waitForSocketConnection(2);
    expect(fake.socketConnections()).toBe(2);
  });

  it("sends an envelope as Slack does and records the ack and its payload", async () => {
    const fake = await start();
    const client = await plain(fake);
    await fake.waitForSocketConnection();
    const sent = fake.sendEnvelope({ type: "events_api", payload: { event: { type: "app_mention" } } });
    const frame = await client.nextEnvelope();
    expect(frame).toEqual({
      envelope_id: sent.envelopeId,
      type: "events_api",
      payload: { event: { type: "app_mention" } },
      accepts_response_payload: false,
      retry_attempt: 0,
      retry_reason: "",
    });
    expect(sent).toMatchObject({ attempts: 1, acked: false });
    client.ack(sent.envelopeId, { text: "thanks" });
    const acked = await fake.waitForAck(sent.envelopeId);
    expect(acked).toBe(sent);
    expect(acked).toMatchObject({ acked: true, attempts: 1, ackPayload: { text: "thanks" } });
    expect(fake.envelopes()).toEqual([sent]);
    await expect(fake.waitForAck("no-such-envelope")).rejects.toThrow(/no envelope/);
  });

  it("a slash command accepts a response payload; an ack without payload records none", async () => {
    const fake = await start();
    const client = await plain(fake);
    await fake.waitForSocketConnection();
    const sent = fake.sendEnvelope({ type: "slash_commands", payload: { command: "/rs" }, envelopeId: "env-1" });
    expect(await client.nextEnvelope()).toMatchObject({ envelope_id: "env-1", accepts_response_payload: true });
    client.ack("env-1");
    expect(await fake.waitForAck("env-1")).not.toHaveProperty("ackPayload");
    expect(() => fake.sendEnvelope({ type: "slash_commands", payload: {}, envelopeId: "env-1" })).toThrow(/already/);
    expect(sent.acked).toBe(true);
  });

  it("sends an unacked envelope again, at most socketMaxRetries times, with retry_attempt and retry_reason", async () => {
    const fake = await start({ socketResendAfterMs: 20, socketMaxRetries: 2 });
    const client = await plain(fake);
    await fake.waitForSocketConnection();
    const sent = fake.sendEnvelope({ type: "interactive", payload: { type: "block_actions" } });
    const frames = [await client.nextEnvelope(), await client.nextEnvelope(), await client.nextEnvelope()];
    expect(frames.map((f) => [f.envelope_id, f.retry_attempt, f.retry_reason])).toEqual([
      [sent.envelopeId, 0, ""],
      [sent.envelopeId, 1, "timeout"],
      [sent.envelopeId, 2, "timeout"],
    ]);
    // A later envelope's two resends are due after the fourth send the first would have had.
    const later = fake.sendEnvelope({ type: "interactive", payload: { type: "block_actions" } });
    const laterFrames = [await client.nextEnvelope(), await client.nextEnvelope(), await client.nextEnvelope()];
    expect(laterFrames.map((f) => f.envelope_id)).toEqual([later.envelopeId, later.envelopeId, later.envelopeId]);
    expect(sent).toMatchObject({ attempts: 3, acked: false });
    expect(later.attempts).toBe(3);
  });

  it("an envelope acked after a resend is acked once", async () => {
    const fake = await start({ socketResendAfterMs: 20, socketMaxRetries: 1 });
    const client = await plain(fake);
    await fake.waitForSocketConnection();
    const sent = fake.sendEnvelope({ type: "interactive", payload: {} });
    await client.nextEnvelope();
    expect(await client.nextEnvelope()).toMatchObject({ retry_attempt: 1, retry_reason: "timeout" });
    client.ack(sent.envelopeId, { first: true });
    client.ack(sent.envelopeId, { second: true });
    // frames are handled in order: once the barrier's ack is in, both acks above are too
    const barrier = fake.sendEnvelope({ type: "events_api", payload: {} });
    client.ack((await client.nextEnvelope()).envelope_id as string);
    await fake.waitForAck(barrier.envelopeId);
    expect(sent).toMatchObject({ acked: true, attempts: 2, ackPayload: { first: true } });
    const acks = fake.socketEvents().filter((e) => e.kind === "ack" && e.envelopeId === sent.envelopeId);
    expect(acks.map((e) => (e.kind === "ack" ? e.duplicate : undefined))).toEqual([false, true]);
  });

  it("goes round robin over two connections", async () => {
    const fake = await start();
    const a = await plain(fake);
    const b = await plain(fake);
    await fake.waitForSocketConnection(2);
    const sent = [1, 2, 3, 4].map((n) => fake.sendEnvelope({ type: "events_api", payload: { n } }));
    const fromA = [await a.nextEnvelope(), await a.nextEnvelope()];
    const fromB = [await b.nextEnvelope(), await b.nextEnvelope()];
    for (const frame of [...fromA, ...fromB]) (fromA.includes(frame) ? a : b).ack(frame.envelope_id as string);
    await Promise.all(sent.map((e) => fake.waitForAck(e.envelopeId)));
    expect(fromA.map((f) => f.payload)).toEqual([{ n: 1 }, { n: 3 }]);
    expect(fromB.map((f) => f.payload)).toEqual([{ n: 2 }, { n: 4 }]);
    const deliveries = fake.socketEvents().flatMap((e) => (e.kind === "envelope" ? [e.connection] : []));
    expect(deliveries).toEqual([1, 2, 1, 2]);
  });

  it("keeps envelopes sent with no connection open and delivers them on connect", async () => {
    const fake = await start();
    const waiting = fake.sendEnvelope({ type: "events_api", payload: { queued: true } });
    expect(waiting.attempts).toBe(0);
    const client = await plain(fake);
    expect(await client.next()).toMatchObject({ type: "hello" });
    expect(await client.next()).toMatchObject({ envelope_id: waiting.envelopeId, retry_attempt: 0, retry_reason: "" });
    expect(waiting.attempts).toBe(1);
  });

  it("drops connections without a word and sends the unacked envelope to the next connection", async () => {
    const fake = await start({ socketResendAfterMs: 20 });
    const first = await plain(fake);
    await fake.waitForSocketConnection();
    const sent = fake.sendEnvelope({ type: "interactive", payload: {} });
    await first.nextEnvelope();
    fake.dropSocketConnections();
    expect(fake.socketConnections()).toBe(0);
    await expect(first.next()).rejects.toThrow(/closed/);
    expect(first.frames.some((f) => f.type === "disconnect")).toBe(false);
    const second = await plain(fake);
    const again = await second.nextEnvelope();
    expect(again).toMatchObject({ envelope_id: sent.envelopeId, retry_reason: "timeout" });
    expect(again.retry_attempt).toBeGreaterThanOrEqual(1);
    second.ack(sent.envelopeId);
    expect(await fake.waitForAck(sent.envelopeId)).toMatchObject({ acked: true });
  });

  it("asks for a refresh with disconnect refresh_requested and routes nothing more to that connection", async () => {
    const fake = await start();
    const old = await plain(fake);
    await fake.waitForSocketConnection();
    fake.requestSocketRefresh();
    await old.next(); // hello
    expect(await old.next()).toEqual({
      type: "disconnect",
      reason: "refresh_requested",
      debug_info: expect.objectContaining({ host: expect.any(String) }),
    });
    expect(fake.socketConnections()).toBe(0);
    const sent = fake.sendEnvelope({ type: "events_api", payload: {} });
    expect(sent.attempts).toBe(0);
    const fresh = await plain(fake);
    expect(await fresh.nextEnvelope()).toMatchObject({ envelope_id: sent.envelopeId });
    expect(old.frames.filter((f) => f.envelope_id !== undefined)).toEqual([]);
  });

  it("close() closes the sockets too", async () => {
    const fake = await start();
    const client = await plain(fake);
    await fake.waitForSocketConnection();
    await fake.close();
    slack = undefined;
    await expect(client.next().then(() => client.next())).rejects.toThrow(/closed/);
  });
});

describe("the real @slack/socket-mode client", () => {
  it("connects, gets an interactive envelope and acks it", async () => {
    const fake = await start();
    const client = realClient(fake);
    const received: Array<{ body: unknown; envelope_id: string }> = [];
    client.on("interactive", async ({ ack, body, envelope_id }) => {
      received.push({ body, envelope_id });
      await ack();
    });
    await client.start();
    await fake.waitForSocketConnection();
    const sent = fake.sendEnvelope({ type: "interactive", payload: { type: "block_actions", actions: [] } });
    const acked = await fake.waitForAck(sent.envelopeId);
    expect(received).toEqual([{ body: { type: "block_actions", actions: [] }, envelope_id: sent.envelopeId }]);
    // the SDK always sends a payload with its ack, {} when ack() is given nothing
    expect(acked).toMatchObject({ acked: true, attempts: 1, ackPayload: {} });
    expect(fake.calls.map((c) => c.method)).toEqual(["apps.connections.open"]);
  });

  it("reconnects after a network loss and gets the unacked envelope again", async () => {
    const fake = await start({ socketResendAfterMs: 50 });
    const client = realClient(fake);
    const deliveries: Array<{ retry_num: unknown; retry_reason: unknown }> = [];
    client.on("slack_event", async ({ ack, retry_num, retry_reason }) => {
      deliveries.push({ retry_num, retry_reason });
      // the network goes down before the first delivery is acked
      if (deliveries.length === 1) fake.dropSocketConnections();
      else await ack();
    });
    await client.start();
    await fake.waitForSocketConnection();
    const sent = fake.sendEnvelope({ type: "events_api", payload: { event: { type: "app_mention" } } });
    await fake.waitForAck(sent.envelopeId);
    expect(deliveries).toHaveLength(2);
    expect(deliveries[0]).toEqual({ retry_num: 0, retry_reason: "" });
    expect(deliveries[1]).toMatchObject({ retry_reason: "timeout" });
    expect(fake.calls.map((c) => c.method)).toEqual(["apps.connections.open", "apps.connections.open"]);
    const kinds = fake.socketEvents().map((e) => e.kind);
    expect(kinds.filter((k) => k === "open")).toHaveLength(2);
    expect(kinds).toContain("dropped");
  });

  it("reconnects when Slack asks for a refresh", async () => {
    const fake = await start();
    const client = realClient(fake);
    const acked: string[] = [];
    // the SDK emits an events_api envelope under its event's type, and every envelope as slack_event
    client.on("app_mention", async ({ ack, envelope_id }) => {
      await ack();
      acked.push(envelope_id);
    });
    await client.start();
    await fake.waitForSocketConnection();
    fake.requestSocketRefresh();
    await fake.waitForSocketConnection();
    const sent = fake.sendEnvelope({ type: "events_api", payload: { event: { type: "app_mention" } } });
    await fake.waitForAck(sent.envelopeId);
    const events = fake.socketEvents();
    expect(events).toContainEqual({ kind: "disconnect", connection: 1, reason: "refresh_requested" });
    // the client closed the old connection itself, before the fake's grace ran out
    expect(events).toContainEqual({ kind: "close", connection: 1 });
    expect(events).toContainEqual(
      expect.objectContaining({ kind: "envelope", connection: 2, envelopeId: sent.envelopeId }),
    );
    expect(fake.calls.filter((c) => c.method === "apps.connections.open")).toHaveLength(2);
  });
});
