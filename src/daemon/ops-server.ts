import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../logger.js";
import type { HealthMonitor } from "./health-monitor.js";
import type { Metrics } from "./metrics.js";

export interface OpsServer {
  readonly url: string;
  close(): Promise<void>;
}

/** An extra endpoint on the ops server (Slack's HTTP interactivity); it answers every method itself. */
export type OpsRoute = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/** The operations endpoints: /livez (process alive), /readyz (dependencies), /metrics (Prometheus text). */
export async function startOpsServer(options: {
  host: string;
  port: number;
  routes?: Readonly<Record<string, OpsRoute>> | undefined;
  health: HealthMonitor;
  metrics: Metrics;
  logger: Logger;
}): Promise<OpsServer> {
  const { health, metrics, logger } = options;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const route = options.routes?.[path];
    if (route) {
      Promise.resolve(route(req, res)).catch((error: unknown) => {
        logger.error({ err: error, path }, "ops route failed");
        if (!res.headersSent) res.writeHead(500).end();
      });
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (path === "/livez") {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
      return;
    }
    if (path === "/readyz") {
      const readiness = health.readiness();
      res
        .writeHead(readiness.ready ? 200 : 503, { "content-type": "text/plain" })
        .end(
          `${readiness.ready ? "ready" : "not ready"}: ${readiness.reason}\n${readiness.role ? `role: ${readiness.role}\n` : ""}${(readiness.notes ?? []).map((n) => `${n}\n`).join("")}`,
        );
      return;
    }
    if (path === "/metrics") {
      metrics.registry
        .metrics()
        .then((text) => res.writeHead(200, { "content-type": metrics.registry.contentType }).end(text))
        .catch((error: unknown) => {
          logger.error({ err: error }, "rendering metrics failed");
          res.writeHead(500).end();
        });
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found: try /livez, /readyz or /metrics\n");
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
  return {
    url: `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
