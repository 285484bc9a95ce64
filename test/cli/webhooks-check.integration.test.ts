/**
 * `check` compares the endpoints registered with the service (the emulator) with the webhook
 * receiver's config: a receiver nobody delivers to, deliveries to a receiver that is off, an
 * endpoint the service disabled after failures, and `alerts.webhook.publicUrl` not registered.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RetentionClient } from "../../src/api/client.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { freePort } from "../helpers/free-port.js";
import { registerSecret } from "../helpers/known-secrets.js";
import { useEmulator } from "../helpers/start-emulator.js";
import { runCli } from "./cli-harness.js";

const emulator = useEmulator({ seed: "empty", allowLoopbackWebhooks: true });
let slack: FakeSlack;
const dir = mkdtempSync(join(tmpdir(), "rs-webhooks-check-"));
const HOOK = "https://hooks.example.com/webhooks/retention";
const RECEIVER_SECRET = "whsec_receiver_side_secret_for_check";
registerSecret(RECEIVER_SECRET, "receiver secret of the webhooks check test");

beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(async () => {
  await slack.close();
});
beforeEach(async () => {
  await emulator().control.reset();
});

let files = 0;
/** Runs `check` with a config file holding these `alerts.webhook` lines. */
async function check(webhookYaml: string[]) {
  files += 1;
  const file = join(dir, `config-${files}.yaml`);
  writeFileSync(file, ["alerts:", "  webhook:", ...webhookYaml.map((l) => `    ${l}`), ""].join("\n"));
  const result = await runCli(["check", "--config", file], {
    RETENTION_API_URL: emulator().baseUrl,
    RETENTION_API_KEY: emulator().writeKey,
    RETENTION_WEBHOOK_SECRETS: RECEIVER_SECRET,
    SLACK_BOT_TOKEN: slack.token,
    SLACK_API_URL: slack.url,
    SLACK_CHANNEL: "#hr-alerts",
    RETENTION_SYNC_STATE: join(dir, "state.sqlite"),
    LOG_LEVEL: "silent",
  });
  return { ...result, failed: result.stdout.split("\n").filter((line) => line.startsWith("✗")) };
}

async function register(url: string): Promise<string> {
  const client = new RetentionClient({ baseUrl: emulator().baseUrl, apiKey: emulator().writeKey });
  try {
    const created = await client.addWebhook({ url });
    registerSecret(created.secret, "webhook secret of the webhooks check test");
    return created.id;
  } finally {
    await client.close();
  }
}

describe("check: registered endpoints against the receiver", () => {
  it("receiver on, nothing registered: events never come, and the fix names webhooks register (exit 2)", async () => {
    const result = await check(["enabled: true"]);
    expect(result.failed).toEqual([
      expect.stringMatching(
        /^✗ The webhook receiver is on but no enabled endpoint is registered for it: no event will ever arrive.*"retention-sync webhooks register --url https:\/\/<public host>\/webhooks\/retention"/,
      ),
    ]);
    expect(result.code).toBe(2);
  });

  it("receiver on and an endpoint at its path: a pass listing it with its lenses and health", async () => {
    const id = await register(HOOK);
    const result = await check(["enabled: true"]);
    expect(result.failed).toEqual([]);
    expect(result.stdout).toContain(`✓ Webhook endpoint registered and enabled for the receiver: ${id}`);
    expect(result.stdout).toMatch(/deliveries: 0 failed in a row; no delivery yet/);
    expect(result.code).toBe(0);
  });

  it("an endpoint of another system (another path) is not taken as the receiver's; the fix names publicUrl", async () => {
    const other = await register("https://siem.example.com/inbound/retention-events");
    const on = await check(["enabled: true"]);
    expect(on.failed).toHaveLength(1);
    expect(on.stdout).toContain(
      `registered at other paths, so not taken as this receiver's (/webhooks/retention): ${other}`,
    );
    expect(on.stdout).toMatch(/set alerts\.webhook\.publicUrl to its URL/);
    // With the receiver off, the other system's endpoint is none of this daemon's business.
    const off = await check(["enabled: false"]);
    expect(off.failed).toEqual([]);
    expect(off.code).toBe(0);
  });

  it("publicUrl set but registered elsewhere: fails, and the fix registers exactly publicUrl", async () => {
    await register(HOOK);
    const publicUrl = "https://events.example.org/webhooks/retention";
    const result = await check(["enabled: true", `publicUrl: ${publicUrl}`]);
    expect(result.failed).toEqual([
      expect.stringContaining(
        `no enabled endpoint is registered at alerts.webhook.publicUrl ${publicUrl}: no event will ever arrive`,
      ),
    ]);
    expect(result.failed[0]).toContain(`"retention-sync webhooks register --url ${publicUrl}"`);
    expect(result.code).toBe(2);
  });

  it("receiver off but an enabled endpoint at its path: deliveries fail and the service will disable it (exit 2)", async () => {
    const id = await register(HOOK);
    const result = await check(["enabled: false"]);
    expect(result.failed).toEqual([
      expect.stringMatching(
        new RegExp(
          `^✗ Webhook endpoint ${id} registered and enabled, but the receiver is off \\(alerts\\.webhook\\.enabled: false\\): every delivery fails.*webhooks disable ${id}`,
        ),
      ),
    ]);
    expect(result.code).toBe(2);
  });

  it("an endpoint the service disabled after failed deliveries: named, with webhooks enable as the fix", async () => {
    const control = emulator().control;
    const id = await register(`http://127.0.0.1:${await freePort()}/webhooks/retention`);
    // The emulator disables an endpoint once 5 events in a row failed over at least a day.
    for (let i = 0; i < 4; i++) await control.pingWebhook(id);
    await control.advanceClock(25 * 3600);
    await control.pingWebhook(id);
    const result = await check(["enabled: true"]);
    expect(result.failed).toEqual([
      expect.stringMatching(
        new RegExp(`^✗ Webhook endpoint ${id} .* is disabled after failed deliveries: .*webhooks enable ${id}`),
      ),
      expect.stringMatching(/^✗ The webhook receiver is on but no enabled endpoint is registered/),
    ]);
    expect(result.code).toBe(2);

    await runCli(["webhooks", "enable", id], {
      RETENTION_API_URL: emulator().baseUrl,
      RETENTION_API_KEY: emulator().writeKey,
    });
    const enabled = await check(["enabled: true"]);
    expect(enabled.failed).toEqual([]);
    expect(enabled.stdout).toMatch(/deliveries: 0 failed in a row/);
  });
});
