import { join } from "node:path";
import { type FakeSlackCall, startEmulator, startFakeSlack } from "@retention-sync/emulator";
import { type AlertPipeline, createAlertPipeline } from "../src/alerts/alert-pipeline.js";
import { alertSettings } from "../src/alerts/alert-settings.js";
import { RetentionClient } from "../src/api/client.js";
import { createDelivery } from "../src/app/runtime.js";
import { type Config, configSchema } from "../src/config/schema.js";
import { silentLogger } from "../src/logger.js";
import { createSlackWebClient, webClientPoster } from "../src/slack/slack-poster.js";
import { openStateStore, type StateStore } from "../src/store/state-store.js";
import { BOTH_LENS_ROUTES } from "./alert-routes.js";
import { apiRequests, emulatorControl } from "./roster-fixture.js";

/** The alert pipeline as the daemon wires it, posting to `slack` (the bench's fake Slack). */
export function slackPipeline(
  config: Config,
  store: StateStore,
  client: RetentionClient,
  slack: { readonly token: string; readonly url: string },
): AlertPipeline {
  const logger = silentLogger();
  const settings = alertSettings(config);
  return createAlertPipeline({
    settings,
    store,
    client,
    delivery: createDelivery(settings, {
      store,
      poster: webClientPoster(createSlackWebClient({ token: slack.token, apiUrl: slack.url, logger })),
      logger,
    }),
    logger,
  });
}

export interface AlertsRun {
  readonly changes: number;
  readonly rounds: number;
  readonly passes: number;
  /** Alerts listed in the Slack messages posted (one per single message, one per digest line). */
  readonly alertsInSlack: number;
  readonly slackMessages: number;
  readonly digestMessages: number;
  readonly slack429: number;
  readonly slackRateLimit: string;
  readonly apiRequests: number;
  readonly drainMs: number;
  /** From a change's detectedAt (emulator clock) to the last Slack post of the pass that carried it. */
  readonly latencyMs: { readonly p50: number; readonly p95: number; readonly max: number };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const DIGEST = /^:bell: (\d+) risk alerts/;

/** How many alerts one posted message carries: 1, or one per line of a digest's sections. */
export function alertsInMessage(call: FakeSlackCall): { readonly alerts: number; readonly digest: boolean } {
  const blocks = Array.isArray(call.args.blocks) ? (call.args.blocks as unknown[]) : [];
  const header = JSON.stringify(blocks[0] ?? "");
  if (!DIGEST.test(String(call.args.text ?? "")) && !header.includes("risk alerts"))
    return { alerts: 1, digest: false };
  let alerts = 0;
  for (const block of blocks) {
    const section = block as { type?: string; text?: { text?: string } };
    if (section.type === "section" && typeof section.text?.text === "string") {
      alerts += section.text.text.split("\n").length;
    }
  }
  return { alerts, digest: true };
}

/** A competitor workspace plus `perLens` tracked people in it and in the own company. */
export async function seedBothLenses(
  emu: Parameters<typeof emulatorControl>[0],
  client: RetentionClient,
  perLens: number,
): Promise<{ id: number }> {
  const competitor = await client.addCompetitor({
    name: "Acme Corp",
    companyNetworkUrl: "https://www.linkedin.com/company/acme-corp",
  });
  await emulatorControl(emu, "POST", "employees", { count: perLens, slugPrefix: "own", tracked: true });
  await emulatorControl(emu, "POST", "employees", {
    count: perLens,
    slugPrefix: "rival",
    tracked: true,
    organizationId: competitor.id,
  });
  return competitor;
}

/**
 * `changes` detected changes, half on the own company (retention lens) and half on a competitor
 * workspace (poaching lens), raised in `rounds` bursts through `/_emulator/signals` (at most 1,000
 * per call); after each burst one poll pass delivers into the fake Slack, then passes repeat
 * until the outbox is empty.
 */
export async function runAlerts(input: { changes: number; rounds: number; dir: string }): Promise<AlertsRun> {
  const emu = await startEmulator({ port: 0, seed: "empty", rateLimitPerMinute: 1_000_000, importDelayMs: 0 });
  // Slack's chat.postMessage allows about one message per second per channel; two channels here.
  const slackRateLimit = { method: "chat.postMessage", limit: 2, windowMs: 1_000, retryAfter: 1 };
  const slack = await startFakeSlack();
  slack.setRateLimit(slackRateLimit);
  const store = await openStateStore(join(input.dir, "alerts.sqlite"));
  try {
    const client = new RetentionClient({ baseUrl: emu.baseUrl, apiKey: emu.writeKey, requestsPerMinute: 1_000_000 });
    const competitor = await seedBothLenses(emu, client, 2_000);
    const config = configSchema.parse({
      slack: { token: slack.token, apiUrl: slack.url },
      alerts: {
        routes: BOTH_LENS_ROUTES,
      },
    });
    const pipeline = slackPipeline(config, store, client, slack);
    const perRound = Math.ceil(input.changes / input.rounds);
    const latencies: number[] = [];
    let passes = 0;
    let made = 0;
    const t0 = performance.now();
    const pass = async (detected: readonly number[]) => {
      const before = slack.calls.length;
      await pipeline.poll({ now: new Date(), dryRun: false });
      passes += 1;
      const posts = slack.calls.slice(before).filter((c) => c.method === "chat.postMessage" && c.status === 200);
      const last = posts.reduce((max, c) => Math.max(max, c.at), 0);
      if (last > 0) for (const at of detected) latencies.push(last - at);
    };
    for (let round = 0; round < input.rounds && made < input.changes; round += 1) {
      const detected: number[] = [];
      for (const organizationId of [emu.organizationId, competitor.id]) {
        let left = Math.min(Math.ceil(perRound / 2), input.changes - made);
        while (left > 0) {
          const count = Math.min(1_000, left);
          const body = (await emulatorControl(emu, "POST", "signals", { count, organizationId })) as {
            changes: Array<{ detectedAt: string }>;
          };
          for (const c of body.changes) detected.push(Date.parse(c.detectedAt));
          made += body.changes.length;
          left -= count;
        }
      }
      await pass(detected);
    }
    for (let extra = 0; extra < 20 && (await pipeline.delivery.outbox.size()) > 0; extra += 1) await pass([]);
    const drainMs = performance.now() - t0;
    const posts = slack.calls.filter((c) => c.method === "chat.postMessage");
    const delivered = posts.filter((c) => c.status === 200);
    const counted = delivered.map(alertsInMessage);
    const alertsInSlack = counted.reduce((sum, c) => sum + c.alerts, 0);
    const digestMessages = counted.filter((c) => c.digest).length;
    const log = await apiRequests(emu);
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      changes: made,
      rounds: input.rounds,
      passes,
      alertsInSlack,
      slackMessages: delivered.length,
      digestMessages,
      slack429: posts.filter((c) => c.status === 429).length,
      slackRateLimit: `${slackRateLimit.limit} chat.postMessage per ${slackRateLimit.windowMs} ms`,
      apiRequests: log.length,
      drainMs,
      latencyMs: { p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1] ?? 0 },
    };
  } finally {
    await store.close();
    await slack.close();
    await emu.close();
  }
}
