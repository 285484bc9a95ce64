/**
 * Faults: the whole daemon (`startConfiguredDaemon`, as `run` wires it) against an
 * emulator injecting 5xx, time-outs, malformed bodies, lost answers and 429 bursts, and a Slack
 * that fails, resets connections and rate-limits. The roster must converge to the plan with no
 * duplicate row, every alert must reach Slack exactly once, and nothing may crash.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConfiguredDaemon, startConfiguredDaemon } from "../../src/app/configured-daemon.js";
import { loadConfig } from "../../src/config/load-config.js";
import { captureStream } from "../helpers/capture-stream.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../helpers/daemon-world.js";
import {
  checkDelivery,
  checkRoster,
  eventually,
  rosterConverged,
  type Scenario,
  scenarioConfigYaml,
  setUpScenario,
  slugs,
} from "./support/resilience-scenario.js";

let world: DaemonWorld;
let scenario: Scenario;

beforeAll(async () => {
  world = await startDaemonWorld();
  scenario = await setUpScenario(world);
});
afterAll(async () => world.close());

const API_FAULTS = {
  errorRate: 0.1,
  timeoutRate: 0.03,
  timeoutDelayMs: 2_500,
  malformedRate: 0.03,
  lostResponseRate: 0.03,
};

describe("the daemon under injected API and Slack faults", () => {
  it("converges the roster with no duplicate and delivers every alert exactly once", async () => {
    const { emulator, slack, files } = world;
    // 30 retention alerts in the first pass become a digest; later waves go one message each.
    await scenario.raise([...slugs("own", 10, 40), ...slugs("rival", 0, 10)]);
    await emulator.control.faults(API_FAULTS);
    slack.setFaults({ method: "chat.postMessage", errorRate: 0.1, rateLimitRate: 0.1, resetRate: 0.05, seed: 1 });
    slack.setRateLimit({ method: "chat.postMessage", limit: 8, windowMs: 1_000, retryAfter: 1 });

    const configFile = await files.write("config.yaml", scenarioConfigYaml({ pollSeconds: 0.3, timeoutSeconds: 1 }));
    const env = daemonEnv(world, "faults", { HRIS_ROSTER_FILE: scenario.hrisFile });
    const logs = captureStream();
    const config = loadConfig({ file: configFile, env });
    let configured: ConfiguredDaemon | undefined = await startConfiguredDaemon(config, {
      argv: [],
      env,
      stdout: logs.stream,
      stderr: logs.stream,
    });
    try {
      // Later waves arrive while the daemon runs, each once the previous one is in Slack, each
      // behind three per-minute 429s.
      for (const wave of [
        [...slugs("own", 40, 60), ...slugs("rival", 10, 25)],
        [...slugs("own", 60, 70), ...slugs("rival", 25, 40)],
      ]) {
        await eventually(() => checkDelivery(scenario.raised, slack).lost.length === 0, 30_000);
        await emulator.control.faults({ ...API_FAULTS, statuses: [429, 429, 429] });
        await scenario.raise(wave);
      }

      let reconcileRuns = 0;
      const converged = await eventually(async () => {
        reconcileRuns += 1;
        await configured?.daemon.reconcileNow();
        return rosterConverged(await checkRoster(emulator, scenario.plan));
      }, 60_000);
      const delivered = await eventually(() => checkDelivery(scenario.raised, slack).lost.length === 0, 60_000);
      // A few more passes under faults: nothing may be posted a second time.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const { clean } = await configured.stop("test over");
      configured = undefined;

      const roster = await checkRoster(emulator, scenario.plan);
      const delivery = checkDelivery(scenario.raised, slack);
      expect({ converged, roster }).toEqual({
        converged: true,
        roster: { wrong: [], missing: [], duplicates: [], unexpected: [] },
      });
      expect({ delivered, delivery }).toEqual({ delivered: true, delivery: { lost: [], doubled: [], unexpected: [] } });
      expect(scenario.raised.size).toBe(100);
      expect(clean).toBe(true);

      // The faults really happened, on both sides.
      const requests = await emulator.control.requests();
      const injected = {
        serverErrors: requests.filter((r) => r.status >= 500 && r.status !== 504).length,
        timeouts: requests.filter((r) => r.status === 504).length,
        lostAnswers: requests.filter((r) => r.responseLost).length,
        perMinute429: requests.filter((r) => r.status === 429).length,
      };
      const slackCalls = slack.calls.filter((c) => c.method === "chat.postMessage");
      const slackFaults = {
        serverErrors: slackCalls.filter((c) => c.status >= 500).length,
        rateLimited: slackCalls.filter((c) => c.status === 429).length,
        resets: slackCalls.filter((c) => c.status === 0).length,
      };
      for (const count of [...Object.values(injected), ...Object.values(slackFaults)]) expect(count).toBeGreaterThan(0);
      const lines = logs
        .text()
        .split("\n")
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as { level: number; msg: string });
      expect(lines.filter((l) => l.level >= 60)).toEqual([]);
      console.info(
        `faults: ${requests.length} API requests (${JSON.stringify(injected)}), ` +
          `${slackCalls.length} Slack posts (${JSON.stringify(slackFaults)}), ` +
          `${reconcileRuns} reconcile runs to converge, ${slack.posted().length} messages for ${scenario.raised.size} alerts`,
      );
    } finally {
      await configured?.stop("test failed");
    }
  }, 180_000);
});
