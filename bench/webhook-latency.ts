import { join } from "node:path";
import {
  type EmulatorHandle,
  type FakeSlack,
  type FakeSlackRateLimit,
  startEmulator,
  startFakeSlack,
} from "@retention-sync/emulator";
import type { AlertPipeline } from "../src/alerts/alert-pipeline.js";
import { startWebhookReceiver } from "../src/alerts/receive-webhook.js";
import { RetentionClient } from "../src/api/client.js";
import { configSchema } from "../src/config/schema.js";
import { openStateStore } from "../src/store/state-store.js";
import { BOTH_LENS_ROUTES } from "./alert-routes.js";
import { seedBothLenses, slackPipeline } from "./alerts-scenario.js";
import { emulatorControl } from "./roster-fixture.js";

export interface WebhookLatencyRun {
  readonly changes: number;
  readonly delivered: number;
  readonly latencyMs: { readonly p50: number; readonly max: number };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The emulator signing and POSTing every change to the daemon's receiver, which posts to the fake Slack. */
export interface WebhookWorld {
  readonly emu: EmulatorHandle;
  readonly slack: FakeSlack;
  readonly pipeline: AlertPipeline;
  readonly competitorId: number;
  readonly client: RetentionClient;
}

/**
 * Runs `work` in a webhook world (the receiver in this process, its state in the real SQLite file `stateFile`): `perLens` tracked people in the own company and in a competitor
 * workspace, a receiver registered as the company's webhook endpoint (every event, sensitivity 5).
 */
export async function withWebhookWorld<T>(
  input: { perLens: number; slackRateLimit?: FakeSlackRateLimit; stateFile: string },
  work: (world: WebhookWorld) => Promise<T>,
): Promise<T> {
  const emu = await startEmulator({
    port: 0,
    seed: "empty",
    rateLimitPerMinute: 1_000_000,
    importDelayMs: 0,
    allowLoopbackWebhooks: true,
  });
  const slack = await startFakeSlack();
  if (input.slackRateLimit) slack.setRateLimit(input.slackRateLimit);
  const store = await openStateStore(input.stateFile);
  const secrets: string[] = [];
  const client = new RetentionClient({ baseUrl: emu.baseUrl, apiKey: emu.writeKey, requestsPerMinute: 1_000_000 });
  try {
    const competitor = await seedBothLenses(emu, client, input.perLens);
    const config = configSchema.parse({
      slack: { token: slack.token, apiUrl: slack.url },
      alerts: { routes: BOTH_LENS_ROUTES, webhook: { enabled: true, host: "127.0.0.1", port: 0 } },
    });
    const pipeline = slackPipeline(config, store, client, slack);
    const settings = pipeline.webhookDeps().settings;
    // The secret is only known once the endpoint exists; the handler reads this array per request.
    const receiver = await startWebhookReceiver(config.alerts.webhook, {
      ...pipeline.webhookDeps(),
      settings: { ...settings, webhook: { ...settings.webhook, secrets } },
    });
    try {
      const endpoint = await client.addWebhook({
        url: receiver.url,
        employeeWarnings: true,
        poachingOpportunities: true,
        employeeWarningSensitivity: 5,
        poachingOpportunitySensitivity: 5,
      });
      if (!endpoint.secret) throw new Error("the emulator returned no webhook secret");
      secrets.push(endpoint.secret);
      return await work({ emu, slack, pipeline, competitorId: competitor.id, client });
    } finally {
      await receiver.close();
    }
  } finally {
    await client.close();
    await store.close();
    await slack.close();
    await emu.close();
  }
}

/**
 * Webhook mode, one change at a time (alternating lenses, high risk so that every sensitivity
 * passes), each awaited in Slack: the latency is one change's, not a queue's.
 */
export function runWebhookLatency(input: { changes: number; dir: string }): Promise<WebhookLatencyRun> {
  const stateFile = join(input.dir, "webhook-latency.sqlite");
  return withWebhookWorld({ perLens: 100, stateFile }, async ({ emu, slack, competitorId }) => {
    const latencies: number[] = [];
    for (let i = 0; i < input.changes; i += 1) {
      const before = slack.calls.length;
      const organizationId = i % 2 === 0 ? emu.organizationId : competitorId;
      const body = (await emulatorControl(emu, "POST", "signals", { count: 1, organizationId, riskScore: 0.9 })) as {
        changes: Array<{ detectedAt: string }>;
      };
      const detectedAt = Date.parse(body.changes[0]?.detectedAt ?? "");
      const deadline = Date.now() + 10_000;
      for (;;) {
        const post = slack.calls.slice(before).find((c) => c.method === "chat.postMessage" && c.status === 200);
        if (post) {
          latencies.push(post.at - detectedAt);
          break;
        }
        if (Date.now() > deadline) break;
        await sleep(5);
      }
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      changes: input.changes,
      delivered: latencies.length,
      latencyMs: { p50: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted[sorted.length - 1] ?? 0 },
    };
  });
}
