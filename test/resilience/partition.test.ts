/**
 * Fencing: the leader is cut off from Postgres (a loopback TCP proxy in front of the
 * database stalls its connections and the server drops its sessions, as keepalives would after a
 * real partition) while it posts alerts; the standby takes over and posts; then the network comes
 * back. The old leader must not post anything after the new leader's first post, must step down
 * to standby, and no alert may be lost. Each replica reaches the fake Slack through a proxy of its
 * own, so every post is known by replica and time.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleEntry } from "../helpers/bundle-entry.js";
import { type DaemonProcess, logLines, spawnDaemon } from "../helpers/daemon-process.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../helpers/daemon-world.js";
import { type GatedProxy, startGatedProxy } from "../helpers/gated-proxy.js";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres-server.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import {
  checkDelivery,
  eventually,
  type Scenario,
  scenarioConfigYaml,
  setUpScenario,
  slugs,
} from "./support/resilience-scenario.js";

const REPOSTED = "an alert was being posted when the previous run stopped; posting it again (it may appear twice)";
const LOST = "lost the leadership: jobs stopped, standby again";

let cli: string;
let world: DaemonWorld;
let scenario: Scenario;
let postgres: TestPostgres;
let database: TcpProxy;
let slackA: GatedProxy;
let slackB: GatedProxy;

beforeAll(async () => {
  cli = await bundleEntry("src/cli.ts", "cli-partition");
  world = await startDaemonWorld();
  scenario = await setUpScenario(world);
  postgres = await startTestPostgres();
  database = await startTcpProxy("127.0.0.1", postgres.port);
  slackA = await startGatedProxy(world.slack.url);
  slackB = await startGatedProxy(world.slack.url);
}, 60_000);
afterAll(async () => {
  await slackA?.close();
  await slackB?.close();
  await database?.close();
  await world?.close();
  await postgres?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const posts = (proxy: GatedProxy) => proxy.requests.filter((r) => r.path.includes("chat.postMessage"));

async function role(proc: DaemonProcess): Promise<string> {
  const ops = String(logLines<{ ops: string }>(proc.output(), "retention-sync daemon started")[0]?.ops);
  return (await (await fetch(`${ops}/readyz`)).text()).trim();
}

describe("a leader partitioned from Postgres", () => {
  it("never posts after the new leader's first post, steps down on its own while cut off, and no alert is lost", async () => {
    const { slack, files } = world;
    const url = await postgres.createDatabase("partition");
    const viaProxy = new URL(url);
    viaProxy.port = String(database.port);
    const config = await files.write(
      "partition-config.yaml",
      scenarioConfigYaml({ pollSeconds: 0.2, timeoutSeconds: 5 }).replace("runOnStart: true", "runOnStart: false"),
    );
    const base = { RETENTION_SYNC_CONFIG: config, HRIS_ROSTER_FILE: scenario.hrisFile };
    const a = await spawnDaemon(
      cli,
      daemonEnv(world, "unused", {
        ...base,
        RETENTION_SYNC_STATE: viaProxy.toString(),
        SLACK_API_URL: `${slackA.baseUrl}/`,
      }),
    );
    let b: DaemonProcess | undefined;
    try {
      expect(await eventually(() => logLines(a.output(), "became leader").length > 0, 15_000)).toBe(true);
      b = await spawnDaemon(
        cli,
        daemonEnv(world, "unused", { ...base, RETENTION_SYNC_STATE: url, SLACK_API_URL: `${slackB.baseUrl}/` }),
      );
      const standby = b;
      expect(await role(standby)).toMatch(/role: standby$/);

      // A stream of alerts on both lenses, two every 100 ms, that the leader is posting when the partition begins.
      const people = [...slugs("own", 10, 60), ...slugs("rival", 0, 40)];
      let raising = true;
      let raisedCount = 0;
      const stream = (async () => {
        for (let i = 0; raising && i < 200; i += 1) {
          await scenario.raise([
            people[(2 * i) % people.length] ?? "own-10",
            people[(2 * i + 51) % people.length] ?? "rival-1",
          ]);
          raisedCount += 2;
          await sleep(100);
        }
      })();
      expect(await eventually(() => posts(slackA).length >= 4, 15_000), a.output().slice(-3_000)).toBe(true);
      const partitionedAt = Date.now();
      database.partition();

      // The server saw the leader's sessions go: the standby takes over and posts the rest.
      expect(await eventually(() => logLines(standby.output(), "became leader").length > 0, 15_000)).toBe(true);
      expect(await eventually(() => posts(slackB).length > 0, 15_000)).toBe(true);
      const firstNewPost = Math.min(...posts(slackB).map((r) => r.at));
      // Still cut off, the old leader's heartbeat goes unanswered: it stops its jobs on its own.
      expect(await eventually(() => logLines(a.output(), LOST).length > 0, 20_000), a.output().slice(-3_000)).toBe(
        true,
      );
      const steppedDownAt = Date.now();
      await sleep(500);
      // The network comes back: what the old leader had in flight fails; it stays a standby.
      database.heal();
      const healedAt = Date.now();
      await sleep(1_000);
      raising = false;
      await stream;
      const delivered = await eventually(() => checkDelivery(scenario.raised, slack).lost.length === 0, 30_000);
      await sleep(1_500);
      expect(await role(a)).toMatch(/role: standby$/);
      expect(await role(standby)).toMatch(/role: leader$/);

      const oldPosts = posts(slackA).map((r) => r.at);
      const lastOldPost = Math.max(...oldPosts);
      const delivery = checkDelivery(scenario.raised, slack);
      const all = `${a.output()}\n${standby.output()}`;
      const warnings = logLines<{ alerts: number }>(all, REPOSTED);
      const announced = warnings.reduce((sum, l) => sum + l.alerts, 0);
      const doublePosts = delivery.doubled.reduce((sum, d) => sum + d.extra, 0);
      const [lost] = logLines<{ reason: string; epoch: number }>(a.output(), LOST);
      const [newTerm] = logLines<{ epoch: number }>(standby.output(), "became leader");

      expect(lastOldPost, JSON.stringify({ oldPosts, firstNewPost, partitionedAt })).toBeLessThan(firstNewPost);
      expect(posts(slackA).filter((r) => r.at >= partitionedAt).length).toBeLessThanOrEqual(2);
      expect({ delivered, lost: delivery.lost, unexpected: delivery.unexpected }).toEqual({
        delivered: true,
        lost: [],
        unexpected: [],
      });
      expect(doublePosts, JSON.stringify({ doubled: delivery.doubled, warnings })).toBeLessThanOrEqual(announced);
      expect(newTerm?.epoch).toBe((lost?.epoch ?? 0) + 1);
      expect(lost?.reason).toMatch(/stopped answering/);
      console.info(
        `partition: the leader (epoch ${lost?.epoch}) posted ${oldPosts.length} messages, the last ` +
          `${firstNewPost - lastOldPost} ms before the new leader's (epoch ${newTerm?.epoch}) first post ` +
          `(${firstNewPost - partitionedAt} ms after the partition began); ` +
          `${posts(slackA).filter((r) => r.at >= partitionedAt).length} old-leader posts after the partition began, ` +
          `0 after the network came back ${Date.now() - healedAt} ms ago; it stepped down ${steppedDownAt - partitionedAt} ms ` +
          `into the partition because ${lost?.reason}; ` +
          `${raisedCount} alerts raised, ${doublePosts} double posts (${announced} announced), 0 lost`,
      );

      b.child.kill("SIGTERM");
      a.child.kill("SIGTERM");
      expect(await b.exited).toEqual({ code: 0, signal: null });
      expect(await a.exited).toEqual({ code: 0, signal: null });
    } finally {
      a.child.kill("SIGKILL");
      b?.child.kill("SIGKILL");
    }
  }, 120_000);
});
