import { randomBytes, randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, WebSocket, WebSocketServer } from "ws";
import { z } from "zod";

/**
 * The fake Slack's Socket Mode side, as Slack documents it and as `@slack/socket-mode` expects it:
 * `apps.connections.open` hands out a single-use `ws://…/link/?ticket=…` URL; on connect the socket
 * gets `hello`; envelopes go to one open connection at a time (round robin) and must be acked with
 * `{"envelope_id": …}`; an unacked one is sent again after a while (`retry_attempt`,
 * `retry_reason: "timeout"`); `disconnect` asks the client to reconnect. Envelopes that find no
 * connection wait for one, as Slack queues them briefly.
 */

export type FakeSocketEnvelopeType = "interactive" | "events_api" | "slash_commands";

export interface FakeSocketEnvelope {
  readonly envelopeId: string;
  readonly type: FakeSocketEnvelopeType;
  readonly payload: unknown;
  /** Times sent so far (0 while waiting for a connection); at most 1 + `socketMaxRetries`. */
  attempts: number;
  acked: boolean;
  /** The `payload` of the ack, when the client sent one (`@slack/socket-mode` always sends `{}` at least). */
  ackPayload?: unknown;
}

/** One thing that happened on the Socket Mode side, in order; `connection` numbers start at 1. */
export type FakeSocketEvent =
  | { readonly kind: "open"; readonly connection: number }
  | { readonly kind: "rejected"; readonly reason: "bad_ticket" | "wrong_path" }
  | { readonly kind: "hello"; readonly connection: number; readonly numConnections: number }
  | {
      readonly kind: "envelope";
      readonly connection: number;
      readonly envelopeId: string;
      readonly attempt: number;
      readonly retryReason: string;
    }
  | { readonly kind: "ack"; readonly connection: number; readonly envelopeId: string; readonly duplicate: boolean }
  | { readonly kind: "unknown_ack"; readonly connection: number; readonly envelopeId: string }
  | { readonly kind: "bad_frame"; readonly connection: number; readonly text: string }
  | { readonly kind: "disconnect"; readonly connection: number; readonly reason: string }
  | { readonly kind: "dropped"; readonly connection: number }
  | { readonly kind: "close"; readonly connection: number };

export interface FakeSlackSocketMode {
  /** App-level token accepted by apps.connections.open. */
  readonly appToken: string;
  /** Open Socket Mode connections (after "hello"), not counting those told to disconnect. */
  socketConnections(): number;
  /** Resolves once `socketConnections()` reaches `count` (default 1). */
  waitForSocketConnection(count?: number): Promise<void>;
  /** Sends any envelope as Slack would (tests of odd payloads); it waits if no connection is open. */
  sendEnvelope(envelope: { type: FakeSocketEnvelopeType; payload: unknown; envelopeId?: string }): FakeSocketEnvelope;
  envelopes(): readonly FakeSocketEnvelope[];
  /** Resolves when the envelope is acked (the client sent {"envelope_id": ...}); rejects for an unknown id. */
  waitForAck(envelopeId: string): Promise<FakeSocketEnvelope>;
  /** Network loss: closes every socket without a disconnect message. */
  dropSocketConnections(): void;
  /** Slack's {"type":"disconnect","reason":"refresh_requested"} to every open connection. */
  requestSocketRefresh(): void;
  /** Everything that happened on the sockets, in order. */
  socketEvents(): readonly FakeSocketEvent[];
}

export interface SocketModeSettings {
  readonly appId: string;
  readonly resendAfterMs: number;
  readonly maxRetries: number;
  /** The `ws://host:port` origin of the fake's HTTP server (known once it listens). */
  readonly origin: () => string;
}

/** Slack closes a connection it asked to refresh if the client does not (it warns about 10 s ahead). */
const REFRESH_GRACE_MS = 10_000;
/** Slack pings its Socket Mode connections; `@slack/socket-mode` arms its server-ping watchdog on the first. */
const PING_INTERVAL_MS = 10_000;

const ackSchema = z.object({ envelope_id: z.string().min(1), payload: z.unknown().optional() });

interface Connection {
  readonly id: number;
  readonly socket: WebSocket;
  /** Told to disconnect (refresh): no envelope is routed to it any more. */
  leaving: boolean;
  open: boolean;
}

interface Tracked {
  readonly envelope: FakeSocketEnvelope;
  timer?: NodeJS.Timeout;
  waiters: Array<(envelope: FakeSocketEnvelope) => void>;
}

