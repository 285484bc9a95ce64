import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Emulator } from "./emulator.js";
import { type EmulatorLogger, silentLogger } from "./logger.js";
import type { SeedName } from "./seed.js";
import { heldResponses, requestListener } from "./server.js";
import { generateChange, pickTracked } from "./signals.js";

export interface EmulatorOptions {
  port?: number;
  host?: string;
  seed?: SeedName;
  rateLimitPerMinute?: number;
  writeKey?: string;
  readKey?: string;
  allowLoopbackWebhooks?: boolean;
  /** Profile import duration (importing -> active); 0 completes at once. Default 1500. */
  importDelayMs?: number;
  /** Generate one signal every N ms of real time; 0 = only on demand (default). */
  signalIntervalMs?: number;
  /** Concurrent POST /employees per company before 503 SEAT_RESERVATION_BUSY. Default 4. */
  concurrentAddLimit?: number;
  /** How long each POST /employees holds its reservation. Default 25 ms. */
  addHoldMs?: number;
  /** Daily API seat allowance (spec: 200); benchmarks raise it. */
  apiSeatsPerDay?: number;
  /** Daily rows allowance (emulator choice: 1000); benchmarks raise it. */
  rowsPerDay?: number;
  logger?: EmulatorLogger;
}

export interface EmulatorHandle {
  url: string;
  baseUrl: string;
  writeKey: string;
  readKey: string;
  organizationId: number;
  /** The in-process emulator (tests may inspect it; prefer the control API). */
  emulator: Emulator;
  close(): Promise<void>;
}

/** Starts the emulator of API v1 on 127.0.0.1 (port 0 by default) and returns its handle. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const em = new Emulator({
    seed: options.seed ?? "demo",
    rateLimitPerMinute: options.rateLimitPerMinute ?? 120,
    allowLoopbackWebhooks: options.allowLoopbackWebhooks ?? false,
    importDelayMs: options.importDelayMs ?? 1500,
    concurrentAddLimit: options.concurrentAddLimit ?? 4,
    addHoldMs: options.addHoldMs ?? 25,
    apiSeatsPerDay: options.apiSeatsPerDay,
    rowsPerDay: options.rowsPerDay,
    logger: options.logger ?? silentLogger(),
  });
  const writeKey = em.createKey({
    key: options.writeKey ?? `rsk_emu_rw_${randomBytes(12).toString("hex")}`,
    scopes: ["read", "write"],
    permanent: true,
  }).key;
  const readKey = em.createKey({
    key: options.readKey ?? `rsk_emu_ro_${randomBytes(12).toString("hex")}`,
    scopes: ["read"],
    permanent: true,
  }).key;
  const server = createServer(requestListener(em));
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  em.origin = `http://${host}:${addr.port}`;
  let timer: NodeJS.Timeout | undefined;
  if (options.signalIntervalMs && options.signalIntervalMs > 0) {
    timer = setInterval(() => {
      em.settle();
      const candidates = [...em.state.employees.values()].filter(
        (e) => e.tracked && em.state.orgs.get(e.organizationId)?.companyId === em.companyId,
      );
      const emp = pickTracked(em.signalRng, candidates);
      if (emp) void em.emitChange(generateChange(em.signalRng, emp, em.state.nextChangeId++, em.clock.now()));
    }, options.signalIntervalMs);
    timer.unref();
  }
  options.logger?.info({ url: em.origin, seed: em.config.seed }, "emulator listening");
  return {
    url: em.origin,
    baseUrl: `${em.origin}/api/v1`,
    writeKey,
    readKey,
    organizationId: em.companyId,
    emulator: em,
    async close() {
      if (timer) clearInterval(timer);
      em.closing.abort();
      for (const res of heldResponses.get(em) ?? []) res.destroy();
      await em.dispatcher.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
