/**
 * The alert metrics mean what a Prometheus rule assumes: in webhook mode, alerts the
 * receiver posts count as posted; `cursor_age_seconds` is the time since the lens's last
 * successful pass, not the age of the newest change.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RetentionClient } from "../../src/api/client.js";
import { main } from "../../src/cli.js";
import { captureStream } from "../helpers/capture-stream.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../helpers/daemon-world.js";
import { freePort } from "../helpers/free-port.js";
import { registerSecret } from "../helpers/known-secrets.js";
import { until } from "../helpers/until.js";

let world: DaemonWorld;

beforeEach(async () => {
  world = await startDaemonWorld({ allowLoopbackWebhooks: true });
});
afterEach(async () => world.close());

function metric(text: string, name: string, labels: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.split(" ").pop());
}

describe("alert metrics in webhook mode", () => {
  it("count webhook posts as posted, and age the cursor from the last successful pass", async () => {
    const { emulator, slack, files } = world;
    await emulator.control.seedPeople({ count: 1, slugPrefix: "metrics", tracked: true });
    const port = await freePort();
    const writer = new RetentionClient({ baseUrl: emulator.baseUrl, apiKey: emulator.writeKey });
    const endpoint = await writer.addWebhook({ url: `http://127.0.0.1:${port}/webhooks/retention` });
    if (!endpoint.secret) throw new Error("no webhook secret");
    registerSecret(endpoint.secret, "alert metrics webhook secret");
    const config = await files.write(
      "metrics.yaml",
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
      env: { ...daemonEnv(world, "metrics", { RETENTION_WEBHOOK_SECRETS: endpoint.secret }), LOG_LEVEL: "info" },
      stdout: stdout.stream,
      stderr: captureStream().stream,
      signal: controller.signal,
    });
    try {
      const lines = () =>
        stdout
          .text()
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      const ops = await until(
        "the daemon started",
        async () => lines().find((l) => l.msg === "retention-sync daemon started")?.ops as string,
      );
      const scrape = async () => (await fetch(`${ops}/metrics`)).text();
      const lens = `retention:${emulator.organizationId}`;
      // The start-up pass (the backstop's first) read the lens: its age starts at 0.
      const age = await until("the cursor age", async () =>
        metric(await scrape(), "retention_sync_cursor_age_seconds", `lens="${lens}"`),
      );
      expect(age).toBeLessThan(60);

      const [person] = (await writer.listEmployees()).items;
      if (!person) throw new Error("the seeded person");
      await emulator.control.signals({ employeeId: person.id, riskScore: 0.9, changeType: "open_to_work" });
      await until("the alert on Slack", async () => (slack.posted("#hr-alerts").length > 0 ? true : undefined));
      const text = await until("the post counted", async () => {
        const current = await scrape();
        return (metric(current, "retention_sync_alerts_total", 'outcome="posted"') ?? 0) >= 1 ? current : undefined;
      });
      expect(metric(text, "retention_sync_alerts_total", 'outcome="queued"')).toBe(1);
      // No second pass ran (backstop 1 h): the post came through the webhook door.
      expect(metric(text, "retention_sync_polls_total", 'outcome="ok"')).toBe(1);
      expect(metric(text, "retention_sync_cursor_age_seconds", `lens="${lens}"`)).toBeLessThan(60);
    } finally {
      await writer.close();
      controller.abort();
      expect(await exit).toBe(0);
    }
  }, 30_000);
});