export function defaultAppToken(): string {
  return `xapp-1-A0FAKE0001-${Date.now()}-${randomBytes(32).toString("hex")}`;
}

/** Interactive payloads that can carry a response in the ack (Slack sets accepts_response_payload). */
function acceptsResponsePayload(type: FakeSocketEnvelopeType, payload: unknown): boolean {
  if (type === "slash_commands") return true;
  if (type !== "interactive" || typeof payload !== "object" || payload === null) return false;
  const kind = (payload as { type?: unknown }).type;
  return kind === "view_submission" || kind === "block_suggestion";
}

export class SocketModeHub {
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  private readonly tickets = new Set<string>();
  private readonly connections: Connection[] = [];
  private readonly tracked = new Map<string, Tracked>();
  private readonly order: FakeSocketEnvelope[] = [];
  private readonly pending: string[] = [];
  private readonly events: FakeSocketEvent[] = [];
  private readonly connectionWaiters: Array<{ count: number; resolve: () => void; reject: (e: Error) => void }> = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private nextConnectionId = 0;
  private roundRobin = 0;
  private closed = false;

  constructor(private readonly settings: SocketModeSettings) {}

  /** apps.connections.open: a fresh single-use URL. */
  openTicket(): string {
    const ticket = randomBytes(24).toString("hex");
    this.tickets.add(ticket);
    return `${this.settings.origin()}/link/?ticket=${ticket}`;
  }

  /** The HTTP server's `upgrade` event: only `/link/` with a ticket not used before. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const ticket = url.searchParams.get("ticket") ?? "";
    if (url.pathname !== "/link/" && url.pathname !== "/link") {
      this.events.push({ kind: "rejected", reason: "wrong_path" });
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    if (this.closed || !this.tickets.delete(ticket)) {
      this.events.push({ kind: "rejected", reason: "bad_ticket" });
      socket.end("HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private accept(socket: WebSocket): void {
    this.nextConnectionId += 1;
    const connection: Connection = { id: this.nextConnectionId, socket, leaving: false, open: true };
    this.connections.push(connection);
    this.events.push({ kind: "open", connection: connection.id });
    socket.on("message", (data, isBinary) => this.onFrame(connection, data, isBinary));
    socket.on("close", () => this.onClose(connection));
    socket.on("error", () => socket.terminate());
    const ping = setInterval(() => {
      if (socket.readyState === WebSocket.OPEN) socket.ping();
    }, PING_INTERVAL_MS);
    ping.unref();
    socket.once("close", () => clearInterval(ping));
    const numConnections = this.routable().length;
    this.events.push({ kind: "hello", connection: connection.id, numConnections });
    socket.send(
      JSON.stringify({
        type: "hello",
        num_connections: numConnections,
        debug_info: { host: "fake-slack-applink-1", build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: this.settings.appId },
      }),
    );
    this.settleConnectionWaiters();
    this.flushPending();
  }

  private onFrame(connection: Connection, data: RawData, isBinary: boolean): void {
    const text = isBinary ? "" : data.toString();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const ack = ackSchema.safeParse(parsed);
    if (!ack.success) {
      this.events.push({ kind: "bad_frame", connection: connection.id, text: text.slice(0, 500) });
      return;
    }
    const entry = this.tracked.get(ack.data.envelope_id);
    if (!entry) {
      this.events.push({ kind: "unknown_ack", connection: connection.id, envelopeId: ack.data.envelope_id });
      return;
    }
    const { envelope } = entry;
    this.events.push({
      kind: "ack",
      connection: connection.id,
      envelopeId: envelope.envelopeId,
      duplicate: envelope.acked,
    });
    if (envelope.acked) return;
    envelope.acked = true;
    if (ack.data.payload !== undefined) envelope.ackPayload = ack.data.payload;
    this.stopTimer(entry);
    const waiters = entry.waiters.splice(0);
    for (const resolve of waiters) resolve(envelope);
  }

  private onClose(connection: Connection): void {
    if (!connection.open) return;
    connection.open = false;
    const index = this.connections.indexOf(connection);
    if (index >= 0) this.connections.splice(index, 1);
    this.events.push({ kind: "close", connection: connection.id });
  }

  private routable(): Connection[] {
    return this.connections.filter((c) => c.open && !c.leaving && c.socket.readyState === WebSocket.OPEN);
  }

  socketConnections(): number {
    return this.routable().length;
  }

  /** Any open connection at all, one told to refresh included (a press needs the app to be online). */
  hasAnyConnection(): boolean {
    return this.connections.some((c) => c.open && c.socket.readyState === WebSocket.OPEN);
  }

