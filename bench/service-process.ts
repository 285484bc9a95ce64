import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, openSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { readCpuMs, readRss } from "./proc-stats.js";

/**
 * A long-running service the side-by-side section starts, probes and kills: Alertmanager or
 * `retention-sync run`. Both are plain child processes, so the figures read from /proc mean the
 * same for both.
 */
export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** performance.now() at spawn. */
  readonly spawnedAt: number;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL, as an OOM killer or a node failure would; resolves once it exited. */
  kill(): Promise<void>;
}

export function spawnService(input: {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  readonly cwd: string;
  readonly logFile: string;
}): ServiceProcess {
  const fd = openSync(input.logFile, "a");
  const spawnedAt = performance.now();
  const child = spawn(input.command, [...input.args], { env: input.env, cwd: input.cwd, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const ended = once(child, "exit").then(() => undefined);
  return {
    child,
    pid: child.pid ?? 0,
    spawnedAt,
    async stop(graceMs = 30_000) {
      if (exited()) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await ended;
      clearTimeout(timer);
    },
    async kill() {
      if (exited()) return;
      child.kill("SIGKILL");
      await ended;
    },
  };
}

/** A port free on 127.0.0.1 now (the services are given fixed ports, so they can be probed from spawn on). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** One GET, a fresh connection each time (no keep-alive held open into the measured process): the status, 0 on error. */
function probe(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false, timeout: 1_000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
    req.on("timeout", () => req.destroy());
    req.end();
  });
}

/**
 * Polls `url` every `everyMs` from now until it answers 200: the milliseconds from the service's
 * spawn to that answer (the probe's own interval is the resolution).
 */
export async function msToReady(
  service: ServiceProcess,
  url: string,
  timeoutMs = 60_000,
  everyMs = 5,
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (service.child.exitCode !== null || service.child.signalCode !== null) {
      throw new Error(
        `${url}: the process exited (${service.child.exitCode ?? service.child.signalCode}) before ready`,
      );
    }
    if ((await probe(url)) === 200) return performance.now() - service.spawnedAt;
    if (performance.now() > deadline) throw new Error(`${url}: not ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export interface IdleSample {
  /** Median VmRSS over the window, MB. */
  readonly rssMedianMb: number;
  readonly rssMaxMb: number;
  /** CPU (user + system, /proc, 10 ms ticks) over the window. */
  readonly cpuMs: number;
  readonly seconds: number;
}

/** RSS every second and CPU over `seconds` of a process left alone. */
export async function sampleIdle(pid: number, seconds: number): Promise<IdleSample> {
  const cpu0 = readCpuMs(pid) ?? 0;
  const rss: number[] = [];
  for (let s = 0; s < seconds; s += 1) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    rss.push((readRss(pid)?.rssKb ?? 0) / 1024);
  }
  const cpuMs = (readCpuMs(pid) ?? 0) - cpu0;
  const sorted = [...rss].sort((a, b) => a - b);
  return {
    rssMedianMb: sorted[Math.floor(sorted.length / 2)] ?? 0,
    rssMaxMb: sorted.at(-1) ?? 0,
    cpuMs,
    seconds,
  };
}
