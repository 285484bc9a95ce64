import { mkdtempSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HealthMonitor } from "../../src/daemon/health-monitor.js";
import { createMetrics } from "../../src/daemon/metrics.js";
import { type RunningDaemon, startDaemon } from "../../src/daemon/run-daemon.js";
import { InstanceLockedError, ServerError } from "../../src/errors.js";
import { silentLogger } from "../../src/logger.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";
import { deferred } from "../helpers/deferred.js";
import { freePort } from "../helpers/free-port.js";

const running: RunningDaemon[] = [];
const stores: StateStore[] = [];
afterEach(async () => {
  for (const daemon of running.splice(0)) await daemon.stop("test over");
  for (const store of stores.splice(0)) await store.close();
});

async function openStore(file: string): Promise<StateStore> {
  const store = await openStateStore(file);
  stores.push(store);
  return store;
}

function baseDeps(store: StateStore) {
  return {
    logger: silentLogger(),
    store,
    metrics: createMetrics(),
    health: new HealthMonitor(60_000),
    ops: { host: "127.0.0.1", port: 0 },
    shutdownGraceMs: 2_000,
  };
}

async function start(deps: Parameters<typeof startDaemon>[0]): Promise<RunningDaemon> {
  const daemon = await startDaemon(deps);
  running.push(daemon);
  return daemon;
}

describe("readiness and the listeners", () => {
  it("is not ready until the webhook receiver's listen has completed", async () => {
    const opsPort = await freePort();
    const receiverStarting = deferred();
    const listenMayComplete = deferred();
    const webhook = createHttpServer((_req, res) => res.end());
    const starting = start({
      ...baseDeps(await openStore(":memory:")),
      ops: { host: "127.0.0.1", port: opsPort },
      // A slow listen: the receiver accepts connections only once the test lets its listen complete.
      webhookReceiver: async () => {
        receiverStarting.resolve();
        await listenMayComplete.promise;
        await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));
        return {
          url: `http://127.0.0.1:${(webhook.address() as { port: number }).port}/webhooks/retention`,
          close: () => new Promise<void>((resolve) => webhook.close(() => resolve())),
        };
      },
    });
    await receiverStarting.promise;
    const early = await fetch(`http://127.0.0.1:${opsPort}/readyz`);
    expect({ status: early.status, text: await early.text(), listening: webhook.listening }).toEqual({
      status: 503,
      text: "not ready: starting: the webhook receiver is not listening yet\n",
      listening: false,
    });
    listenMayComplete.resolve();
    const daemon = await starting;
    expect(webhook.listening).toBe(true);
    expect((await fetch(`${daemon.opsUrl}/readyz`)).status).toBe(200);
    expect((await fetch(daemon.webhookUrl ?? "")).status).toBe(200);
  });
});

describe("startDaemon", () => {
  it("refuses a second instance on the same state file", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "rs-daemon-")), "state.sqlite");
    await start(baseDeps(await openStore(file)));
    await expect(startDaemon(baseDeps(await openStore(file)))).rejects.toBeInstanceOf(InstanceLockedError);
  });

  it("serves /livez, /readyz and Prometheus /metrics", async () => {
    const deps = baseDeps(await openStore(":memory:"));
    deps.metrics.polls.inc({ outcome: "ok" });
    const daemon = await start(deps);
    expect((await fetch(`${daemon.opsUrl}/livez`)).status).toBe(200);
    const ready = await fetch(`${daemon.opsUrl}/readyz`);
    expect(ready.status).toBe(200);
    deps.health.apiFailed(new ServerError({ status: 502, message: "bad gateway", method: "GET", path: "/me" }));
    const notReady = await fetch(`${daemon.opsUrl}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.text()).toMatch(/bad gateway/);
    const metrics = await (await fetch(`${daemon.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^retention_sync_polls_total\{outcome="ok"\} 1$/m);
    expect(metrics).toMatch(/^# TYPE retention_sync_process_cpu_seconds_total counter$/m);
    expect((await fetch(`${daemon.opsUrl}/nope`)).status).toBe(404);
  });

  it("runs the poller repeatedly without overlap and stops it cleanly", async () => {
    const deps = baseDeps(await openStore(":memory:"));
    let passes = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    const daemon = await start({
      ...deps,
      poll: {
        intervalSeconds: 0.01,
        run: async () => {
          concurrent += 1;
          maxConcurrent = Math.max(maxConcurrent, concurrent);
          passes += 1;
          await new Promise((resolve) => setTimeout(resolve, 5));
          concurrent -= 1;
        },
      },
    });
    while (passes < 5) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await daemon.stop("test")).toEqual({ clean: true });
    const after = passes;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(passes).toBe(after);
    expect(maxConcurrent).toBe(1);
  });

  it("aborts a running reconcile on stop, which ends clean once the job returns", async () => {
    const deps = baseDeps(await openStore(":memory:"));
    const started = deferred();
    let sawAbort = false;
    const daemon = await start({
      ...deps,
      // Only bounds a hang: a clean stop must come from the job ending, not from a timer.
      shutdownGraceMs: 60_000,
      reconcile: {
        schedule: "0 2 * * *",
        timezone: "UTC",
        runOnStart: true,
        run: async (signal) => {
          started.resolve();
          await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
          sawAbort = true;
        },
      },
    });
    await started.promise;
    expect(await daemon.stop("SIGTERM")).toEqual({ clean: true });
    expect(sawAbort).toBe(true);
  });

  it("reports an unclean stop when a job ignores the abort past the grace period", async () => {
    const deps = baseDeps(await openStore(":memory:"));
    const started = deferred();
    const stuck = deferred();
    const daemon = await start({
      ...deps,
      shutdownGraceMs: 50,
      reconcile: {
        schedule: "0 2 * * *",
        timezone: "UTC",
        runOnStart: true,
        run: () => {
          started.resolve();
          return stuck.promise;
        },
      },
    });
    await started.promise;
    expect(await daemon.stop("SIGTERM")).toEqual({ clean: false });
    stuck.resolve();
  });
});
