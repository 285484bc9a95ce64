import { writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RetentionClient } from "../../src/api/client.js";
import { main } from "../../src/cli.js";
import { captureStream } from "../helpers/capture-stream.js";
import { type DaemonWorld, startDaemonWorld } from "../helpers/daemon-world.js";
import type { FakeSlack } from "../helpers/fake-slack.js";
import { type ProxiedRequest, startGatedProxy } from "../helpers/gated-proxy.js";
import { makePeople, toCsv } from "../helpers/roster-files.js";
import type { TestEmulator } from "../helpers/start-emulator.js";
import { until } from "../helpers/until.js";

let world: DaemonWorld;
let emulator: TestEmulator;
let slack: FakeSlack;
let files: DaemonWorld["files"];

beforeEach(async () => {
  world = await startDaemonWorld();
  ({ emulator, slack, files } = world);
});
afterEach(async () => world.close());

interface Started {
  readonly ops: string;
  readonly lines: () => Array<Record<string, unknown>>;
  readonly stop: () => Promise<number>;
}

function configFile(extra = "", runOnStart = true, timeoutSeconds = 2): string {
  const path = `${files.dir}/config.yaml`;
  writeFileSync(
    path,
    [
      "api:",
      "  requestsPerMinute: 6000",
      `  timeoutSeconds: ${timeoutSeconds}`,
      "  maxRetries: 1",
      "alerts:",
      "  pollInterval: 0.2",
      "roster:",
      `  runOnStart: ${runOnStart}`,
      "daemon:",
      "  port: 0",
      "  host: 127.0.0.1",
      "  shutdownGraceSeconds: 10",
      extra,
    ].join("\n"),
  );
  return path;
}

/** Starts `retention-sync run` in-process, as the CLI does, and waits for its start-up line. */
async function startRun(
  config: string | undefined,
  roster: string,
  extraEnv: Record<string, string> = {},
): Promise<Started> {
  const stdout = captureStream();
  const stderr = captureStream();
  const lines = () =>
    stdout
      .text()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const controller = new AbortController();
  const started = Date.now();
  const exit = main(config === undefined ? ["run"] : ["run", "--config", config], {
    env: {
      RETENTION_API_URL: emulator.baseUrl,
      RETENTION_API_KEY: emulator.writeKey,
      SLACK_BOT_TOKEN: slack.token,
      SLACK_API_URL: slack.url,
      SLACK_CHANNEL: "#hr-alerts",
      SLACK_OPS_CHANNEL: "#retention-ops",
      RETENTION_SYNC_STATE: `${files.dir}/state.sqlite`,
      HRIS_ROSTER_FILE: roster,
      LOG_LEVEL: "info",
      ...extraEnv,
    },
    stdout: stdout.stream,
    stderr: stderr.stream,
    signal: controller.signal,
  });
  let ops: string | undefined;
  while (!ops) {
    const line = lines().find((l) => l.msg === "retention-sync daemon started");
    if (line) ops = String(line.ops);
    const early = await Promise.race([exit, new Promise((resolve) => setTimeout(() => resolve(undefined), 20))]);
    if (early) throw new Error(`run exited early with ${JSON.stringify(early)}: ${stderr.text()}`);
    if (Date.now() - started > 15_000) throw new Error(`daemon did not start: ${stderr.text()}`);
  }
  return {
    ops,
    lines,
    stop: () => {
      controller.abort();
      return exit;
    },
  };
}

const isBulkAdd = (r: ProxiedRequest) => r.method === "POST" && r.path.endsWith("/employees/bulk");

