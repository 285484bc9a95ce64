import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { Logger } from "./logger.js";
import { createRefusalLog } from "./refusal-log.js";
import type { RefusalReason } from "./refusal-tally.js";

/**
 * How long a client may hold a connection, and how many it may hold: what bounds slow and
 * excess clients on the daemon's HTTP servers (the ops server and the webhook receiver).
 */
export interface ServerLimits {
  /** The whole header block must arrive within this (Node's `headersTimeout`; at most `requestMs`). */
  readonly headersMs: number;
  /** The whole request, headers and body, must arrive within this (`requestTimeout`), else 408 and close. */
  readonly requestMs: number;
  /** How often Node looks for requests past those two deadlines (`connectionsCheckingInterval`). */
  readonly checkEveryMs: number;
  /** An idle keep-alive connection is closed after this (`keepAliveTimeout`). */
  readonly keepAliveMs: number;
  /** A keep-alive connection is closed after this many requests (`maxRequestsPerSocket`). */
  readonly maxRequestsPerSocket: number;
  /** Connections beyond this are closed as soon as they are accepted (`maxConnections`). */
  readonly maxConnections: number;
}

/**
 * The figures both servers use, apart from the connection cap (each server's own). The service
 * gives up on a webhook delivery after 10 s and Slack on a button press after 3 s: a request that
 * has not fully arrived in 5 s could not be answered in time anyway, so holding it longer only
 * serves a slow client. Node 20 checks those deadlines on a timer that runs every 30 s by
 * default, which lets a slow client stay up to 30 s past them: every 0.5 s here, so a slow
 * client is held 5.5 s at most. Keep-alive keeps Node's 5 s, which lets the service reuse a
 * connection through a burst.
 */
export const SERVER_LIMITS: Omit<ServerLimits, "maxConnections"> = {
  headersMs: 5_000,
  requestMs: 5_000,
  checkEveryMs: 500,
  keepAliveMs: 5_000,
  maxRequestsPerSocket: 1_000,
};

/** Counts the request being handled as refused (the handler still answers it); `detail` carries no secret. */
export type Refuse = (reason: RefusalReason, detail?: string) => void;

export type GuardedHandler = (req: IncomingMessage, res: ServerResponse, refuse: Refuse) => void;

export interface GuardedServer {
  readonly server: Server;
  /** `http://host:port`, with 127.0.0.1 for a server on every interface. */
  readonly origin: string;
  close(): Promise<void>;
}

/** The answer to a request Node's parser or deadlines cut off, by the error it reports. */
const CUT_OFF: Readonly<Record<string, { reason: RefusalReason; answer: string }>> = {
  ERR_HTTP_REQUEST_TIMEOUT: { reason: "slow_client", answer: "408 Request Timeout" },
  HPE_HEADER_OVERFLOW: { reason: "too_large", answer: "431 Request Header Fields Too Large" },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { reason: "too_large", answer: "413 Payload Too Large" },
};
const MALFORMED = { reason: "bad_request", answer: "400 Bad Request" } as const;
/** The client closed or reset the connection itself: nothing was refused. */
const CLIENT_LEFT = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

/** The path of a request target for a log line: no query string (it may carry anything), short. */
function pathOf(url: string | undefined): string {
  return (url ?? "/").split("?")[0]?.slice(0, 100) ?? "/";
}

/**
 * An HTTP server with the limits set at creation, every refusal (the handler's, a request cut off
 * by a deadline or by the parser, a connection over the cap) counted through `onRefused` and
 * logged through a RefusalLog: few lines whatever the rate.
 */
export async function startGuardedServer(options: {
  /** "ops" or "webhook": the metric's `server` label and the log lines' `server` field. */
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly limits: ServerLimits;
  readonly logger: Logger;
  readonly onRefused?: ((reason: RefusalReason) => void) | undefined;
  readonly handle: GuardedHandler;
}): Promise<GuardedServer> {
  const { limits } = options;
  const refusals = createRefusalLog({ server: options.name, logger: options.logger, onRefused: options.onRefused });
  // The request each connection is on (until it is read and answered), and the requests counted as refused.
  const current = new WeakMap<Duplex, { req: IncomingMessage; res: ServerResponse }>();
  const refused = new WeakSet<IncomingMessage>();

  const server = createServer(
    {
      headersTimeout: limits.headersMs,
      requestTimeout: limits.requestMs,
      connectionsCheckingInterval: limits.checkEveryMs,
      keepAliveTimeout: limits.keepAliveMs,
    },
    (req, res) => {
      current.set(req.socket, { req, res });
      const settle = () => {
        if (req.complete && res.writableFinished && current.get(req.socket)?.req === req) current.delete(req.socket);
      };
      req.once("end", settle);
      res.once("finish", settle);
      const refuse: Refuse = (reason, detail) => {
        refused.add(req);
        refusals.refuse({
          reason,
          method: req.method,
          path: pathOf(req.url),
          remoteAddress: req.socket.remoteAddress,
          detail,
        });
      };
      options.handle(req, res, refuse);
    },
  );
  server.maxConnections = limits.maxConnections;
  server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
  server.on("drop", (data?: { remoteAddress?: string }) =>
    refusals.refuse({ reason: "too_many_connections", remoteAddress: data?.remoteAddress }),
  );
  // Replaces Node's own answer (same status lines) to count the refusal first.
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (CLIENT_LEFT.has(error.code ?? "")) {
      socket.destroy();
      return;
    }
    const cut = CUT_OFF[error.code ?? ""] ?? MALFORMED;
    const inFlight = current.get(socket);
    if (!inFlight || !refused.has(inFlight.req)) {
      if (inFlight) refused.add(inFlight.req);
      refusals.refuse({
        reason: cut.reason,
        method: inFlight?.req.method,
        path: inFlight ? pathOf(inFlight.req.url) : undefined,
        remoteAddress: (socket as { remoteAddress?: string }).remoteAddress,
        detail: error.code,
      });
    }
    // Never a second status line into an answer already started.
    if (socket.writable && !inFlight?.res.headersSent) {
      socket.write(`HTTP/1.1 ${cut.answer}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    }
    socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const everywhere = host === "0.0.0.0" || host === "[::]";
  return {
    server,
    origin: `http://${everywhere ? "127.0.0.1" : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        refusals.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
