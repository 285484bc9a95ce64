import { join } from "node:path";
import { alertsInMessage, percentile } from "./alerts-scenario.js";
import { emulatorControl } from "./roster-fixture.js";
import { sleep, withWebhookWorld } from "./webhook-latency.js";

export interface WebhookBurstRun {
  readonly changes: number;
  readonly alertsInSlack: number;
  readonly slackMessages: number;
  readonly digestMessages: number;
  readonly slack429: number;
  readonly slackRateLimit: string;
  /** From the first change's detection to the last alert in Slack. */
  readonly drainMs: number;
  /** Detection to Slack post per change, matched first-in first-out (see BENCHMARKS.md). */
  readonly latencyMs: { readonly p50: number; readonly p95: number; readonly max: number };
  /** The emulator's endpoint at the end, and its most consecutive failures seen after any control call. */
  readonly endpoint: {
    readonly enabled: boolean;
    readonly maxConsecutiveFailures: number;
    readonly slowestRecentMs: number;
  };
}

/**
 * Webhook mode under a burst: `changes` detected changes, 1,000 at a time alternating lenses,
 * each signed and POSTed by the emulator to the receiver, which queues it and flushes; the
 * sender turns the backlog of each channel into digests. Runs until every alert is in Slack.
 */
export function runWebhookBurst(input: { changes: number; dir: string; timeoutMs?: number }): Promise<WebhookBurstRun> {
  const slackRateLimit = { method: "chat.postMessage", limit: 2, windowMs: 1_000, retryAfter: 1 };
  const stateFile = join(input.dir, "webhook-burst.sqlite");
  return withWebhookWorld(
    { perLens: 2_000, slackRateLimit, stateFile },
    async ({ emu, slack, pipeline, competitorId, client }) => {
      const detected: number[] = [];
      let maxConsecutiveFailures = 0;
      const endpointNow = async () => {
        const [endpoint] = await client.listWebhooks();
        maxConsecutiveFailures = Math.max(maxConsecutiveFailures, endpoint?.health?.consecutiveFailures ?? 0);
        return endpoint;
      };
      for (let made = 0, round = 0; made < input.changes; round += 1) {
        const count = Math.min(1_000, input.changes - made);
        const organizationId = round % 2 === 0 ? emu.organizationId : competitorId;
        const body = (await emulatorControl(emu, "POST", "signals", { count, organizationId, riskScore: 0.9 })) as {
          changes: Array<{ detectedAt: string }>;
        };
        for (const c of body.changes) detected.push(Date.parse(c.detectedAt));
        made += body.changes.length;
        // The control call returns once the emulator's deliveries of its events are answered or timed out.
        await endpointNow();
      }
      const delivered = () => slack.calls.filter((c) => c.method === "chat.postMessage" && c.status === 200);
      const inSlack = () => delivered().reduce((sum, c) => sum + alertsInMessage(c).alerts, 0);
      const deadline = Date.now() + (input.timeoutMs ?? 600_000);
      // Events arrive with their own flushes; this only nudges the sender once the burst is queued.
      while (inSlack() < detected.length && Date.now() < deadline) {
        await pipeline.delivery.flush();
        await sleep(200);
      }
      const posts = delivered().sort((a, b) => a.at - b.at);
      const arrivals: number[] = [];
      for (const post of posts) for (let i = 0; i < alertsInMessage(post).alerts; i += 1) arrivals.push(post.at);
      const sortedDetected = [...detected].sort((a, b) => a - b);
      const latencies = arrivals.map((at, i) => at - (sortedDetected[i] ?? at)).sort((a, b) => a - b);
      const counted = posts.map(alertsInMessage);
      const endpoint = await endpointNow();
      const recent = (endpoint?.health?.recentDeliveries ?? []) as Array<{ durationMs?: number }>;
      return {
        endpoint: {
          enabled: endpoint?.enabled === true,
          maxConsecutiveFailures,
          slowestRecentMs: Math.max(0, ...recent.map((d) => d.durationMs ?? 0)),
        },
        changes: detected.length,
        alertsInSlack: arrivals.length,
        slackMessages: posts.length,
        digestMessages: counted.filter((c) => c.digest).length,
        slack429: slack.calls.filter((c) => c.method === "chat.postMessage" && c.status === 429).length,
        slackRateLimit: `${slackRateLimit.limit} chat.postMessage per ${slackRateLimit.windowMs} ms`,
        drainMs: (posts.at(-1)?.at ?? 0) - (sortedDetected[0] ?? 0),
        latencyMs: {
          p50: percentile(latencies, 50),
          p95: percentile(latencies, 95),
          max: latencies.at(-1) ?? 0,
        },
      };
    },
  );
}
