/**
 * Crashes: `retention-sync run` as a real process, killed with SIGKILL at seeded random
 * points of a reconcile (after the k-th write request) and of an alert pass (after the j-th Slack
 * post), restarted each time on the same state file while the HRIS file and the risk changes keep
 * coming. Afterwards one clean run must leave the roster exactly as planned with no duplicate
 * row, every alert in Slack, and every double post one the daemon itself warned about.
 *
 * `RESILIENCE_LONG=1` runs 100 kills instead of 20; `RESILIENCE_SEED=N` replays a sequence.
 */

import { Rng } from "@retention-sync/emulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleEntry } from "../helpers/bundle-entry.js";
import { type DaemonProcess, logLines, spawnDaemon } from "../helpers/daemon-process.js";
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

const LONG = process.env.RESILIENCE_LONG === "1";
const KILLS = LONG ? 100 : 20;
const SEED = Number(process.env.RESILIENCE_SEED ?? 20261123);
const WAVE = 8;

let cli: string;
let world: DaemonWorld;
let scenario: Scenario;

beforeAll(async () => {
  cli = await bundleEntry("src/cli.ts", "cli-crash");
  world = await startDaemonWorld();
  scenario = await setUpScenario(world);
}, 60_000);
afterAll(async () => world.close());

async function writeRequests(): Promise<number> {
  return (await world.emulator.control.requests()).filter((r) => r.method !== "GET").length;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("SIGKILL at random points of reconcile and alert passes", () => {
  it(
    `${KILLS} kills and restarts, then one clean run: roster as planned, no duplicate, no alert lost`,
    async () => {
      const { emulator, slack, files } = world;
      // Seeded, so a failing sequence of kill points can be replayed with RESILIENCE_SEED.
      const rng = new Rng(SEED);
      // Every API answer takes 25 ms, so a reconcile spans a second or two of killable time.
      await emulator.control.faults({ latencyMs: 25 });
      // The long variant adds over 1,000 people in a day: past the emulator's default row allowance.
      await emulator.control.billing({ rowsPerDay: 100_000 });
      const env = daemonEnv(world, "crash", {
        RETENTION_SYNC_CONFIG: await files.write(
          "crash-config.yaml",
          scenarioConfigYaml({ pollSeconds: 0.2, timeoutSeconds: 5 }),
        ),
        HRIS_ROSTER_FILE: scenario.hrisFile,
      });
      // People who stay tracked whatever the file does (it never drops below own-59).
      const pool = [...slugs("own", 10, 60), ...slugs("rival", 0, 40)];
      let next = 0;
      let plan = { keepOwn: 98, joiners: 20 };
      await scenario.writeHris(plan);
      const outputs: string[] = [];
      const kills = { total: 0, midReconcile: 0, midDelivery: 0 };

      for (let cycle = 0; cycle < KILLS; cycle += 1) {
        const target = cycle % 2 === 0 ? "reconcile" : "alerts";
        if (target === "reconcile") {
          // Each reconcile kill meets a new file: 2 more leavers, 20 more joiners.
          plan = { keepOwn: plan.keepOwn - (plan.keepOwn > 60 ? 2 : 0), joiners: plan.joiners + 20 };
          await scenario.writeHris(plan);
        } else {
          await scenario.raise(Array.from({ length: WAVE }, () => pool[next++ % pool.length] ?? "own-10"));
        }
        const writesBefore = await writeRequests();
        const postsBefore = slack.posted().length;
        const waveDue = [...scenario.raised.values()].reduce((sum, n) => sum + n, 0);
        const proc: DaemonProcess = await spawnDaemon(cli, env);
        // A reconcile is killed after 0-3 writes; an alert pass after 1-3 Slack posts, so that the
        // kill falls inside the delivery (a kill before the first post is a poll's, not a delivery's).
        const after = target === "reconcile" ? rng.int(4) : 1 + rng.int(3);
        await eventually(
          async () =>
            target === "reconcile"
              ? (await writeRequests()) - writesBefore >= after || proc.output().includes('"msg":"reconcile finished"')
              : slack.posted().length - postsBefore >= after,
          10_000,
        );
        await sleep(rng.int(40));
        const stillReconciling = !proc.output().includes('"msg":"reconcile finished"');
        const tally = checkDelivery(scenario.raised, slack);
        const undelivered = tally.lost.length > 0 && waveDue > 0;
        proc.child.kill("SIGKILL");
        const exit = await proc.exited;
        expect(exit.signal).toBe("SIGKILL");
        outputs.push(proc.output());
        kills.total += 1;
        if (target === "reconcile" && stillReconciling) kills.midReconcile += 1;
        if (target === "alerts" && undelivered && slack.posted().length > postsBefore) kills.midDelivery += 1;
      }

      // One clean run finishes everything, then stops on SIGTERM.
      const last = await spawnDaemon(cli, env);
      const converged = await eventually(async () => rosterConverged(await checkRoster(emulator, plan)), 60_000);
      const delivered = await eventually(() => checkDelivery(scenario.raised, slack).lost.length === 0, 60_000);
      await sleep(1_000);
      last.child.kill("SIGTERM");
      const lastExit = await last.exited;
      outputs.push(last.output());

      const roster = await checkRoster(emulator, plan);
      const delivery = checkDelivery(scenario.raised, slack);
      const all = outputs.join("\n");
      // Counted in alerts, like the double posts: a digest caught mid-post repeats all its alerts.
      const warnedDuplicates = logLines<{ alerts: number }>(
        all,
        "an alert was being posted when the previous run stopped; posting it again (it may appear twice)",
      ).reduce((sum, l) => sum + l.alerts, 0);
      const doublePosts = delivery.doubled.reduce((sum, d) => sum + d.extra, 0);
      const finished = logLines<{ report: { applied?: { alreadyPresent: number } } }>(all, "reconcile finished");
      const alreadyPresent = finished.reduce((sum, l) => sum + (l.report.applied?.alreadyPresent ?? 0), 0);
      const resumed = logLines(all, "finishing an interrupted reconcile run").length;

      const diagnosis = () =>
        last
          .output()
          .split("\n")
          .filter((l) => /"level":(40|50|60)|"msg":"reconcile finished"/.test(l))
          .join("\n");
      expect({ converged, roster }, diagnosis()).toEqual({
        converged: true,
        roster: { wrong: [], missing: [], duplicates: [], unexpected: [] },
      });
      expect({ delivered, lost: delivery.lost, unexpected: delivery.unexpected }, diagnosis()).toEqual({
        delivered: true,
        lost: [],
        unexpected: [],
      });
      // Every double post is one the daemon warned about when it restarted.
      const warnings = logLines(
        all,
        "an alert was being posted when the previous run stopped; posting it again (it may appear twice)",
      );
      expect(doublePosts, JSON.stringify({ doubled: delivery.doubled, warnings }).slice(0, 3_000)).toBeLessThanOrEqual(
        warnedDuplicates,
      );
      expect(lastExit).toEqual({ code: 0, signal: null });
      expect(kills.total).toBe(KILLS);
      // The kill points really landed inside the work, not only between runs. How many did depends
      // on timing as well as on the seed: the floors leave room for a slow machine.
      expect(kills.midReconcile, JSON.stringify(kills)).toBeGreaterThanOrEqual(KILLS / 10);
      expect(kills.midDelivery, JSON.stringify(kills)).toBeGreaterThanOrEqual(KILLS / 4);
      console.info(
        `crash (seed ${SEED}): ${kills.total} SIGKILLs (${kills.midReconcile} inside a reconcile, ` +
          `${kills.midDelivery} inside an alert delivery); ${resumed} interrupted reconciles resumed, ` +
          `${alreadyPresent} re-sent adds answered as already present, 0 duplicate rows; ` +
          `${scenario.raised.size} people alerted, 0 lost, ${doublePosts} double posts ` +
          `(${warnedDuplicates} announced by the daemon's warnings)`,
      );
    },
    LONG ? 1_800_000 : 240_000,
  );
});
