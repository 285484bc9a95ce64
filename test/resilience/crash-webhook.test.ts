/**
 * Crashes in webhook mode: `retention-sync run` with its webhook receiver on, registered
 * as the company's endpoint, SIGKILLed at seeded points while the emulator POSTs signed events to
 * it (after the k-th event it queued, or the k-th Slack post, with more events still coming),
 * restarted each time on the same state. The poll at each start and the service's retries (fired at the end by moving the
 * emulator's clock past the first retry) bring the same changes again by the other door.
 * Afterwards every alert is in Slack, and every double post is one the daemon warned about.
 *
 * `RESILIENCE_LONG=1` runs 60 kills instead of 12; `RESILIENCE_SEED=N` replays a sequence.
 */
import { Rng } from "@retention-sync/emulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RetentionClient } from "../../src/api/client.js";
import { bundleEntry } from "../helpers/bundle-entry.js";
import { type DaemonProcess, logLines, spawnDaemon } from "../helpers/daemon-process.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../helpers/daemon-world.js";
import { freePort } from "../helpers/free-port.js";
import { checkDelivery, eventually, type Scenario, setUpScenario, slugs } from "./support/resilience-scenario.js";

const LONG = process.env.RESILIENCE_LONG === "1";
const KILLS = LONG ? 60 : 12;
const SEED = Number(process.env.RESILIENCE_SEED ?? 20261124);
const WAVE = 8;
const REPOSTED = "an alert was being posted when the previous run stopped; posting it again (it may appear twice)";

let cli: string;
let world: DaemonWorld;
let scenario: Scenario;

beforeAll(async () => {
  cli = await bundleEntry("src/cli.ts", "cli-crash-webhook");
  world = await startDaemonWorld({ allowLoopbackWebhooks: true });
  scenario = await setUpScenario(world);
}, 60_000);
afterAll(async () => world.close());

