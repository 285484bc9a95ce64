import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { type FakeSlack, type FakeSlackCall, startEmulator, startFakeSlack } from "@retention-sync/emulator";
import { Pool } from "undici";
import { computeSignature } from "../src/alerts/verify-signature.js";
import { RetentionClient } from "../src/api/client.js";
import { BOTH_LENS_ROUTES } from "./alert-routes.js";
import { alertsInMessage, percentile, seedBothLenses } from "./alerts-scenario.js";
import { type DaemonCli, ensureBuiltCli, startDaemonCli } from "./daemon-cli.js";
import { readCpuMs, readProcIo, readRss, readTreeStats, stateFileBytes, treeDelta } from "./proc-stats.js";
import { emulatorControl } from "./roster-fixture.js";
import type { PostgresAfter, StateEngine, StateTarget } from "./state-engine.js";

/** The emulator disables an endpoint after this many failed deliveries in a row (AUTO_DISABLE_AFTER). */
const DISABLE_AFTER = 10;
/** The service's delivery time-out (spec 6.5). */
const TIMEOUT_MS = 10_000;

/** CPU and block-layer writes of a process (tree) over the two spans of the burst. */
export interface BurstCost {
  /** While the events were sent (hand-overs running behind the answers included). */
  readonly cpuMsSending: number;
  readonly writeBytesSending: number | undefined;
  /** From the first event sent until the last alert was in Slack. */
  readonly cpuMsToDrained: number;
  readonly writeBytesToDrained: number | undefined;
}

export interface WebhookPacedRun {
  readonly engine: StateEngine;
  readonly events: number;
  readonly concurrency: number;
  readonly answers: Readonly<Record<string, number>>;
  /** Time from sending an event to its HTTP status, per event. */
  readonly answerMs: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly over10s: number;
  /** Longest run of failed deliveries (non-2xx or over 10 s) in completion order, and the emulator's rule on it. */
  readonly maxConsecutiveFailures: number;
  readonly wouldDisable: boolean;
  readonly sendMs: number;
  /** Alerts expected (one per event) and found in Slack, digest lines counted; per person, raised vs posted. */
  readonly alertsInSlack: number;
  readonly missing: number;
  readonly duplicated: number;
  readonly slackMessages: number;
  readonly digestMessages: number;
  readonly slack429: number;
  readonly slackRateLimit: string;
  /** From the first event sent to the last alert in Slack. */
  readonly drainMs: number;
  /**
   * The daemon process: CPU from /proc/<pid>/stat; writes are its block-layer `write_bytes` (the
   * SQLite file, and its log file at level info).
   */
  readonly daemon: BurstCost & {
    readonly rssMaxMb: number;
    readonly stateBytes: { db: number; wal: number };
    readonly exitCode: number | null;
  };
  /**
   * Postgres: the server's processes (postmaster and children) over the same spans; writes are the
   * kernel's `write_bytes` (overstated for the WAL: proc-stats.ts), and `wchar` (every write():
   * WAL, data files and the answers sent to the daemon, which another process cannot tell apart).
   */
  readonly server?: BurstCost & { readonly wcharSending: number; readonly wcharToDrained: number };
  readonly postgres?: PostgresAfter;
  /** Event-loop delay of this (sending) process while it sent, p99 in ms: how much of the timing is ours. */
  readonly senderLoopDelayP99Ms: number;
}

export const SLUG = /linkedin\.com\/in\/([a-z0-9-]+)/;

/** The people a posted message alerts about: one per single message, one per digest line. */
export function slugsOf(call: FakeSlackCall): string[] {
  const blocks = Array.isArray(call.args.blocks)
    ? (call.args.blocks as Array<{ type?: string; text?: { text?: string } }>)
    : [];
  if (!alertsInMessage(call).digest) {
    const found = SLUG.exec(JSON.stringify(blocks));
    return found?.[1] ? [found[1]] : ["?"];
  }
  return blocks
    .filter((b) => b.type === "section" && typeof b.text?.text === "string")
    .flatMap((b) => (b.text?.text ?? "").split("\n").map((line) => SLUG.exec(line)?.[1] ?? "?"));
}

/** Raised vs posted, per person: how many alerts are missing from Slack and how many came twice or more. */
export function compare(
  expected: readonly string[],
  posted: readonly string[],
): { missing: number; duplicated: number } {
  const counts = new Map<string, number>();
  for (const slug of expected) counts.set(slug, (counts.get(slug) ?? 0) + 1);
  for (const slug of posted) counts.set(slug, (counts.get(slug) ?? 0) - 1);
  let missing = 0;
  let duplicated = 0;
  for (const n of counts.values()) {
    if (n > 0) missing += n;
    else duplicated -= n;
  }
  return { missing, duplicated };
}

