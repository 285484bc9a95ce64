/**
 * SIGTERM while a poll pass is busy: the shutdown signal reaches the poll pass, the API client's
 * requests in flight and the Slack outbox, so `run` stops at the next safe point instead of sitting
 * out a Slack backlog or a hanging request; what it did not post, the next start posts.
 * Every wait here is for an event (a post arrived, a request arrived), never for a duration.
 */
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RetentionClient } from "../../src/api/client.js";
import { meWire, pageWire } from "../api/support/fixtures.js";
import { type ScriptedServer, startScriptedServer } from "../api/support/scripted-server.js";
import { bundleEntry } from "../helpers/bundle-entry.js";
import { type DaemonProcess, logLines, spawnDaemon } from "../helpers/daemon-process.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../helpers/daemon-world.js";

let cli: string;
let world: DaemonWorld;

beforeAll(async () => {
  cli = await bundleEntry("src/cli.ts", "cli");
  world = await startDaemonWorld();
});
afterAll(async () => world.close());

async function until(condition: () => boolean | Promise<boolean>, what: string, daemon: DaemonProcess) {
  const deadline = Date.now() + 25_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}:\n${daemon.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function stop(daemon: DaemonProcess): Promise<number | null> {
  daemon.child.kill("SIGTERM");
  const [code] = (await once(daemon.child, "exit")) as [number | null];
  return code;
}

/** True when the daemon logged a clean stop: every job ended at a safe point within the grace period. */
function stoppedCleanly(daemon: DaemonProcess): boolean {
  return logLines<{ clean?: boolean }>(daemon.output(), "stopped").some((line) => line.clean === true);
}

const posts = () => world.slack.calls.filter((c) => c.method === "chat.postMessage" && c.status === 200);

describe("SIGTERM during a poll pass", () => {
  it("stops a Slack backlog at the next message, exits 0, and the next start posts the rest once", async () => {
    const { emulator, files } = world;
    await emulator.control.seedPeople({ count: 6, slugPrefix: "backlog", tracked: true });
    // One change per person, so every message names a different person.
    const client = new RetentionClient({ baseUrl: emulator.baseUrl, apiKey: emulator.readKey });
    for await (const person of client.iterateEmployees()) {
      await emulator.control.signals({ employeeId: person.id, riskScore: 0.9 });
    }
    await client.close();
    // One message per 100 s per channel: after the first post, the rest of the pass is a wait in
    // the pacer. The grace period is longer than the test, so only an abortable wait ends cleanly.
    const slow = await files.write(
      "slow.yaml",
      "slack: { messagesPerSecondPerChannel: 0.01 }\ndaemon: { port: 0, host: 127.0.0.1, shutdownGraceSeconds: 120 }\n",
    );
    const first = await spawnDaemon(cli, daemonEnv(world, "backlog", { RETENTION_SYNC_CONFIG: slow }));
    await until(() => posts().length >= 1, "the first alert in Slack", first);
    expect(await stop(first)).toBe(0);
    expect(stoppedCleanly(first)).toBe(true);
    const postedBefore = posts().length;
    expect(postedBefore).toBeLessThan(6);

    const fast = await files.write(
      "fast.yaml",
      "slack: { messagesPerSecondPerChannel: 10 }\ndaemon: { port: 0, host: 127.0.0.1 }\n",
    );
    const second = await spawnDaemon(cli, daemonEnv(world, "backlog", { RETENTION_SYNC_CONFIG: fast }));
    await until(() => posts().length >= 6, "the rest of the backlog in Slack", second);
    expect(await stop(second)).toBe(0);
    const texts = posts().map((c) => String(c.args.text));
    expect(texts).toHaveLength(6);
    expect(new Set(texts).size).toBe(6);
  });

  it("cancels an API request in flight instead of waiting for its answer", async () => {
    const service: ScriptedServer = await startScriptedServer();
    try {
      service.setHandler((request) => {
        if (request.path === "/me") return { body: meWire };
        if (request.path === "/competitors") return { body: [] };
        // The answer would come after the API time-out, long after the grace period.
        return { body: pageWire([], 1, 100, 0), delayMs: 600_000 };
      });
      const config = await world.files.write(
        "hanging.yaml",
        "api: { timeoutSeconds: 300, maxRetries: 0 }\ndaemon: { port: 0, host: 127.0.0.1, shutdownGraceSeconds: 120 }\n",
      );
      const daemon = await spawnDaemon(
        cli,
        daemonEnv(world, "hanging", { RETENTION_API_URL: service.baseUrl, RETENTION_SYNC_CONFIG: config }),
      );
      await until(() => service.requests.some((r) => r.path === "/changes"), "GET /changes in flight", daemon);
      expect(await stop(daemon)).toBe(0);
      expect(stoppedCleanly(daemon)).toBe(true);
      expect(
        logLines(daemon.output(), "poll pass stopped by shutdown before its hand-over; nothing of it was committed"),
      ).toHaveLength(1);
    } finally {
      await service.close();
    }
  });
});