function configYaml(port: number): string {
  return `api: { requestsPerMinute: 6000, timeoutSeconds: 5, maxRetries: 6 }
slack: { messagesPerSecondPerChannel: 10 }
alerts:
  backstopPollInterval: 3600
  digestThreshold: 25
  routes:
    - { name: retention, lens: retention, minRiskLevel: low, channel: "#hr-alerts" }
    - { name: poaching, lens: poaching, minRiskLevel: low, channel: "#poaching-alerts" }
  webhook: { enabled: true, host: 127.0.0.1, port: ${port} }
daemon: { port: 0, host: 127.0.0.1, shutdownGraceSeconds: 5 }
log: { level: debug }
`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (output: string, msg: string) => logLines(output, msg).length;
const polled = (proc: DaemonProcess) =>
  logLines<{ job?: string }>(proc.output(), "job finished").some((l) => l.job === "poll");

describe("SIGKILL while webhook events arrive", () => {
  it(
    `${KILLS} kills and restarts in webhook mode: no alert lost, every double post announced`,
    async () => {
      const { emulator, slack, files } = world;
      const rng = new Rng(SEED);
      const client = new RetentionClient({
        baseUrl: emulator.baseUrl,
        apiKey: emulator.writeKey,
        requestsPerMinute: 10_000,
      });
      const port = await freePort();
      const endpoint = await client.addWebhook({
        url: `http://127.0.0.1:${port}/webhooks/retention`,
        employeeWarnings: true,
        poachingOpportunities: true,
        employeeWarningSensitivity: 5,
        poachingOpportunitySensitivity: 5,
      });
      if (!endpoint.secret) throw new Error("the emulator returned no webhook secret");
      const env = daemonEnv(world, "crash-webhook", {
        RETENTION_WEBHOOK_SECRETS: endpoint.secret,
        RETENTION_SYNC_CONFIG: await files.write("crash-webhook.yaml", configYaml(port)),
      });
      const pool = [...slugs("own", 10, 60), ...slugs("rival", 0, 40)];
      let next = 0;
      const outputs: string[] = [];
      const kills = { total: 0, midDelivery: 0, reenabled: 0 };

      for (let cycle = 0; cycle < KILLS; cycle += 1) {
        const proc: DaemonProcess = await spawnDaemon(cli, env);
        // The start-up poll first, so that this wave reaches the daemon by webhook.
        expect(await eventually(() => polled(proc), 10_000)).toBe(true);
        // Ten failed deliveries in a row disable an endpoint (spec 6.5): an operator turns it back on.
        const [current] = await client.listWebhooks();
        if (current?.enabled === false) {
          await client.updateWebhook(endpoint.id, { enabled: true });
          kills.reenabled += 1;
        }
        const queuedBefore = count(proc.output(), "webhook event queued");
        const postsBefore = slack.posted().length;
        // Spaced out, so that the kill lands while events are still being delivered: the ones
        // raised after it fail and are retried by the service later.
        const wave = Array.from({ length: WAVE }, () => pool[next++ % pool.length] ?? "own-10");
        const raising = (async () => {
          for (const person of wave) {
            await scenario.raise([person]);
            await sleep(15);
          }
        })();
        const byPosts = rng.int(2) === 0;
        const after = 1 + rng.int(4);
        await eventually(
          () =>
            byPosts
              ? slack.posted().length - postsBefore >= after
              : count(proc.output(), "webhook event queued") - queuedBefore >= after,
          10_000,
        );
        await sleep(rng.int(40));
        const undelivered = checkDelivery(scenario.raised, slack).lost.length > 0;
        proc.child.kill("SIGKILL");
        const exit = await proc.exited;
        await raising;
        expect(exit.signal).toBe("SIGKILL");
        outputs.push(proc.output());
        kills.total += 1;
        if (undelivered) kills.midDelivery += 1;
      }

      // A clean run: its start-up poll, then the service's first retry of every failed delivery.
      const last = await spawnDaemon(cli, env);
      expect(await eventually(() => polled(last), 10_000)).toBe(true);
      const [endpointNow] = await client.listWebhooks();
      if (endpointNow?.enabled === false) await client.updateWebhook(endpoint.id, { enabled: true });
      await emulator.control.advanceClock(5 * 60 + 1);
      const delivered = await eventually(() => checkDelivery(scenario.raised, slack).lost.length === 0, 60_000);
      await sleep(1_000);
      last.child.kill("SIGTERM");
      const lastExit = await last.exited;
      outputs.push(last.output());
      await client.close();

      const all = outputs.join("\n");
      const delivery = checkDelivery(scenario.raised, slack);
      const warned = logLines<{ alerts: number }>(all, REPOSTED).reduce((sum, l) => sum + l.alerts, 0);
      const doublePosts = delivery.doubled.reduce((sum, d) => sum + d.extra, 0);
      const queued = count(all, "webhook event queued");
      const duplicates = count(all, "webhook event already handled; not posting again");
      const raisedTotal = [...scenario.raised.values()].reduce((sum, n) => sum + n, 0);

      expect({ delivered, lost: delivery.lost, unexpected: delivery.unexpected }).toEqual({
        delivered: true,
        lost: [],
        unexpected: [],
      });
      expect(doublePosts, JSON.stringify(delivery.doubled).slice(0, 2_000)).toBeLessThanOrEqual(warned);
      expect(lastExit).toEqual({ code: 0, signal: null });
      expect(kills.total).toBe(KILLS);
      // The kills landed while alerts were still on their way.
      expect(kills.midDelivery).toBeGreaterThanOrEqual(KILLS / 4);
      // Every event reached a live receiver: queued from it, or it met a dead one and came back as
      // the service's retry after the start-up poll had delivered its change (answered 200, not
      // posted again). An endpoint disabled after ten failures drops its retries (spec 6.5).
      expect(queued).toBeGreaterThan(0);
      expect(duplicates).toBeGreaterThan(0);
      if (kills.reenabled === 0) expect(queued + duplicates).toBeGreaterThanOrEqual(raisedTotal);
      console.info(
        `crash-webhook (seed ${SEED}): ${kills.total} SIGKILLs (${kills.midDelivery} with alerts still on their way); ` +
          `${raisedTotal} changes, ${queued} queued from webhook events, ${duplicates} events answered as already handled; ` +
          `0 lost, ${doublePosts} double posts (${warned} announced); endpoint re-enabled ${kills.reenabled} times`,
      );
    },
    LONG ? 1_200_000 : 180_000,
  );
});
