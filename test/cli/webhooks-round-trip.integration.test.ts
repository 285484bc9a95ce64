/**
 * The whole webhook path as an operator sets it up: `webhooks register` against the emulator
 * (loopback endpoints allowed), the printed secret given to `run`, and a change the emulator
 * raises reaches the fake Slack through the receiver, not through a poll.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { captureStream } from "../helpers/capture-stream.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../helpers/daemon-world.js";
import { freePort } from "../helpers/free-port.js";
import { registerSecret } from "../helpers/known-secrets.js";
import { until } from "../helpers/until.js";
import { runCli } from "./cli-harness.js";

let world: DaemonWorld;

beforeEach(async () => {
  world = await startDaemonWorld({ allowLoopbackWebhooks: true });
});
afterEach(async () => world.close());

describe("webhooks register, then run", () => {
  it("an event the emulator raises reaches Slack through the registered receiver", async () => {
    const { emulator, slack, files } = world;
    await emulator.control.seedPeople({ count: 1, slugPrefix: "roundtrip", tracked: true });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/webhooks/retention`;
    const registered = await runCli(["webhooks", "register", "--url", url, "--json"], daemonEnv(world, "register"));
    expect(registered.code, registered.stderr).toBe(0);
    const { secret } = JSON.parse(registered.stdout) as { secret: string };
    registerSecret(secret, "round-trip webhook secret");

    const config = await files.write(
      "round-trip.yaml",
      [
        "alerts:",
        "  backstopPollInterval: 1h",
        `  webhook: { enabled: true, host: 127.0.0.1, port: ${port} }`,
        "daemon: { port: 0, host: 127.0.0.1 }",
      ].join("\n"),
    );
    const stdout = captureStream();
    const controller = new AbortController();
    const exit = main(["run", "--config", config], {
      env: { ...daemonEnv(world, "round-trip", { RETENTION_WEBHOOK_SECRETS: secret }), LOG_LEVEL: "info" },
      stdout: stdout.stream,
      stderr: captureStream().stream,
      signal: controller.signal,
    });
    try {
      const started = () => stdout.text().includes('"msg":"retention-sync daemon started"');
      await until("the daemon started", async () => (started() ? true : undefined));
      await emulator.control.signals({
        employeeId: await firstPersonId(world),
        riskScore: 0.9,
        changeType: "open_to_work",
      });
      const posted = await until("the alert on Slack", async () => slack.posted("#hr-alerts")[0]);
      expect(JSON.stringify(posted)).toContain("roundtrip");
      // The service delivered the event and the receiver took it (a 2xx).
      const [endpoint] = JSON.parse(
        (await runCli(["webhooks", "list", "--json"], daemonEnv(world, "list"))).stdout,
      ) as Array<{
        health: { consecutiveFailures: number; lastStatus: string };
      }>;
      expect(endpoint?.health).toMatchObject({ consecutiveFailures: 0, lastStatus: "succeeded" });
    } finally {
      controller.abort();
      expect(await exit).toBe(0);
    }
  }, 30_000);
});

async function firstPersonId(world: DaemonWorld): Promise<number> {
  const res = await fetch(`${world.emulator.baseUrl}/employees`, {
    headers: { authorization: `Bearer ${world.emulator.writeKey}` },
  });
  const page = (await res.json()) as { items: Array<{ id: number }> };
  const id = page.items[0]?.id;
  if (id === undefined) throw new Error("the seeded person");
  return id;
}
