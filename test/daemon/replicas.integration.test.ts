/**
 * Two `retention-sync run` replicas (in-process, through the CLI's `main`) on one real Postgres:
 * one leads, the other stands by, ready, with its webhook receiver on. Webhook events the
 * emulator delivers to the standby are stored in the shared inbox and posted once, by the leader;
 * the standby never hands over or posts. When the leader stops, the standby takes over.
 */
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RetentionClient } from "../../src/api/client.js";
import { main } from "../../src/cli.js";
import { HealthMonitor } from "../../src/daemon/health-monitor.js";
import { LeaderFence } from "../../src/daemon/leadership.js";
import { createMetrics } from "../../src/daemon/metrics.js";
import { startDaemon } from "../../src/daemon/run-daemon.js";
import { FencedOutError } from "../../src/errors.js";
import { openStateStore } from "../../src/store/state-store.js";
import { captureLogs } from "../helpers/capture-logs.js";
import { captureStream } from "../helpers/capture-stream.js";
import { type DaemonWorld, startDaemonWorld } from "../helpers/daemon-world.js";
import { freePort } from "../helpers/free-port.js";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres-server.js";

let world: DaemonWorld;
let postgres: TestPostgres;

beforeAll(async () => {
  world = await startDaemonWorld({ allowLoopbackWebhooks: true });
  postgres = await startTestPostgres();
}, 60_000);
afterAll(async () => {
  await world?.close();
  await postgres?.stop();
});

interface Replica {
  readonly ops: string;
  lines(): Array<Record<string, unknown>>;
  has(msg: string): boolean;
  stop(): Promise<number>;
}

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function startReplica(name: string, env: Record<string, string>, webhookPort: number): Promise<Replica> {
  const config = `${world.files.dir}/${name}.yaml`;
  writeFileSync(
    config,
    [
      "api: { requestsPerMinute: 6000, timeoutSeconds: 5, maxRetries: 2 }",
      "alerts:",
      "  backstopPollInterval: 3600",
      "  routes:",
      "    - { name: all, lens: both, minRiskLevel: low, channel: '#hr-alerts' }",
      `  webhook: { enabled: true, host: 127.0.0.1, port: ${webhookPort} }`,
      "daemon: { port: 0, host: 127.0.0.1, shutdownGraceSeconds: 10 }",
      "log: { level: debug }",
    ].join("\n"),
  );
  const stdout = captureStream();
  const stderr = captureStream();
  const lines = () =>
    stdout
      .text()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const controller = new AbortController();
  const exit = main(["run", "--config", config], {
    env: {
      RETENTION_API_URL: world.emulator.baseUrl,
      RETENTION_API_KEY: world.emulator.writeKey,
      SLACK_BOT_TOKEN: world.slack.token,
      SLACK_API_URL: world.slack.url,
      ...env,
    },
    stdout: stdout.stream,
    stderr: stderr.stream,
    signal: controller.signal,
  });
  const started = await until(`${name} to start`, async () => {
    const early = await Promise.race([exit, new Promise((resolve) => setTimeout(() => resolve(undefined), 10))]);
    if (early !== undefined) throw new Error(`${name} exited with ${String(early)}: ${stderr.text()}`);
    return lines().find((l) => l.msg === "retention-sync daemon started");
  });
  return {
    ops: String(started.ops),
    lines,
    has: (msg) => lines().some((l) => l.msg === msg),
    stop: () => {
      controller.abort();
      return exit;
    },
  };
}

async function readyz(replica: Replica): Promise<{ status: number; text: string }> {
  const response = await fetch(`${replica.ops}/readyz`);
  return { status: response.status, text: await response.text() };
}

async function leaderGauge(replica: Replica): Promise<string | undefined> {
  const text = await (await fetch(`${replica.ops}/metrics`)).text();
  return /^retention_sync_leader (\d)$/m.exec(text)?.[1];
}