/** A local endpoint the emulator delivers to: keeps each raw event body, answers 200 at once. */
export async function captureEndpoint(): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/capture`,
    bodies,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function waitForSlack(
  slack: FakeSlack,
  expected: number,
  quietMs: number,
): Promise<{ posted: FakeSlackCall[]; alerts: number }> {
  let alerts = 0;
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const posted = slack.calls.filter((c) => c.method === "chat.postMessage" && c.status === 200);
    alerts = posted.reduce((sum, c) => sum + alertsInMessage(c).alerts, 0);
    if (alerts !== last) {
      last = alerts;
      lastChange = Date.now();
    }
    if (alerts >= expected || Date.now() - lastChange > quietMs) return { posted, alerts };
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * A webhook burst sent `concurrency` at a time to `retention-sync run` (the built CLI, its state
 * in a file under `dir` or in a database on the bench's Postgres, `state.url` with PGPASSWORD). The emulator makes the events (their bodies are captured from its own
 * delivery to a local endpoint) but sends all of a control call's events at once, so this process
 * sends them again, signed with the daemon's secret (`computeSignature`, the same scheme), and
 * times each answer. The emulator's endpoint rule (disabled after 10 failures in a row, a failure
 * being a non-2xx answer or none within 10 s) is applied to the answers.
 */
export async function runWebhookPaced(input: {
  dir: string;
  state: StateTarget;
  /** Postgres: the database's size and a closing CHECKPOINT, measured once the daemon stopped. */
  afterPostgres?: () => Promise<PostgresAfter>;
  events: number;
  concurrency: number;
  log: (line: string) => void;
}): Promise<WebhookPacedRun> {
  await ensureBuiltCli(input.log);
  const emu = await startEmulator({
    port: 0,
    seed: "empty",
    rateLimitPerMinute: 1_000_000,
    importDelayMs: 0,
    allowLoopbackWebhooks: true,
  });
  const slackRateLimit = { method: "chat.postMessage", limit: 2, windowMs: 1_000, retryAfter: 1 };
  const slack = await startFakeSlack();
  slack.setRateLimit(slackRateLimit);
  const capture = await captureEndpoint();
  const client = new RetentionClient({ baseUrl: emu.baseUrl, apiKey: emu.writeKey, requestsPerMinute: 1_000_000 });
  const secret = `whsec_bench_${randomBytes(16).toString("hex")}`;
  let daemon: DaemonCli | undefined;
  try {
    const competitor = await seedBothLenses(emu, client, 2_000);
    await client.addWebhook({
      url: capture.url,
      employeeWarnings: true,
      poachingOpportunities: true,
      employeeWarningSensitivity: 5,
      poachingOpportunitySensitivity: 5,
    });
    const state = input.state;
    daemon = await startDaemonCli({
      dir: input.dir,
      name: `webhook-paced-${state.engine}`,
      config: {
        api: { url: emu.baseUrl },
        slack: { apiUrl: slack.url },
        state: state.engine === "sqlite" ? { path: state.file } : { url: state.urlWithoutPassword },
        alerts: { routes: BOTH_LENS_ROUTES, webhook: { enabled: true, host: "127.0.0.1", port: 0 } },
        roster: { enabled: false },
        daemon: { host: "127.0.0.1", port: 0 },
        log: { level: "info" },
      },
      env: {
        RETENTION_API_KEY: emu.readKey,
        SLACK_BOT_TOKEN: slack.token,
        RETENTION_WEBHOOK_SECRETS: secret,
        ...(state.engine === "postgres" ? { PGPASSWORD: state.password } : {}),
      },
    });
    // The start-up poll (the backstop) must be over before the changes exist, or it would take them.
    await daemon.waitForLine("poll pass done", 30_000);
    const receiver = String(daemon.started.webhook);
    input.log(`webhook burst: raising ${input.events} changes (captured from the emulator's own delivery)`);
    const expected: string[] = [];
    for (let made = 0, round = 0; made < input.events; round += 1) {
      const count = Math.min(1_000, input.events - made);
      const organizationId = round % 2 === 0 ? emu.organizationId : competitor.id;
      const body = (await emulatorControl(emu, "POST", "signals", { count, organizationId, riskScore: 0.9 })) as {
        changes: Array<{ employee: { networkUrl: string } | null }>;
      };
      for (const c of body.changes) expected.push(SLUG.exec(c.employee?.networkUrl ?? "")?.[1] ?? "?");
      made += body.changes.length;
    }
    if (capture.bodies.length !== input.events) {
      throw new Error(`captured ${capture.bodies.length} event bodies for ${input.events} changes`);
    }

    input.log(`webhook burst: sending ${input.events} signed events, ${input.concurrency} at a time, to ${receiver}`);
    const url = new URL(receiver);
    const pool = new Pool(url.origin, { connections: input.concurrency, pipelining: 1 });
    const loop = monitorEventLoopDelay({ resolution: 5 });
    const answers: Record<string, number> = {};
    const times: number[] = [];
    let failuresInARow = 0;
    let maxConsecutiveFailures = 0;
    let rssMaxKb = readRss(daemon.pid)?.rssKb ?? 0;
    const rssTimer = setInterval(() => {
      rssMaxKb = Math.max(rssMaxKb, readRss(daemon?.pid ?? 0)?.rssKb ?? 0);
    }, 500);
    const serverPid = state.engine === "postgres" ? state.serverPid : undefined;
    const server0 = serverPid === undefined ? undefined : readTreeStats(serverPid);
    const io0 = readProcIo(daemon.pid);
    const cpu0 = readCpuMs(daemon.pid) ?? 0;
    const sendStart = Date.now();
    const t0 = performance.now();
    loop.enable();
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < capture.bodies.length; i = next++) {
        const raw = capture.bodies[i] ?? "";
        const event = JSON.parse(raw) as { id: string; type: string };
        const t = Math.floor(Date.now() / 1000);
        const started = performance.now();
        let status = 0;
        try {
          const res = await pool.request({
            path: url.pathname,
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-service-event": event.type,
              "x-service-delivery": `whd_bench_${i}`,
              "x-service-signature": `t=${t},v1=${computeSignature(secret, t, raw)}`,
            },
            body: raw,
            headersTimeout: 60_000,
            bodyTimeout: 60_000,
          });
          status = res.statusCode;
          await res.body.dump();
        } catch {
          status = 0;
        }
        const ms = performance.now() - started;
        times.push(ms);
        answers[String(status)] = (answers[String(status)] ?? 0) + 1;
        const failed = status < 200 || status >= 300 || ms > TIMEOUT_MS;
        failuresInARow = failed ? failuresInARow + 1 : 0;
        maxConsecutiveFailures = Math.max(maxConsecutiveFailures, failuresInARow);
      }
    };
    await Promise.all(Array.from({ length: input.concurrency }, worker));
    const sendMs = performance.now() - t0;
    loop.disable();
    const cpuSending = (readCpuMs(daemon.pid) ?? 0) - cpu0;
    const ioSending = readProcIo(daemon.pid);
    const serverSending = serverPid === undefined ? undefined : treeDelta(server0, readTreeStats(serverPid));
    await pool.close();
    input.log(`webhook burst: sent in ${(sendMs / 1000).toFixed(1)} s; waiting for every alert in Slack`);
    const { posted, alerts } = await waitForSlack(slack, input.events, 60_000);
    const cpuToDrained = (readCpuMs(daemon.pid) ?? 0) - cpu0;
    const ioDrained = readProcIo(daemon.pid);
    const serverDrained = serverPid === undefined ? undefined : treeDelta(server0, readTreeStats(serverPid));
    clearInterval(rssTimer);
    const lastPost = posted.reduce((max, c) => Math.max(max, c.at), 0);
    const { missing, duplicated } = compare(expected, posted.flatMap(slugsOf));
    const sorted = [...times].sort((a, b) => a - b);
    const exitCode = await daemon.stop();
    daemon = undefined;
    const written = (io: typeof io0) => (io && io0 ? io.writeBytes - io0.writeBytes : undefined);
    const postgres = input.afterPostgres ? await input.afterPostgres() : undefined;
    return {
      engine: state.engine,
      events: input.events,
      concurrency: input.concurrency,
      answers,
      answerMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 },
      over10s: times.filter((ms) => ms > TIMEOUT_MS).length,
      maxConsecutiveFailures,
      wouldDisable: maxConsecutiveFailures >= DISABLE_AFTER,
      sendMs,
      alertsInSlack: alerts,
      missing,
      duplicated,
      slackMessages: posted.length,
      digestMessages: posted.filter((c) => alertsInMessage(c).digest).length,
      slack429: slack.calls.filter((c) => c.method === "chat.postMessage" && c.status === 429).length,
      slackRateLimit: `${slackRateLimit.limit} chat.postMessage per ${slackRateLimit.windowMs} ms`,
      drainMs: lastPost - sendStart,
      daemon: {
        cpuMsSending: cpuSending,
        writeBytesSending: written(ioSending),
        cpuMsToDrained: cpuToDrained,
        writeBytesToDrained: written(ioDrained),
        rssMaxMb: rssMaxKb / 1024,
        stateBytes: state.engine === "sqlite" ? stateFileBytes(state.file) : { db: 0, wal: 0 },
        exitCode,
      },
      ...(serverSending && serverDrained
        ? {
            server: {
              cpuMsSending: serverSending.cpuMs,
              writeBytesSending: serverSending.writeBytes,
              cpuMsToDrained: serverDrained.cpuMs,
              writeBytesToDrained: serverDrained.writeBytes,
              wcharSending: serverSending.wchar,
              wcharToDrained: serverDrained.wchar,
            },
          }
        : {}),
      ...(postgres ? { postgres } : {}),
      senderLoopDelayP99Ms: loop.percentile(99) / 1e6,
    };
  } finally {
    await daemon?.stop();
    await client.close();
    await capture.close();
    await slack.close();
    await emu.close();
  }
}
