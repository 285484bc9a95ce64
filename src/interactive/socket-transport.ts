import { LogLevel, type Logger as SocketLogger, SocketModeClient } from "@slack/socket-mode";
import type { Logger } from "../logger.js";
import { sdkLogger } from "../slack/sdk-logger.js";

/** The Socket Mode connection as readiness and logs show it. */
export type SocketState = "connecting" | "connected" | "reconnecting" | "disconnected";

export interface SocketTransportOptions {
  /** The app-level token (xapp-...): apps.connections.open. */
  readonly appToken: string;
  /** Web API base URL (SLACK_API_URL), for apps.connections.open. */
  readonly apiUrl: string;
  readonly logger: Logger;
  /** One `interactive` envelope's payload and its ack (the handler acks once the press is journaled). */
  readonly onInteractive: (body: unknown, ack: () => Promise<void>) => Promise<unknown>;
  readonly onState?: ((state: SocketState) => void) | undefined;
}

export interface SocketTransport {
  /** Opens the connection in the background (the SDK reconnects by itself); resolves once connected or given up. */
  start(): Promise<void>;
  stop(): Promise<void>;
  readonly state: SocketState;
}

function socketLogger(logger: Logger): SocketLogger {
  // The SDK logs whole envelopes at debug: trace here; its errors are connection trouble, retried.
  return sdkLogger(logger, { debug: "trace", info: "debug", warn: "info", error: "warn" }, LogLevel.INFO);
}

/**
 * Slack's Socket Mode through Slack's own client (`@slack/socket-mode`): the daemon opens the
 * WebSocket (apps.connections.open with the app token), so no inbound port is needed. Envelopes
 * other than `interactive` are acked and ignored; the SDK reconnects after drops and refreshes.
 */
export function socketModeTransport(options: SocketTransportOptions): SocketTransport {
  const logger = options.logger;
  const client = new SocketModeClient({
    appToken: options.appToken,
    logger: socketLogger(logger.child({ component: "slack-socket-mode" })),
    clientOptions: {
      slackApiUrl: options.apiUrl.endsWith("/") ? options.apiUrl : `${options.apiUrl}/`,
      retryConfig: { retries: 3, factor: 1.5, minTimeout: 500, maxTimeout: 5_000 },
    },
  });
  let state: SocketState = "disconnected";
  const setState = (next: SocketState) => {
    if (next === state) return;
    const previous = state;
    state = next;
    options.onState?.(next);
    if (next === "connected") logger.info({ previous }, "Slack Socket Mode connected: buttons are answered");
    else if (next === "reconnecting") logger.warn("Slack Socket Mode connection lost: reconnecting");
  };
  client.on("connecting", () => setState("connecting"));
  client.on("connected", () => setState("connected"));
  client.on("reconnecting", () => setState("reconnecting"));
  client.on("disconnected", () => setState(stopping ? "disconnected" : "reconnecting"));
  client.on("interactive", ({ body, ack }: { body: unknown; ack: () => Promise<void> }) => {
    let acked = false;
    const ackOnce = async () => {
      if (acked) return;
      acked = true;
      await ack();
    };
    void options.onInteractive(body, ackOnce).catch((error: unknown) => {
      // Not acked when the journal could not be written: Slack sends the envelope again.
      logger.error({ err: error }, "an interactive envelope could not be handled");
    });
  });
  for (const type of ["events_api", "slash_commands"]) {
    client.on(type, ({ ack }: { ack: () => Promise<void> }) => {
      logger.info({ type }, "Socket Mode envelope of a kind this program does not use: acked and ignored");
      void ack().catch(() => undefined);
    });
  }
  let stopping = false;
  return {
    get state() {
      return state;
    },
    async start() {
      stopping = false;
      setState("connecting");
      await client.start().then(
        () => undefined,
        (error: unknown) => {
          setState("disconnected");
          logger.error(
            { err: error },
            "Slack Socket Mode could not connect (apps.connections.open): check SLACK_APP_TOKEN (xapp-, scope connections:write) and that Socket Mode is on for the app",
          );
        },
      );
    },
    async stop() {
      stopping = true;
      await client.disconnect().catch(() => undefined);
      setState("disconnected");
    },
  };
}