  waitForSocketConnection(count = 1): Promise<void> {
    if (this.socketConnections() >= count) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error("fake Slack closed"));
    return new Promise((resolve, reject) => this.connectionWaiters.push({ count, resolve, reject }));
  }

  private settleConnectionWaiters(): void {
    const open = this.socketConnections();
    for (let i = this.connectionWaiters.length - 1; i >= 0; i--) {
      const waiter = this.connectionWaiters[i];
      if (waiter && open >= waiter.count) {
        this.connectionWaiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  sendEnvelope(input: { type: FakeSocketEnvelopeType; payload: unknown; envelopeId?: string }): FakeSocketEnvelope {
    if (this.closed) throw new Error("fake Slack closed");
    const envelopeId = input.envelopeId ?? randomUUID();
    if (this.tracked.has(envelopeId)) throw new Error(`envelope ${envelopeId} was sent already`);
    const envelope: FakeSocketEnvelope = {
      envelopeId,
      type: input.type,
      payload: input.payload,
      attempts: 0,
      acked: false,
    };
    this.tracked.set(envelopeId, { envelope, waiters: [] });
    this.order.push(envelope);
    this.deliver(envelopeId);
    return envelope;
  }

  /** Sends to the next connection in turn, or leaves it waiting for one. */
  private deliver(envelopeId: string): void {
    const entry = this.tracked.get(envelopeId);
    if (!entry || entry.envelope.acked || this.closed) return;
    const targets = this.routable();
    if (targets.length === 0) {
      if (!this.pending.includes(envelopeId)) this.pending.push(envelopeId);
      return;
    }
    const target = targets[this.roundRobin % targets.length];
    this.roundRobin += 1;
    if (!target) return;
    const { envelope } = entry;
    const retryAttempt = envelope.attempts;
    const retryReason = retryAttempt === 0 ? "" : "timeout";
    envelope.attempts += 1;
    this.events.push({ kind: "envelope", connection: target.id, envelopeId, attempt: retryAttempt, retryReason });
    target.socket.send(
      JSON.stringify({
        envelope_id: envelopeId,
        payload: envelope.payload,
        type: envelope.type,
        accepts_response_payload: acceptsResponsePayload(envelope.type, envelope.payload),
        retry_attempt: retryAttempt,
        retry_reason: retryReason,
      }),
    );
    if (envelope.attempts <= this.settings.maxRetries) {
      this.stopTimer(entry);
      entry.timer = this.later(this.settings.resendAfterMs, () => {
        delete entry.timer;
        this.deliver(envelopeId);
      });
    }
  }

  private flushPending(): void {
    const waiting = this.pending.splice(0);
    for (const id of waiting) this.deliver(id);
  }

  envelopes(): readonly FakeSocketEnvelope[] {
    return [...this.order];
  }

  waitForAck(envelopeId: string): Promise<FakeSocketEnvelope> {
    const entry = this.tracked.get(envelopeId);
    if (!entry) return Promise.reject(new Error(`no envelope ${envelopeId} was sent`));
    if (entry.envelope.acked) return Promise.resolve(entry.envelope);
    return new Promise((resolve) => entry.waiters.push(resolve));
  }

  dropSocketConnections(): void {
    for (const connection of [...this.connections]) {
      this.events.push({ kind: "dropped", connection: connection.id });
      connection.socket.terminate();
      this.onClose(connection);
    }
  }

  requestSocketRefresh(): void {
    for (const connection of this.connections) {
      if (!connection.open || connection.leaving) continue;
      connection.leaving = true;
      this.events.push({ kind: "disconnect", connection: connection.id, reason: "refresh_requested" });
      connection.socket.send(
        JSON.stringify({
          type: "disconnect",
          reason: "refresh_requested",
          debug_info: { host: "fake-slack-applink-1" },
        }),
      );
      this.later(REFRESH_GRACE_MS, () => {
        if (connection.open) connection.socket.close(1000);
      });
    }
  }

  socketEvents(): readonly FakeSocketEvent[] {
    return [...this.events];
  }

  private later(ms: number, run: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    timer.unref();
    this.timers.add(timer);
    return timer;
  }

  private stopTimer(entry: Tracked): void {
    if (entry.timer === undefined) return;
    clearTimeout(entry.timer);
    this.timers.delete(entry.timer);
    delete entry.timer;
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const connection of [...this.connections]) {
      connection.socket.terminate();
      this.onClose(connection);
    }
    for (const waiter of this.connectionWaiters.splice(0)) waiter.reject(new Error("fake Slack closed"));
    this.wss.close();
  }
}
