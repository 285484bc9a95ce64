/**
 * Postgres hangs (a loopback TCP proxy in front of it stops passing anything either way, every
 * connection left open) under two replicas: the leader's heartbeat goes unanswered and it steps
 * down, the standby's attempts at the leader lock run out of time. Nobody can lead, so neither may
 * answer `/readyz` with 200: from the moment each one knows (the leader lost its term, the standby
 * warned that the election cannot reach the store), every answer is 503 with the reason, until
 * Postgres answers again and one of them leads.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HealthMonitor } from "../../src/daemon/health-monitor.js";
import { LeaderFence } from "../../src/daemon/leadership.js";
import { createMetrics } from "../../src/daemon/metrics.js";
import { type RunningDaemon, startDaemon } from "../../src/daemon/run-daemon.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";
import { type CapturedLogs, captureLogs } from "../helpers/capture-logs.js";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres-server.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";

const LOST = "lost the leadership: jobs stopped, standby again";
const ELECTION_FAILING = "leader election: the state store cannot be reached; trying again";

let postgres: TestPostgres;
let database: TcpProxy;

beforeAll(async () => {
  postgres = await startTestPostgres();
  database = await startTcpProxy("127.0.0.1", postgres.port);
}, 60_000);
afterAll(async () => {
  await database?.close();
  await postgres?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

interface Replica {
  readonly name: string;
  readonly logs: CapturedLogs;
  readonly store: StateStore;
  readonly daemon: RunningDaemon;
  has(msg: string): boolean;
  readyz(): Promise<{ status: number; text: string }>;
}

/** A replica whose only job writes through the fence every 50 ms: a leader always has a write in flight. */
async function startReplica(name: string, url: string): Promise<Replica> {
  const logs = captureLogs({ level: "info" });
  const store = await openStateStore(url);
  const fence = new LeaderFence();
  const jobs = store.fenced(fence);
  const daemon = await startDaemon({
    logger: logs.logger,
    store,
    metrics: createMetrics(),
    health: new HealthMonitor(60_000),
    ops: { host: "127.0.0.1", port: 0 },
    shutdownGraceMs: 1_000,
    // A job's store error turns the daemon not ready until the next probe write succeeds.
    storeProbeIntervalMs: 200,
    fence,
    election: { retryMs: 100, heartbeatMs: 200, heartbeatTimeoutMs: 1_000 },
    poll: {
      intervalSeconds: 0.05,
      run: () => jobs.namespace("hang.writes").set(name, Date.now()),
    },
  });
  return {
    name,
    logs,
    store,
    daemon,
    has: (msg) => logs.records().some((r) => r.msg === msg),
    readyz: async () => {
      const response = await fetch(`${daemon.opsUrl}/readyz`);
      return { status: response.status, text: await response.text() };
    },
  };
}

describe("Postgres hangs under two replicas", () => {
  it("neither says ready while the leader lock cannot be reached; one leads again once Postgres answers", async () => {
    const direct = await postgres.createDatabase("hang");
    const viaProxy = new URL(direct);
    viaProxy.port = String(database.port);
    const a = await startReplica("a", viaProxy.toString());
    await until("a to lead", () => a.has("became leader"));
    const b = await startReplica("b", viaProxy.toString());
    const replicas = [a, b];
    try {
      await until("b to stand by, ready", async () => (await b.readyz()).status === 200);
      expect((await b.readyz()).text).toBe("ready: standby: another replica leads\nrole: standby\n");

      database.stall();
      // Each replica's moment of knowing: after it, every /readyz answer must be 503.
      const knows = (r: Replica) => (r === a ? r.has(LOST) : r.has(ELECTION_FAILING));
      const afterKnowing: Array<{ name: string; status: number; text: string }> = [];
      const deadline = Date.now() + 60_000;
      let samplesAfterBoth = 0;
      while (samplesAfterBoth < 20 && Date.now() < deadline) {
        for (const replica of replicas) {
          const known = knows(replica);
          const answer = await replica.readyz();
          if (known) afterKnowing.push({ name: replica.name, ...answer });
        }
        if (replicas.every(knows)) samplesAfterBoth += 1;
        await sleep(50);
      }
      expect(samplesAfterBoth, a.logs.text().slice(-3_000)).toBe(20);
      expect(afterKnowing.filter((s) => s.status !== 503)).toEqual([]);
      expect(afterKnowing.find((s) => s.name === "a")?.text).toMatch(
        /^not ready: leader lock unreachable: the session holding the leader lock stopped answering .*\nrole: standby\n$/,
      );
      expect(afterKnowing.find((s) => s.name === "b")?.text).toMatch(
        /^not ready: leader lock unreachable: State store .*: the leader election failed: .*\nrole: standby\n$/,
      );
      expect(afterKnowing.map((s) => s.text).join("")).not.toContain(postgres.password);

      database.resume();
      // Postgres answers again: one replica leads, the other is a ready standby.
      const roles = async () => (await Promise.all(replicas.map((r) => r.readyz()))).map((r) => r.text);
      await until(
        "one leader and one ready standby",
        async () => {
          const texts = await roles();
          return (
            texts.some((t) => /^ready: .*\nrole: leader\n$/.test(t)) &&
            texts.includes("ready: standby: another replica leads\nrole: standby\n")
          );
        },
        60_000,
      );
    } finally {
      database.resume();
      for (const replica of replicas) {
        await replica.daemon.stop("test over");
        await replica.store.close();
      }
    }
  }, 120_000);
});
