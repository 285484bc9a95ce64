import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type FakeSlackFailure,
  FakeSlackFailures,
  type FakeSlackFaults,
  type FakeSlackRateLimit,
} from "./fake-slack-failures.js";
import { createInteractivity, type FakeSlackInteractivity } from "./fake-slack-interactions.js";
import { defaultAppToken, type FakeSlackSocketMode, SocketModeHub } from "./fake-slack-socket-mode.js";
import { type FakeSlackAnswer, type FakeSlackChannel, type FakeSlackMessage, failAnswer } from "./fake-slack-types.js";
import { answerWebApi, BOT_USER_ID, type FakeSlackWorkspace } from "./fake-slack-web-api.js";

export type { FakeSlackFailure, FakeSlackFaults, FakeSlackRateLimit } from "./fake-slack-failures.js";
export type {
  FakeButtonPress,
  FakeSlackEphemeral,
  FakeSlackInteractivity,
  FakeSlackUpdate,
} from "./fake-slack-interactions.js";
export type {
  FakeSlackSocketMode,
  FakeSocketEnvelope,
  FakeSocketEnvelopeType,
  FakeSocketEvent,
} from "./fake-slack-socket-mode.js";
export type { FakeSlackChannel, FakeSlackMessage } from "./fake-slack-types.js";

/**
 * A local Slack Web API server on 127.0.0.1: the demo's Slack sink and the tests' fake Slack. It speaks the wire format
 * @slack/web-api really uses: `POST /api/<method>` with a form-urlencoded body (nested values
 * JSON-encoded) and `Authorization: Bearer <token>`; JSON bodies and a `token` body field are
 * accepted too, like the real API. Every call is recorded; failures can be injected.
 * Socket Mode (`/link/` WebSocket) and interactivity live in fake-slack-socket-mode.ts and
 * fake-slack-interactions.ts, the methods in fake-slack-web-api.ts, the injected failures in
 * fake-slack-failures.ts.
 */

export interface FakeSlackCall {
  readonly method: string;
  /** The decoded arguments, without `token`. JSON-encoded fields (blocks, attachments) are parsed. */
  readonly args: Readonly<Record<string, unknown>>;
  readonly at: number;
  /** HTTP status answered (0 when the connection was reset) and, for `ok:false` answers, Slack's error string. */
  readonly status: number;
  readonly error?: string;
}

export interface FakeSlackOptions {
  readonly token?: string;
  /** Channels by name; defaults to general, hr-alerts, retention-ops, poaching-alerts (bot is a member). */
  readonly channels?: ReadonlyArray<{ name: string; id?: string; member?: boolean; private?: boolean }>;
  /** Workspace users, email -> user id. */
  readonly users?: Readonly<Record<string, string>>;
  /** Called for every message posted (the demo prints them as they arrive). */
  readonly onMessage?: (message: FakeSlackMessage) => void;
  /** Listen port; 0 (the default) picks a free one. */
  readonly port?: number;
  /** App-level token accepted by apps.connections.open (default a random "xapp-1-A0FAKE..." value). */
  readonly appToken?: string;
  /** Signing secret for the HTTP interactivity helper (default random hex). */
  readonly signingSecret?: string;
  /**
   * An unacked envelope is sent again after this long (default 3000 ms), at most `socketMaxRetries`
   * times (default 3), with retry_attempt / retry_reason "timeout", to any open connection.
   */
  readonly socketResendAfterMs?: number;
  readonly socketMaxRetries?: number;
  /** User groups: id (S...) -> member user ids, for usergroups.users.list. */
  readonly usergroups?: Readonly<Record<string, readonly string[]>>;
  /**
   * The sandbox's workspace, where a user's own config must work unchanged: a channel name or id
   * not seen before is created (the bot a member) the first time a call names it, and every email
   * is a workspace member.
   */
  readonly openWorkspace?: boolean;
  /**
   * Channel names or ids to create before each conversations.list answers: a listing cannot learn
   * names from the call itself, so the sandbox reads them from the user's config here.
   */
  readonly knownChannels?: () => Iterable<string>;
}

export interface FakeSlack extends FakeSlackSocketMode, FakeSlackInteractivity {
  /** Web API base URL ending with `/api/`: pass it as `slackApiUrl` / SLACK_API_URL. */
  readonly url: string;
  /** An incoming-webhook URL: posts to it are recorded as calls of method INCOMING_WEBHOOK. */
  readonly incomingWebhookUrl: string;
  readonly token: string;
  readonly calls: FakeSlackCall[];
  /** name -> channel; mutate `isMember` or call `addChannel` to shape a test. */
  readonly channels: Map<string, FakeSlackChannel>;
  /** email -> user id. */
  readonly users: Map<string, string>;
  addChannel(name: string, options?: { id?: string; member?: boolean; private?: boolean }): FakeSlackChannel;
  /** Messages posted, optionally only those of one channel (id, name or #name). */
  posted(channel?: string): FakeSlackMessage[];
  /** The next `times` calls (default 1) of `method` (or "*" for any) fail this way. */
  failNext(method: string, failure: FakeSlackFailure, times?: number): void;
  /** On: every request answers HTTP 503 ("http") or has its connection destroyed ("reset"). */
  setOutage(on: boolean, kind?: "http" | "reset"): void;
  setRateLimit(limit: FakeSlackRateLimit | null): void;
  /** Random 5xx, 429s and connection resets (null turns them off). */
  setFaults(faults: FakeSlackFaults | null): void;
  close(): Promise<void>;
}

