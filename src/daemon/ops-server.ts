import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { type Refuse, SERVER_LIMITS, type ServerLimits, startGuardedServer } from "../guarded-server.js";
import type { Logger } from "../logger.js";
import type { HealthMonitor } from "./health-monitor.js";
import type { Metrics } from "./metrics.js";

export interface OpsServer {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * An extra endpoint on the ops server (Slack's HTTP interactivity); it answers every method itself,
 * and counts what it refuses through `refuse`.
 */
export type OpsRoute = (req: IncomingMessage, res: ServerResponse, refuse: Refuse) => Promise<void> | void;

/**
 * The ops server's limits: SERVER_LIMITS, and 100 connections, far above what it serves (the
 * orchestrator's probes, a Prometheus scrape, Slack's button presses in HTTP mode).
 */
export const OPS_LIMITS: ServerLimits = { ...SERVER_LIMITS, maxConnections: 100 };

/** The operations endpoints: /livez (process alive), /readyz (dependencies), /metrics (Prometheus text). */
export async function startOpsServer(options: {
  host: string;
  port: number;
  routes?: Readonly<Record<string, OpsRoute>> | undefined;
  health: HealthMonitor;
  metrics: Metrics;
  logger: Logger;
  /** Tests: shorter deadlines, fewer connections. */
  limits?: Partial<ServerLimits> | undefined;
}): Promise<OpsServer> {
  const { health, metrics, logger } = options;
  const handle = (req: IncomingMessage, res: ServerResponse, refuse: Refuse) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const route = options.routes?.[path];
    if (route) {
      Promise.resolve(route(req, res, refuse)).catch((error: unknown) => {
        logger.error({ err: error, path }, "ops route failed");
        if (!res.headersSent) res.writeHead(500).end();
      });
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      refuse("wrong_method");
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
    refuse("wrong_path");
    res.writeHead(404, { "content-type": "text/plain" }).end("not found: try /livez, /readyz or /metrics\n");
  };
  const guarded = await startGuardedServer({
    name: "ops",
    host: options.host,
    port: options.port,
    limits: { ...OPS_LIMITS, ...options.limits },
    logger: logger.child({ component: "ops" }),
    onRefused: (reason) => metrics.requestsRefused.inc({ server: "ops", reason }),
    handle,
  });
  return { url: guarded.origin, server: guarded.server, close: () => guarded.close() };
}
