/**
 * A flood of forged requests does not flood the log: `retention-sync run` refuses 500 forged
 * webhook deliveries and 200 forged or misdirected requests on the ops server (Slack's HTTP
 * interactivity path with a bad signature, unknown paths), logs them as a few counted lines,
 * and its metric counts every one.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { computeSignature } from "../../src/alerts/verify-signature.js";
import { main } from "../../src/cli.js";
import { captureStream } from "../helpers/capture-stream.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../helpers/daemon-world.js";
import { registerSecret } from "../helpers/known-secrets.js";

const WEBHOOK_SECRET = "whsec_refused_requests_0001";
registerSecret(WEBHOOK_SECRET, "refused-requests webhook secret");

let world: DaemonWorld;
beforeEach(async () => {
  world = await startDaemonWorld();
});
afterEach(async () => world.close());

function metric(text: string, name: string, labels: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.split(" ").pop());
}

async function until<T>(probe: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 600; i += 1) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Sends `count` requests, `parallel` at a time; every answer's status. */
async function send(count: number, parallel: number, request: (i: number) => Promise<Response>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - i) }, (_, j) => request(i + j));
    for (const res of await Promise.all(batch)) {
      statuses.push(res.status);
      await res.arrayBuffer();
    }
  }
  return statuses;
}

describe("refused requests on the daemon's servers", () => {
  it("are logged as a few counted lines while the metric counts each one", async () => {
    const { slack, files } = world;
    const config = await files.write(
      "refused.yaml",
      [
        "alerts:",
        "  backstopPollInterval: 1h",
        "  webhook: { enabled: true, host: 127.0.0.1, port: 0 }",
        "slack:",
        "  interactivity: { mode: http }",
        "daemon: { port: 0, host: 127.0.0.1 }",
      ].join("\n"),
    );
    const stdout = captureStream();
    const controller = new AbortController();
    const exit = main(["run", "--config", config], {
      env: {
        ...daemonEnv(world, "refused", {
          RETENTION_WEBHOOK_SECRETS: WEBHOOK_SECRET,
          SLACK_SIGNING_SECRET: slack.signingSecret,
        }),
        LOG_LEVEL: "info",
      },
      stdout: stdout.stream,
      stderr: captureStream().stream,
      signal: controller.signal,
    });
    const records = () =>
      stdout
        .text()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    let stopped = false;
    try {
      const started = await until(
        () => records().find((l) => l.msg === "retention-sync daemon started"),
        "the daemon to start",
      );
      const webhook = String(started.webhook);
      const ops = String(started.ops);

      const body = JSON.stringify({
        id: "evt_forged_1",
        type: "employee.warning",
        organization: { id: world.emulator.organizationId, name: "x" },
        data: {
          competitor: null,
          employee: { id: 1, name: "Forged" },
          change: { changeType: "open_to_work", riskScore: 0.9, riskLevel: "high" },
        },
      });
      const forgedWebhooks = await send(500, 25, () => {
        const t = Math.floor(Date.now() / 1000);
        return fetch(webhook, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-service-signature": `t=${t},v1=${computeSignature("not-the-secret", t, body)}`,
          },
          body,
        });
      });
      expect(forgedWebhooks.every((status) => status === 401)).toBe(true);

      const forgedPresses = await send(150, 25, () =>
        fetch(`${ops}/slack/interactivity`, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            "x-slack-request-timestamp": String(Math.floor(Date.now() / 1000)),
            "x-slack-signature": `v0=${"0".repeat(64)}`,
          },
          body: "payload=%7B%7D",
        }),
      );
      expect(forgedPresses.every((status) => status === 401)).toBe(true);
      const probes = await send(50, 25, (i) => fetch(`${ops}/wp-login-${i}.php`));
      expect(probes.every((status) => status === 404)).toBe(true);

      const scrape = await (await fetch(`${ops}/metrics`)).text();
      const refused = "retention_sync_requests_refused_total";
      expect(metric(scrape, refused, 'server="webhook",reason="bad_signature"')).toBe(500);
      expect(metric(scrape, refused, 'server="ops",reason="bad_signature"')).toBe(150);
      expect(metric(scrape, refused, 'server="ops",reason="wrong_path"')).toBe(50);

      controller.abort();
      expect(await exit).toBe(0);
      stopped = true;
      // The first refusal of each server at once, the rest counted (at the latest when the server
      // stops): a few lines however many requests, their counts adding up to every refusal.
      const lines = records();
      const about = (server: string) => lines.filter((l) => l.component === server);
      const total = (server: string) => about(server).reduce((sum, l) => sum + Number(l.refused ?? 0), 0);
      expect(about("webhook").length).toBeLessThanOrEqual(4);
      expect(total("webhook")).toBe(500);
      expect(about("ops").length).toBeLessThanOrEqual(4);
      expect(total("ops")).toBe(200);
      expect(about("webhook")[0]).toMatchObject({
        level: 40,
        server: "webhook",
        refused: 1,
        byReason: { bad_signature: 1 },
        sample: { reason: "bad_signature", method: "POST", path: "/webhooks/retention" },
      });
      expect(stdout.text()).not.toContain(WEBHOOK_SECRET);
      expect(stdout.text()).not.toContain(slack.signingSecret);
    } finally {
      if (!stopped) {
        controller.abort();
        await exit;
      }
    }
  }, 60_000);
});