/** The `method` of a call to an incoming webhook URL (`<origin>/services/...`, see `incomingWebhookUrl`). */
export const INCOMING_WEBHOOK = "incoming-webhook";

const DEFAULT_CHANNELS = ["general", "hr-alerts", "retention-ops", "poaching-alerts"];
const IDS = { appId: "A0FAKE0001", teamId: "TFAKE0001", botId: "BFAKE0001", botUserId: BOT_USER_ID } as const;

function decodeArgs(raw: string, contentType: string): Record<string, unknown> {
  if (raw.length === 0) return {};
  if (contentType.includes("application/json")) {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === "object" && parsed !== null ? { ...(parsed as Record<string, unknown>) } : {};
  }
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    // The SDK JSON-encodes arrays and objects (blocks, attachments) inside the form body.
    if ((value.startsWith("[") || value.startsWith("{")) && key !== "text") {
      try {
        args[key] = JSON.parse(value);
        continue;
      } catch {
        // not JSON after all: keep the string
      }
    }
    args[key] = value;
  }
  return args;
}

/** Starts the fake Slack Web API on 127.0.0.1 with an ephemeral port. */
export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const token = options.token ?? "xoxb-fake-slack-token-0001";
  const appToken = options.appToken ?? defaultAppToken();
  const signingSecret = options.signingSecret ?? randomBytes(16).toString("hex");
  const calls: FakeSlackCall[] = [];
  const messages: FakeSlackMessage[] = [];
  const channels = new Map<string, FakeSlackChannel>();
  const users = new Map<string, string>(Object.entries(options.users ?? { "manager@example.com": "UMANAGER01" }));
  const failures = new FakeSlackFailures();
  let outage: false | "http" | "reset" = false;
  let tsCounter = 0;
  let channelCounter = 0;

  const addChannel: FakeSlack["addChannel"] = (name, opts = {}) => {
    channelCounter += 1;
    const clean = name.replace(/^#/, "");
    const channel: FakeSlackChannel = {
      id: opts.id ?? `C${String(channelCounter).padStart(9, "0")}`,
      name: clean,
      isMember: opts.member ?? true,
      isPrivate: opts.private ?? false,
    };
    channels.set(clean, channel);
    return channel;
  };
  type ChannelSeed = NonNullable<FakeSlackOptions["channels"]>[number];
  const seeds: readonly ChannelSeed[] = options.channels ?? DEFAULT_CHANNELS.map((name) => ({ name }));
  for (const c of seeds) {
    addChannel(c.name, {
      ...(c.id !== undefined ? { id: c.id } : {}),
      ...(c.member !== undefined ? { member: c.member } : {}),
      ...(c.private !== undefined ? { private: c.private } : {}),
    });
  }
  const byId = (id: string) => [...channels.values()].find((c) => c.id === id);
  const looksLikeId = (ref: string) => /^[CG][A-Z0-9]{6,}$/.test(ref);
  /** chat.postMessage accepts ids, names and #names; the conversations.* methods only ids. */
  const resolve = (ref: string, allowNames: boolean): FakeSlackChannel | undefined => {
    const found = byId(ref) ?? (allowNames ? channels.get(ref.replace(/^#/, "")) : undefined);
    if (found || !options.openWorkspace) return found;
    if (looksLikeId(ref)) return addChannel(ref, { id: ref });
    return allowNames && ref.replace(/^#/, "") !== "" ? addChannel(ref) : undefined;
  };
  const ensureChannel = (ref: string) => {
    if (!(byId(ref) ?? channels.get(ref.replace(/^#/, "")))) {
      addChannel(ref, looksLikeId(ref) ? { id: ref } : {});
    }
  };
  const nextTs = () => {
    tsCounter += 1;
    return `${Math.floor(Date.now() / 1000)}.${String(tsCounter).padStart(6, "0")}`;
  };

  type Answer = FakeSlackAnswer;
  let port = 0;
  const hub = new SocketModeHub({
    appId: IDS.appId,
    resendAfterMs: options.socketResendAfterMs ?? 3000,
    maxRetries: options.socketMaxRetries ?? 3,
    origin: () => `ws://127.0.0.1:${port}`,
  });
  const interactivity = createInteractivity({
    messages,
    channelById: (id) => resolve(id, false),
    channelByRef: (ref) => resolve(ref, true),
    users,
    usergroups: new Map(Object.entries(options.usergroups ?? {})),
    nextTs,
    origin: () => `http://127.0.0.1:${port}`,
    addMessage: (message) => {
      messages.push(message);
      options.onMessage?.(message);
    },
    hub,
    signingSecret,
    ids: IDS,
  });
  const workspace: FakeSlackWorkspace = {
    channels,
    users,
    openWorkspace: options.openWorkspace ?? false,
    resolve,
    knownChannels: () => options.knownChannels?.() ?? [],
    ensureChannel,
    nextTs,
    addMessage: (message) => {
      messages.push(message);
      options.onMessage?.(message);
    },
    otherMethod: (method, args) => interactivity.method(method, args),
  };

  /** An app-level token opens Socket Mode connections and nothing else. */
  function appTokenCall(method: string): Answer {
    return method === "apps.connections.open"
      ? { status: 200, body: { ok: true, url: hub.openTicket() } }
      : failAnswer("not_allowed_token_type");
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const method = url.pathname.replace(/^\/api\//, "");
    const responseUrlAnswer = interactivity.responseUrl(url.pathname, Buffer.concat(chunks).toString("utf8"));
    if (responseUrlAnswer) {
      res.writeHead(responseUrlAnswer.status, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(responseUrlAnswer.body));
      return;
    }
    // An incoming webhook (`https://hooks.slack.com/services/T.../B.../...`): what tools that post
    // without a bot token (Prometheus Alertmanager's slack_configs) call; Slack answers a plain "ok".
    if (req.method === "POST" && url.pathname.startsWith("/services/")) {
      let payload: Record<string, unknown> = {};
      try {
        payload = decodeArgs(Buffer.concat(chunks).toString("utf8"), "application/json");
      } catch {
        payload = {};
      }
      calls.push({ method: INCOMING_WEBHOOK, args: payload, at: Date.now(), status: 200 });
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      return;
    }
    const fault = failures.rolled(method);
    if (outage === "reset" || fault === "reset") {
      calls.push({ method, args: {}, at: Date.now(), status: 0, error: "connection_reset" });
      req.socket.destroy();
      return;
    }
    let args: Record<string, unknown>;
    try {
      args = decodeArgs(Buffer.concat(chunks).toString("utf8"), String(req.headers["content-type"] ?? ""));
    } catch {
      args = {};
    }
    for (const [k, v] of url.searchParams) args[k] ??= v;
    const bodyToken = typeof args.token === "string" ? args.token : undefined;
    delete args.token;
    const header = req.headers.authorization;
    const presented = header?.startsWith("Bearer ") ? header.slice(7) : bodyToken;

    let answer: Answer;
    if (outage === "http") answer = { status: 503, body: { ok: false, error: "service_unavailable" } };
    else if (!url.pathname.startsWith("/api/")) answer = { status: 404, body: { ok: false, error: "unknown_method" } };
    else
      answer =
        failures.injected(method) ??
        fault ??
        failures.limited(method) ??
        (presented === undefined
          ? failAnswer("not_authed")
          : presented === appToken
            ? appTokenCall(method)
            : presented !== token
              ? failAnswer("invalid_auth")
              : answerWebApi(workspace, method, args));
    const error = answer.body.ok === false ? String(answer.body.error) : undefined;
    calls.push({ method, args, at: Date.now(), status: answer.status, ...(error !== undefined ? { error } : {}) });
    res.writeHead(answer.status, { "content-type": "application/json; charset=utf-8", ...answer.headers });
    res.end(JSON.stringify(answer.body));
  }

  const server = createServer((req, res) => {
    onRequest(req, res).catch((error: unknown) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: false, error: "fake_slack_crashed", detail: String(error) }));
    });
  });
  server.on("upgrade", (req, socket, head) => hub.handleUpgrade(req, socket, head));
  server.listen(options.port ?? 0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/api/`,
    incomingWebhookUrl: `http://127.0.0.1:${port}/services/TFAKE0001/BFAKE0001/fake-incoming-webhook`,
    token,
    appToken,
    ...interactivity.api,
    socketConnections: () => hub.socketConnections(),
    waitForSocketConnection: (count) => hub.waitForSocketConnection(count),
    sendEnvelope: (envelope) => hub.sendEnvelope(envelope),
    envelopes: () => hub.envelopes(),
    waitForAck: (envelopeId) => hub.waitForAck(envelopeId),
    dropSocketConnections: () => hub.dropSocketConnections(),
    requestSocketRefresh: () => hub.requestSocketRefresh(),
    socketEvents: () => hub.socketEvents(),
    calls,
    channels,
    users,
    addChannel,
    posted(channel) {
      if (channel === undefined) return [...messages];
      const target = resolve(channel, true)?.id ?? channel;
      return messages.filter((m) => m.channel === target);
    },
    failNext(method, failure, times = 1) {
      failures.failNext(method, failure, times);
    },
    setOutage(on, kind = "http") {
      outage = on ? kind : false;
    },
    setRateLimit(limit) {
      failures.setRateLimit(limit);
    },
    setFaults(settings) {
      failures.setFaults(settings);
    },
    async close() {
      hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
    },
  };
}
