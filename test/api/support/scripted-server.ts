import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted answer. `destroy` drops the connection without answering; `delayMs` holds the answer back. */
export interface ScriptedResponse {
  status?: number;
  body?: unknown;
  /** Sent verbatim instead of JSON `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  delayMs?: number;
  destroy?: boolean;
}

export interface RecordedRequest {
  method: string;
  /** Path with query, as received. */
  url: string;
  /** Path without query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: unknown;
}

export type ScriptHandler = (request: RecordedRequest) => ScriptedResponse;

export interface ScriptedServer {
  /** Origin, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** url + /api/v1 */
  readonly baseUrl: string;
  /** Every request received, in order (paths relative to /api/v1 when under it). */
  readonly requests: RecordedRequest[];
  /** Queues answers, consumed one per request before the fallback handler. */
  enqueue(...responses: ScriptedResponse[]): void;
  /** Answers every request once the queue is empty (default: 500 "unscripted"). */
  setHandler(handler: ScriptHandler): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** A small real HTTP server on 127.0.0.1 (listen(0)) answering from a script and recording each request. */
export async function startScriptedServer(): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const queue: ScriptedResponse[] = [];
  let handler: ScriptHandler = () => ({ status: 500, body: { error: "unscripted request" } });
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const rawBody = await readBody(req);
    const full = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = full.pathname.startsWith("/api/v1") ? full.pathname.slice("/api/v1".length) : full.pathname;
    let body: unknown;
    try {
      body = rawBody === "" ? undefined : JSON.parse(rawBody);
    } catch {
      body = rawBody;
    }
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      path,
      query: full.searchParams,
      headers: req.headers,
      rawBody,
      body,
    };
    requests.push(recorded);
    const answer = queue.shift() ?? handler(recorded);
    const send = () => {
      if (answer.destroy) {
        req.socket.destroy();
        return;
      }
      if (res.destroyed) return;
      const text = answer.rawBody ?? (answer.body === undefined ? "" : JSON.stringify(answer.body));
      res.writeHead(answer.status ?? 200, {
        "content-type": answer.rawBody !== undefined ? "text/html" : "application/json",
        ...answer.headers,
      });
      res.end(text);
    };
    if (answer.delayMs) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, answer.delayMs);
      timers.add(timer);
    } else {
      send();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/api/v1`,
    requests,
    enqueue: (...responses) => {
      queue.push(...responses);
    },
    setHandler: (next) => {
      handler = next;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
