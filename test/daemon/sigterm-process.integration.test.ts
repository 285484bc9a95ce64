import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RetentionClient } from "../../src/api/client.js";
import { bundleEntry } from "../helpers/bundle-entry.js";
import { type DaemonProcess, logLines, spawnDaemon, waitForLog } from "../helpers/daemon-process.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../helpers/daemon-world.js";
import { type ProxiedRequest, startGatedProxy } from "../helpers/gated-proxy.js";
import { makePeople, toCsv } from "../helpers/roster-files.js";
import type { TestEmulator } from "../helpers/start-emulator.js";

let cli: string;
let world: DaemonWorld;
let emulator: TestEmulator;
let files: DaemonWorld["files"];

beforeAll(async () => {
  cli = await bundleEntry("src/cli.ts", "cli");
  world = await startDaemonWorld();
  ({ emulator, files } = world);
});
afterAll(async () => world.close());

/** `retention-sync run` as a real process at trace level, on `apiUrl`; resolves once it logged its start-up line. */
async function spawnRun(roster: string, apiUrl: string): Promise<DaemonProcess> {
  return spawnDaemon(cli, {
    ...daemonEnv(world, "state"),
    RETENTION_API_URL: apiUrl,
    RETENTION_SYNC_CONFIG: await files.write(
      "config.yaml",
      // The time-out and the grace only bound a hang: the request held below must not time out.
      "api: { requestsPerMinute: 6000, timeoutSeconds: 60 }\nroster: { runOnStart: true }\ndaemon: { port: 0, host: 127.0.0.1, shutdownGraceSeconds: 60 }\n",
    ),
    HRIS_ROSTER_FILE: roster,
    // every line the daemon can write goes through the suite's log audit
    LOG_LEVEL: "trace",
  });
}

const isBulkAdd = (r: ProxiedRequest) => r.method === "POST" && r.path.endsWith("/employees/bulk");

interface Finished {
  report: { interrupted?: boolean; applied?: { addedTracked: number; alreadyPresent: number } };
}

describe("retention-sync run as a process", () => {
  it("on SIGTERM mid-reconcile finishes the chunk in flight, stops cleanly before the next, and the next start adds the rest once", async () => {
    // 300 people: six bulk chunks of 50. The second chunk is held at the proxy until SIGTERM has been handled.
    const roster = await files.write("hris.csv", toCsv(makePeople(300)));
    const proxy = await startGatedProxy(emulator.baseUrl);
    try {
      const secondChunk = proxy.hold(isBulkAdd, 2);
      const first = await spawnRun(roster, proxy.baseUrl);
      const held = await secondChunk;
      first.child.kill("SIGTERM");
      await waitForLog(first, "shutting down: no new work, finishing the running step");
      held.release();
      expect(await first.exited).toEqual({ code: 0, signal: null });
      // The drain ended before the grace period ran out, and no chunk was sent after the signal.
      expect(logLines(first.output(), "stopped")).toEqual([expect.objectContaining({ clean: true })]);
      expect(proxy.requests.filter(isBulkAdd)).toHaveLength(2);
      expect(logLines<Finished>(first.output(), "reconcile finished")[0]?.report).toMatchObject({
        interrupted: true,
        applied: { addedTracked: 100, alreadyPresent: 0 },
      });
    } finally {
      await proxy.close();
    }

    const second = await spawnRun(roster, emulator.baseUrl);
    const finished = await waitForLog<Finished>(second, "reconcile finished");
    second.child.kill("SIGTERM");
    expect(await second.exited).toEqual({ code: 0, signal: null });
    // The held chunk was answered before the first run stopped: nothing is added twice.
    expect(finished.report.applied).toMatchObject({ addedTracked: 200, alreadyPresent: 0 });
    const client = new RetentionClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.readKey,
      requestsPerMinute: 6000,
    });
    const urls: string[] = [];
    for await (const employee of client.iterateEmployees()) urls.push(employee.networkUrl);
    await client.close();
    expect(urls).toHaveLength(300);
    expect(new Set(urls).size).toBe(300);
  });
});