function metricValue(text: string, name: string, labels = ""): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ""} `));
  return line ? Number(line.split(" ").pop()) : 0;
}

describe("retention-sync run", () => {
  it("reconciles, posts alerts, serves metrics and readiness, and refuses a second instance", async () => {
    const roster = await files.write("hris.csv", toCsv(makePeople(30)));
    const config = configFile();
    const daemon = await startRun(config, roster);

    const metrics = async () => (await fetch(`${daemon.ops}/metrics`)).text();
    await until("a finished reconcile", async () =>
      metricValue(await metrics(), "retention_sync_reconcile_runs_total", 'outcome="ok"') === 1 ? true : undefined,
    );
    const afterReconcile = await metrics();
    expect(metricValue(afterReconcile, "retention_sync_reconcile_steps_total", 'kind="addedTracked"')).toBe(30);
    expect(metricValue(afterReconcile, "retention_sync_billable_seats")).toBeGreaterThanOrEqual(0);
    expect(afterReconcile).toMatch(
      /^retention_sync_api_requests_total\{method="POST",endpoint="\/employees\/bulk",status="201"\} 1$/m,
    );
    await until("the reconcile report in the ops channel", async () =>
      slack.posted("#retention-ops").length > 0 ? true : undefined,
    );

    // An employee must be tracked and active to raise signals; the import finishes immediately here.
    const client = new RetentionClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.readKey,
      requestsPerMinute: 6000,
    });
    const me = await client.me();
    await client.close();
    await emulator.control.signals({ count: 3, organizationId: me.organization.id, riskScore: 0.9 });
    await until("alerts in Slack", async () => (slack.posted("#hr-alerts").length >= 1 ? true : undefined));
    await until("the posted alerts counted", async () =>
      metricValue(await metrics(), "retention_sync_alerts_total", 'outcome="posted"') > 0 ? true : undefined,
    );

    expect((await fetch(`${daemon.ops}/readyz`)).status).toBe(200);
    await emulator.control.faults({ errorRate: 1 });
    await until("not ready while the service fails", async () => {
      const response = await fetch(`${daemon.ops}/readyz`);
      return response.status === 503 ? response.text() : undefined;
    });
    await emulator.control.clearFaults();
    await until("ready again", async () => ((await fetch(`${daemon.ops}/readyz`)).status === 200 ? true : undefined));

    const second = startRun(config, roster);
    await expect(second).rejects.toThrow(/Another retention-sync instance/);

    expect(await daemon.stop()).toBe(0);
  });

  it("on stop mid-reconcile finishes the chunk in flight, sends no other, and the next start finishes the run without duplicates", async () => {
    const people = makePeople(400);
    const roster = await files.write("hris.csv", toCsv(people));
    // 400 people: eight bulk chunks of 50. The second is held at the proxy until the stop has begun.
    const proxy = await startGatedProxy(emulator.baseUrl);
    try {
      const secondChunk = proxy.hold(isBulkAdd, 2);
      // The time-out only bounds a hang: the held request must not time out and be sent again.
      const first = await startRun(configFile("", true, 60), roster, { RETENTION_API_URL: proxy.baseUrl });
      const held = await secondChunk;
      const exit = first.stop();
      await until("the shutdown to begin", async () =>
        first.lines().some((l) => l.msg === "shutting down: no new work, finishing the running step")
          ? true
          : undefined,
      );
      held.release();
      expect(await exit).toBe(0);
      // The drain ended before the grace period ran out, and no chunk was sent after the stop.
      expect(first.lines().filter((l) => l.msg === "stopped")).toEqual([expect.objectContaining({ clean: true })]);
      expect(proxy.requests.filter(isBulkAdd)).toHaveLength(2);
      const firstReport = first.lines().find((l) => l.msg === "reconcile finished")?.report;
      expect(firstReport).toMatchObject({ interrupted: true, applied: { addedTracked: 100 } });
    } finally {
      await proxy.close();
    }

    // No runOnStart this time: the interrupted run alone makes the daemon reconcile at start.
    const second = await startRun(configFile("", false), roster);
    const secondReport = await until("the second reconcile", async () =>
      second.lines().find((l) => l.msg === "reconcile finished"),
    );
    const client = new RetentionClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.readKey,
      requestsPerMinute: 6000,
    });
    const urls: string[] = [];
    for await (const employee of client.iterateEmployees()) urls.push(employee.networkUrl);
    await client.close();
    await second.stop();
    expect(second.lines().some((l) => String(l.msg).startsWith("the last reconcile was interrupted"))).toBe(true);
    expect(secondReport.report).toMatchObject({ applied: { addedTracked: 300, alreadyPresent: 0 } });
    expect(urls).toHaveLength(400);
    expect(new Set(urls).size).toBe(400);
  });

  it("runs from the environment alone, with no config file: polls now, reconciles on the nightly schedule", async () => {
    const roster = await files.write("hris.csv", toCsv(makePeople(5)));
    const daemon = await startRun(undefined, roster, { OPS_PORT: "0" });
    const startLine = daemon.lines().find((l) => l.msg === "retention-sync daemon started");
    expect(startLine).toMatchObject({ poll: "every 60 s", reconcile: "0 2 * * * (UTC)", webhook: "off" });
    await until("a first poll pass", async () => {
      const metrics = await (await fetch(`${daemon.ops}/metrics`)).text();
      return metricValue(metrics, "retention_sync_polls_total", 'outcome="ok"') >= 1 ? true : undefined;
    });
    expect(await daemon.stop()).toBe(0);
  });
});
