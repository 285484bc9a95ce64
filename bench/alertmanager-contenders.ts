import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type EmulatorHandle,
  type FakeSlack,
  type FakeSlackCall,
  INCOMING_WEBHOOK,
  startEmulator,
  startFakeSlack,
} from "@retention-sync/emulator";
import { Pool } from "undici";
import { computeSignature } from "../src/alerts/verify-signature.js";
import { RetentionClient } from "../src/api/client.js";
import { BOTH_LENS_ROUTES } from "./alert-routes.js";
import { alertmanagerLog, spawnAlertmanager, writeAlertmanagerConfig } from "./alertmanager-binary.js";
import { seedBothLenses } from "./alerts-scenario.js";
import { CLI } from "./daemon-cli.js";
import { emulatorControl } from "./roster-fixture.js";
import { freePort, type ServiceProcess, spawnService } from "./service-process.js";
import { captureEndpoint, SLUG, slugsOf } from "./webhook-paced.js";

/** One detected change: the service's signed event body, and the person it is about. */
export interface CapturedEvent {
  readonly raw: string;
  readonly type: string;
  readonly slug: string;
}

/** What the section does to either product: start it, send it event `i`, read what reached Slack. */
export interface Contender {
  readonly name: string;
  /** A new process on the same ports, state and storage as the last one. */
  spawn(): ServiceProcess;
  readonly readyUrl: string;
  /** Event `i` of the run, as this product takes it; the HTTP status (0: no answer). */
  send(i: number): Promise<number>;
  /** What identifies event `i`'s alert in a Slack post (a person for the daemon, the alert's own label for Alertmanager). */
  keyOf(i: number): string;
  /** The product's Slack posts among `calls`. */
  isPost(call: FakeSlackCall): boolean;
  /** The alerts one post carries, by key (a digest carries several). */
  keysIn(call: FakeSlackCall): string[];
  close(): Promise<void>;
}

const PEOPLE_PER_LENS = 2_000;

/**
 * The world both products run in: the emulator the daemon reads (`/me`, the rosters) with no
 * changes on it, a second emulator seeded alike (the same ids) whose changes are raised and their
 * signed events captured, and one fake Slack. The changes live only on the second emulator so the
 * daemon's start-up poll (its backstop) finds none: every alert in Slack came through the webhook,
 * as every one of Alertmanager's came through its API.
 */
export interface SideBySideWorld {
  readonly emu: EmulatorHandle;
  readonly slack: FakeSlack;
  readonly events: readonly CapturedEvent[];
  close(): Promise<void>;
}

async function seededEmulator(): Promise<{ emu: EmulatorHandle; client: RetentionClient; competitorId: number }> {
  const emu = await startEmulator({
    port: 0,
    seed: "empty",
    rateLimitPerMinute: 1_000_000,
    importDelayMs: 0,
    allowLoopbackWebhooks: true,
  });
  const client = new RetentionClient({ baseUrl: emu.baseUrl, apiKey: emu.writeKey, requestsPerMinute: 1_000_000 });
  const competitor = await seedBothLenses(emu, client, PEOPLE_PER_LENS);
  return { emu, client, competitorId: competitor.id };
}

export async function startSideBySideWorld(events: number): Promise<SideBySideWorld> {
  const served = await seededEmulator();
  const source = await seededEmulator();
  const capture = await captureEndpoint();
  const slack = await startFakeSlack();
  try {
    if (served.competitorId !== source.competitorId) throw new Error("the two emulators seeded different ids");
    await source.client.addWebhook({
      url: capture.url,
      employeeWarnings: true,
      poachingOpportunities: true,
      employeeWarningSensitivity: 5,
      poachingOpportunitySensitivity: 5,
    });
    for (let made = 0, round = 0; made < events; round += 1) {
      const count = Math.min(1_000, events - made);
      const organizationId = round % 2 === 0 ? source.emu.organizationId : source.competitorId;
      const body = (await emulatorControl(source.emu, "POST", "signals", {
        count,
        organizationId,
        riskScore: 0.9,
      })) as {
        changes: unknown[];
      };
      made += body.changes.length;
    }
    if (capture.bodies.length !== events) throw new Error(`captured ${capture.bodies.length} of ${events} events`);
  } finally {
    await capture.close();
    await source.client.close();
    await source.emu.close();
  }
  // Interleave the lenses (the signals came 1,000 per lens at a time) so that consecutive events
  // go to the two channels in turn.
  const parsed = capture.bodies.map((raw) => {
    const event = JSON.parse(raw) as { type: string; data?: { employee?: { networkUrl?: string } } };
    return { raw, type: event.type, slug: SLUG.exec(JSON.stringify(event))?.[1] ?? "?" };
  });
  const half = Math.ceil(parsed.length / 2);
  const ordered: CapturedEvent[] = [];
  for (let i = 0; i < half; i += 1) {
    const a = parsed[i];
    const b = parsed[i + half];
    if (a) ordered.push(a);
    if (b) ordered.push(b);
  }
  await served.client.close();
  return {
    emu: served.emu,
    slack,
    events: ordered,
    async close() {
      await slack.close();
      await served.emu.close();
    },
  };
}

