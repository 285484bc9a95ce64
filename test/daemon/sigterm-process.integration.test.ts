import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RetentionClient } from "../../src/api/client.js";
import { bundleEntry } from "../helpers/bundle-entry.js";
import { type DaemonProcess, spawnDaemon } from "../helpers/daemon-process.js";
import { type DaemonWorld, startDaemonWorld } from "../helpers/daemon-world.js";
import type { FakeSlack } from "../helpers/fake-slack.js";
import { makePeople, toCsv } from "../helpers/roster-files.js";
import type { TestEmulator } from "../helpers/start-emulator.js";

let cli: string;
let world: DaemonWorld;
let emulator: TestEmulator;
let slack: FakeSlack;
let files: DaemonWorld["files"];

beforeAll(async () => {
  cli = await bundleEntry("src/cli.ts", "cli");
  world = await startDaemonWorld();
  ({ emulator, slack, files } = world);
});
afterAll(async () => world.close());

/** `retention-sync run` as a real process at trace level; resolves once it logged its start-up line. */
async function spawnRun(roster: string): Promise<DaemonProcess> {
  return spawnDaemon(cli, {
    RETENTION_API_URL: emulator.baseUrl,
    RETENTION_API_KEY: emulator.writeKey,
    SLACK_BOT_TOKEN: slack.token,
    SLACK_API_URL: slack.url,
    SLACK_CHANNEL: "#hr-alerts",
    RETENTION_SYNC_STATE: `${files.dir}/state.sqlite`,
    RETENTION_SYNC_CONFIG: await files.write(
      "config.yaml",
      "api: { requestsPerMinute: 6000 }\nroster: { runOnStart: true }\ndaemon: { port: 0, host: 127.0.0.1, shutdownGraceSeconds: 5 }\n",
    ),
    HRIS_ROSTER_FILE: roster,
    // every line the daemon can write goes through the suite's log audit
    LOG_LEVEL: "trace",
  });
}

describe("retention-sync run as a process", () => {
  it("exits 0 within the grace period on SIGTERM mid-reconcile, and the next start finishes the roster once", async () => {
    const roster = await files.write("hris.csv", toCsv(makePeople(300)));
    await emulator.control.faults({ latencyMs: 150 });
    const first = await spawnRun(roster);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const requests = await emulator.control.requests();
      if (requests.some((r) => r.path.endsWith("/employees/bulk"))) break;
      if (Date.now() > deadline) throw new Error(`no bulk add:\n${first.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const sentAt = Date.now();
    first.child.kill("SIGTERM");
    const [code] = (await once(first.child, "exit")) as [number | null];
    const exitMs = Date.now() - sentAt;
    expect(code).toBe(0);
    expect(exitMs).toBeLessThan(5_000 + 3_000);
    expect(first.output()).toMatch(/"msg":"shutting down: no new work, finishing the running step"/);
    const bulkBefore = (await emulator.control.requests()).filter((r) => r.path.endsWith("/employees/bulk")).length;
    expect(bulkBefore).toBeLessThan(6);

    await emulator.control.clearFaults();
    const second = await spawnRun(roster);
    const client = new RetentionClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.readKey,
      requestsPerMinute: 6000,
    });
    let urls: string[] = [];
    const until = Date.now() + 20_000;
    while (urls.length < 300 && Date.now() < until) {
      urls = [];
      for await (const employee of client.iterateEmployees()) urls.push(employee.networkUrl);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await client.close();
    second.child.kill("SIGTERM");
    expect((await once(second.child, "exit"))[0]).toBe(0);
    expect(urls).toHaveLength(300);
    expect(new Set(urls).size).toBe(300);
    // The first run stopped between requests: nothing was in flight, so nothing is added twice.
    const finished = second
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"reconcile finished"') && line.includes('"report":'))
      .map((line) => JSON.parse(line) as { report: { applied?: { addedTracked: number; alreadyPresent: number } } });
    expect(finished).toHaveLength(1);
    expect(finished[0]?.report.applied?.alreadyPresent).toBe(0);
    expect(finished[0]?.report.applied?.addedTracked).toBe(300 - 50 * bulkBefore);
  });
});
