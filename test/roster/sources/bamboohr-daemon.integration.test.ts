/**
 * The daemon's scheduled reconcile with `roster.source: bamboohr` (started by `roster.runOnStart`,
 * not by waiting for cron): a complete pull is applied; a failed pull is logged and counted,
 * reconciles nothing, and the next run pulls again.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RetentionClient } from "../../../src/api/client.js";
import { type ConfiguredDaemon, startConfiguredDaemon } from "../../../src/app/configured-daemon.js";
import { loadConfig } from "../../../src/config/load-config.js";
import { captureStream } from "../../helpers/capture-stream.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../../helpers/daemon-world.js";
import { type BambooHrFake, samplePeople, startBambooHrFake } from "../../helpers/fakes/bamboohr-fake.js";
import { until } from "../../helpers/until.js";

let world: DaemonWorld;
let fake: BambooHrFake;
let configured: ConfiguredDaemon | undefined;

beforeEach(async () => {
  world = await startDaemonWorld();
  fake = await startBambooHrFake({ employees: samplePeople(12), maxPageSize: 5 });
});
afterEach(async () => {
  await configured?.stop("test over");
  configured = undefined;
  await fake.close();
  await world.close();
});

async function start(apiKey = fake.apiKey) {
  const logs = captureStream();
  const configFile = await world.files.write(
    "config.yaml",
    [
      "alerts:",
      "  enabled: false",
      "roster:",
      '  schedule: "0 2 1 1 *"',
      "  runOnStart: true",
      "  source:",
      "    type: bamboohr",
      `    companyDomain: ${fake.companyDomain}`,
      `    baseUrl: ${fake.url}`,
      "daemon:",
      "  host: 127.0.0.1",
      "  port: 0",
      "",
    ].join("\n"),
  );
  const env = daemonEnv(world, `bamboohr-${Date.now()}`, { BAMBOOHR_API_KEY: apiKey, LOG_LEVEL: "info" });
  configured = await startConfiguredDaemon(loadConfig({ file: configFile, env }), {
    argv: [],
    env,
    stdout: logs.stream,
    stderr: logs.stream,
  });
  return { daemon: configured.daemon, logs };
}

async function metric(opsUrl: string, line: string): Promise<string | undefined> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  return text.split("\n").includes(line) ? line : undefined;
}

async function servicePeople(): Promise<number> {
  const client = new RetentionClient({
    baseUrl: world.emulator.baseUrl,
    apiKey: world.emulator.writeKey,
    requestsPerMinute: 100_000,
  });
  try {
    let n = 0;
    for await (const _ of client.iterateEmployees({ pageSize: 100 })) n += 1;
    return n;
  } finally {
    await client.close();
  }
}

describe("the daemon with the bamboohr source", () => {
  it("pulls and applies on start, and logs the pull's origin and facts without the key", async () => {
    const { daemon, logs } = await start();
    await until("the pull counted ok", () =>
      metric(daemon.opsUrl, 'retention_sync_roster_pull_total{source="bamboohr",outcome="ok"} 1'),
    );
    await until("the people on the service", async () => ((await servicePeople()) === 12 ? true : undefined));
    const text = logs.text();
    expect(text).toMatch(/"origin":"http:\/\/127\.0\.0\.1:\d+\/api\/gateway\.php\/acme\/v2\/datasets\/employee\/data"/);
    expect(text).toMatch(/"facts":\{"endpoint":"employee dataset \(v2\)","pages":3,"records":12/);
    expect(text).not.toContain(fake.apiKey);
  });

  it("a failed pull on start reconciles nothing; the next run pulls again and applies", async () => {
    fake.faults.push({ on: "data", page: 2, times: 4, kind: { status: 500, retryAfter: "0" } });
    const { daemon, logs } = await start();
    await until("the pull counted failed", () =>
      metric(daemon.opsUrl, 'retention_sync_roster_pull_total{source="bamboohr",outcome="failed"} 1'),
    );
    expect(logs.text()).toMatch(/roster pull failed: nothing reconciled/);
    expect(await servicePeople()).toBe(0);
    const writes = (await (await fetch(`${world.emulator.url}/_emulator/requests`)).json()) as {
      requests: Array<{ method: string; path: string }>;
    };
    expect(writes.requests.filter((r) => r.method !== "GET" && r.path.startsWith("/api/v1"))).toEqual([]);

    // The fault is spent: the next run (the schedule's, here run at once) pulls whole and applies.
    await daemon.reconcileNow();
    expect(
      await metric(daemon.opsUrl, 'retention_sync_roster_pull_total{source="bamboohr",outcome="ok"} 1'),
    ).toBeDefined();
    expect(await servicePeople()).toBe(12);
  });

  it("a refused key is counted as refused and changes nothing", async () => {
    const { daemon } = await start("revoked-key-0000");
    await until("the pull counted refused", () =>
      metric(daemon.opsUrl, 'retention_sync_roster_pull_total{source="bamboohr",outcome="refused"} 1'),
    );
    expect(await servicePeople()).toBe(0);
  });
});