async function postStatus(pool: Pool, path: string, headers: Record<string, string>, body: string): Promise<number> {
  try {
    const res = await pool.request({
      path,
      method: "POST",
      headers,
      body,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    await res.body.dump();
    return res.statusCode;
  } catch {
    return 0;
  }
}

/**
 * `retention-sync run` (dist/cli.js, on this process's Node) with the receiver on, state in a
 * SQLite file of its own folder, routes one channel per lens, Slack paced at the most the config
 * allows (10 posts a second per channel, bursts of 10), and `nodeArgs` before the script.
 */
export async function retentionSyncContender(input: {
  dir: string;
  world: SideBySideWorld;
  nodeArgs?: readonly string[];
}): Promise<Contender> {
  const { world } = input;
  const stateDir = join(input.dir, "retention-sync-state");
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const [opsPort, webhookPort] = [await freePort(), await freePort()];
  const secret = `whsec_bench_${randomBytes(16).toString("hex")}`;
  const configFile = join(input.dir, "retention-sync-am.yaml");
  const config = {
    api: { url: world.emu.baseUrl },
    slack: { apiUrl: world.slack.url, messagesPerSecondPerChannel: 10, burstPerChannel: 10 },
    state: { path: join(stateDir, "state.sqlite") },
    alerts: { routes: BOTH_LENS_ROUTES, webhook: { enabled: true, host: "127.0.0.1", port: webhookPort } },
    roster: { enabled: false },
    daemon: { host: "127.0.0.1", port: opsPort },
    log: { level: "info" },
  };
  await writeFile(configFile, JSON.stringify(config, null, 2));
  const pool = new Pool(`http://127.0.0.1:${webhookPort}`, { connections: 16, pipelining: 1 });
  return {
    name: "retention-sync",
    readyUrl: `http://127.0.0.1:${opsPort}/readyz`,
    spawn: () =>
      spawnService({
        command: process.execPath,
        args: [...(input.nodeArgs ?? []), CLI, "run", "--config", configFile],
        env: {
          PATH: process.env.PATH ?? "",
          RETENTION_API_KEY: world.emu.readKey,
          SLACK_BOT_TOKEN: world.slack.token,
          RETENTION_WEBHOOK_SECRETS: secret,
        },
        cwd: input.dir,
        logFile: join(input.dir, "retention-sync-am.log"),
      }),
    send(i) {
      const event = world.events[i];
      if (!event) throw new Error(`no event ${i}`);
      const t = Math.floor(Date.now() / 1000);
      return postStatus(
        pool,
        "/webhooks/retention",
        {
          "content-type": "application/json",
          "x-service-event": event.type,
          "x-service-delivery": `whd_am_${i}`,
          "x-service-signature": `t=${t},v1=${computeSignature(secret, t, event.raw)}`,
        },
        event.raw,
      );
    },
    keyOf: (i) => world.events[i]?.slug ?? "?",
    isPost: (call) => call.method === "chat.postMessage" && call.status === 200,
    keysIn: slugsOf,
    close: () => pool.close(),
  };
}

/**
 * Alertmanager given the same events as alerts (`POST /api/v2/alerts`, one alert per request): a
 * label `key` unique per event (so two changes about one person stay two alerts, as they are two
 * alerts in the daemon), the person and the change type as labels.
 */
export async function alertmanagerContender(input: {
  dir: string;
  world: SideBySideWorld;
  binary: string;
}): Promise<Contender> {
  const { world } = input;
  const storageDir = join(input.dir, "alertmanager-data");
  await mkdir(storageDir, { recursive: true, mode: 0o700 });
  const configFile = join(input.dir, "alertmanager.yml");
  await writeAlertmanagerConfig(configFile, world.slack.incomingWebhookUrl);
  const port = await freePort();
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 16, pipelining: 1 });
  const KEY = /\be\d+\b/g;
  return {
    name: "alertmanager",
    readyUrl: `http://127.0.0.1:${port}/-/ready`,
    spawn: () =>
      spawnAlertmanager({
        binary: input.binary,
        configFile,
        storageDir,
        port,
        logFile: alertmanagerLog(input.dir),
      }),
    send(i) {
      const event = world.events[i];
      if (!event) throw new Error(`no event ${i}`);
      const alert = {
        labels: { alertname: "RetentionRisk", key: `e${i}`, person: event.slug, type: event.type },
        annotations: { summary: `${event.type}: ${event.slug}` },
        startsAt: new Date().toISOString(),
      };
      return postStatus(pool, "/api/v2/alerts", { "content-type": "application/json" }, JSON.stringify([alert]));
    },
    keyOf: (i) => `e${i}`,
    isPost: (call) => call.method === INCOMING_WEBHOOK && call.status === 200,
    keysIn: (call) => {
      const attachments = Array.isArray(call.args.attachments)
        ? (call.args.attachments as Array<{ text?: string }>)
        : [];
      return attachments.flatMap((a) => a.text?.match(KEY) ?? []);
    },
    close: () => pool.close(),
  };
}
