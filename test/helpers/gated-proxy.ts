/**
 * A loopback HTTP proxy in front of a real server (the emulator) that records the requests it
 * passes on, in order of arrival, and can hold one back until the test releases it. "Request N
 * is in flight" becomes an event a test waits for, instead of a moment it hopes a signal lands in.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ProxiedRequest {
  readonly method: string;
  /** Path with query, as received. */
  readonly path: string;
  /** When it arrived (epoch ms). */
  readonly at: number;
}

export interface HeldRequest extends ProxiedRequest {
  /** Passes the request on to the target; its answer goes back to the client as usual. */
  release(): void;
}

export interface GatedProxy {
  /** The target's base URL with the proxy's origin, e.g. http://127.0.0.1:41234/api/v1 */
  readonly baseUrl: string;
  /** Every request received so far, in order of arrival. */
  readonly requests: readonly ProxiedRequest[];
  /**
   * Holds back the `nth` (1-based) request from now on that `match` accepts, before the target sees
   * it; resolves once it has arrived.
   */
  hold(match: (r: ProxiedRequest) => boolean, nth?: number): Promise<HeldRequest>;
  close(): Promise<void>;
}

interface Hold {
  readonly match: (r: ProxiedRequest) => boolean;
  left: number;
  readonly arrived: (held: HeldRequest) => void;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())));
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

/** Starts a proxy on 127.0.0.1 (listen(0)) forwarding to the origin of `targetBaseUrl`. */
export async function startGatedProxy(targetBaseUrl: string): Promise<GatedProxy> {
  const target = new URL(targetBaseUrl);
  const requests: ProxiedRequest[] = [];
  const holds: Hold[] = [];
  const releases = new Set<() => void>();

  function forward(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...endToEnd(req.headers), host: target.host, "content-length": String(body.length) },
      },
      (answer) => {
        readAll(answer)
          .then((text) => {
            res.writeHead(answer.statusCode ?? 502, {
              ...endToEnd(answer.headers),
              "content-length": String(text.length),
            });
            res.end(text);
          })
          .catch(() => res.destroy());
      },
    );
    upstream.on("error", () => res.destroy());
    upstream.end(body);
  }

  const server = createServer((req, res) => {
    const seen: ProxiedRequest = { method: req.method ?? "GET", path: req.url ?? "/", at: Date.now() };
    requests.push(seen);
    let hold: Hold | undefined;
    for (const h of holds) if (h.match(seen) && --h.left === 0) hold ??= h;
    if (hold) holds.splice(holds.indexOf(hold), 1);
    readAll(req)
      .then((body) => {
        if (!hold) return forward(req, body, res);
        const release = () => {
          if (!releases.delete(release)) return;
          forward(req, body, res);
        };
        releases.add(release);
        hold.arrived({ ...seen, release });
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, "")}`,
    requests,
    hold(match, nth = 1) {
      return new Promise<HeldRequest>((arrived) => {
        holds.push({ match, left: nth, arrived });
      });
    },
    async close() {
      releases.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