describe("replicas on one Postgres", () => {
  it("one leads, the standby is ready and stores webhooks that the leader posts once; the standby takes over", async () => {
    const { emulator, slack } = world;
    const url = await postgres.createDatabase();
    const database = new URL(url).pathname.slice(1);
    const portA = await freePort();
    const portB = await freePort();
    await emulator.control.seedPeople({ count: 10, slugPrefix: "ha", tracked: true });
    const client = new RetentionClient({ baseUrl: emulator.baseUrl, apiKey: emulator.writeKey });
    // The service delivers to the standby's receiver only.
    const endpoint = await client.addWebhook({
      url: `http://127.0.0.1:${portB}/webhooks/retention`,
      employeeWarningSensitivity: 3,
    });
    await client.close();
    const secret = endpoint.secret ?? "";

    const a = await startReplica("a", { RETENTION_SYNC_STATE: url, RETENTION_WEBHOOK_SECRETS: secret }, portA);
    await until("a to lead", () => a.has("became leader"));
    // B finds its password in PGPASSWORD, not in the URL.
    const b = await startReplica(
      "b",
      {
        RETENTION_SYNC_STATE: postgres.urlWithoutPassword(database),
        PGPASSWORD: postgres.password,
        RETENTION_WEBHOOK_SECRETS: secret,
      },
      portB,
    );
    try {
      expect(b.lines().find((l) => l.msg === "retention-sync daemon started")).toMatchObject({
        role: "standby",
        state: postgres.urlWithoutPassword(database),
      });
      expect(await readyz(a)).toEqual({ status: 200, text: expect.stringMatching(/^ready: .*\nrole: leader\n$/) });
      // Ready to stand by once its first attempt at the leader lock was answered (held by a).
      await until("b to stand by", async () => ((await readyz(b)).status === 200 ? true : undefined));
      expect(await readyz(b)).toEqual({
        status: 200,
        text: "ready: standby: another replica leads\nrole: standby\n",
      });
      expect(await leaderGauge(a)).toBe("1");
      expect(await leaderGauge(b)).toBe("0");
      // Its start-up poll done, the leader only learns of new changes through the shared inbox.
      await until("a's first poll", () => a.lines().some((l) => l.msg === "job finished" && l.job === "poll"));

      const postsBefore = slack.posted().length;
      const changes = await emulator.control.signals({
        count: 3,
        organizationId: emulator.organizationId,
        riskScore: 0.9,
      });
      await until("the standby to queue the events", () =>
        b.lines().filter((l) => l.msg === "webhook event queued").length >= 3 ? true : undefined,
      );
      await until("the leader to post them", () => (slack.posted().length - postsBefore >= 3 ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const names = changes.map((c) => (c as { employee?: { name?: string } }).employee?.name ?? "?");
      const posted = slack
        .posted()
        .slice(postsBefore)
        .map((m) => JSON.stringify(m.blocks));
      for (const name of names)
        expect(
          posted.filter((m) => m.includes(`|${name}>`)),
          name,
        ).toHaveLength(1);
      expect(a.has("webhook events handed over")).toBe(true);
      expect(b.has("webhook events handed over")).toBe(false);
      expect(b.lines().some((l) => l.msg === "job finished")).toBe(false);

      // The leader stops (a rolling update): it gives the lead back, the standby takes it at once.
      const stoppedAt = Date.now();
      expect(await a.stop()).toBe(0);
      await until("b to lead", () => b.has("became leader"), 10_000);
      const tookOver = Date.now() - stoppedAt;
      expect(tookOver).toBeLessThan(10_000);
      expect(b.lines().find((l) => l.msg === "became leader")?.epoch).toBe(
        Number(a.lines().find((l) => l.msg === "became leader")?.epoch) + 1,
      );
      await until("b to report leading", async () =>
        (await readyz(b)).text.includes("role: leader") ? true : undefined,
      );
      expect(await leaderGauge(b)).toBe("1");
    } finally {
      await a.stop();
      expect(await b.stop()).toBe(0);
    }
  }, 60_000);
});

describe("check with Postgres state", () => {
  it("says whether the state database answers, naming it without the password", async () => {
    const url = await postgres.createDatabase();
    const run = async (state: string) => {
      const stdout = captureStream();
      await main(["check"], {
        env: { RETENTION_SYNC_STATE: state, LOG_LEVEL: "silent" },
        stdout: stdout.stream,
        stderr: captureStream().stream,
      });
      return stdout.text();
    };
    const good = await run(url);
    expect(good).toContain(
      `State database ${postgres.urlWithoutPassword(new URL(url).pathname.slice(1))} is reachable`,
    );
    expect(good).not.toContain(postgres.password);
    const bad = await run(url.replace(postgres.password, "wrong-password"));
    expect(bad).toMatch(/State database \(RETENTION_SYNC_STATE\): .*password authentication failed/);
    expect(bad).not.toContain("wrong-password");
  });
});

describe("a leader whose write is fenced out", () => {
  it("stops its jobs at once, reports standby, and leads again only in a new term with a newer epoch", async () => {
    const url = await postgres.createDatabase();
    const database = new URL(url).pathname.slice(1);
    const store = await openStateStore(url);
    const logs = captureLogs({ level: "info" });
    const metrics = createMetrics();
    const fence = new LeaderFence();
    const jobs = store.fenced(fence);
    const seen = { writes: 0, refused: 0, standbyAfterRefusal: false };
    const daemon = await startDaemon({
      logger: logs.logger,
      store,
      metrics,
      health: new HealthMonitor(60_000),
      ops: { host: "127.0.0.1", port: 0 },
      shutdownGraceMs: 2_000,
      fence,
      election: { retryMs: 100 },
      poll: {
        intervalSeconds: 0.02,
        async run() {
          try {
            await jobs.namespace("alerts.cursor").set("lens", ++seen.writes);
          } catch (error) {
            if (!(error instanceof FencedOutError)) throw error;
            seen.refused += 1;
            seen.standbyAfterRefusal = (await metrics.leader.get()).values[0]?.value === 0;
            throw error;
          }
        },
      },
    });
    try {
      const terms = () => logs.records().filter((r) => r.msg === "became leader");
      await until("the first term", () => (terms().length === 1 && seen.writes > 2 ? true : undefined));
      const first = Number(terms()[0]?.epoch);
      // A newer leader began behind this one's back (its own session never noticed): the epoch moves on.
      await postgres.query("UPDATE rs_leadership SET epoch = epoch + 1", [], database);
      await until("the refusal", () => (seen.refused > 0 ? true : undefined));
      await until("a new term", () => (terms().length === 2 ? true : undefined), 10_000);
      const lost = logs.records().find((r) => r.msg === "lost the leadership: jobs stopped, standby again");
      expect(lost).toMatchObject({
        epoch: first,
        reason: `write refused: this replica led with epoch ${first}, a newer leader holds epoch ${first + 1}`,
      });
      expect(seen.standbyAfterRefusal).toBe(true);
      expect(seen.refused).toBe(1);
      expect(terms()[1]?.epoch).toBe(first + 2);
      const writesInNewTerm = seen.writes;
      await until("writes of the new term", () => (seen.writes > writesInNewTerm + 2 ? true : undefined));
      expect(await store.namespace("alerts.cursor").get("lens")).toBeGreaterThan(writesInNewTerm);
    } finally {
      expect(await daemon.stop("test over")).toEqual({ clean: true });
      await store.close();
    }
  });
});
