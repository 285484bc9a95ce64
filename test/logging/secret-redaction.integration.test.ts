import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openRuntime } from "../../src/app/runtime.js";
import { loadConfig } from "../../src/config/load-config.js";
import { runCli, startTinyService, type TinyService } from "../cli/cli-harness.js";
import { captureLogs } from "../helpers/capture-logs.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { startTestEmulator } from "../helpers/start-emulator.js";

const WEBHOOK_SECRET = "whsec_test_rotation_secret_42";
const OLD_WEBHOOK_SECRET = "whsec_previous_secret_41";

let service: TinyService;
let slack: FakeSlack;

beforeEach(async () => {
  service = await startTinyService();
  slack = await startFakeSlack();
});
afterEach(async () => {
  await service.close();
  await slack.close();
});

function env(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    RETENTION_API_URL: service.baseUrl,
    RETENTION_API_KEY: service.writeKey,
    SLACK_BOT_TOKEN: slack.token,
    SLACK_API_URL: slack.url,
    SLACK_CHANNEL: "#hr-alerts",
    RETENTION_WEBHOOK_SECRETS: `${WEBHOOK_SECRET},${OLD_WEBHOOK_SECRET}`,
    RETENTION_SYNC_STATE: ":memory:",
    LOG_LEVEL: "trace",
    ...overrides,
  };
}

function expectNoSecrets(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(text).not.toContain(secret);
}

describe("secrets never reach a log line", () => {
  it("check at LOG_LEVEL=trace, with a service that echoes the key in its 401 answer", async () => {
    service.failWith(401, {
      error: `Unknown API key ${service.writeKey}.`,
      detail: { presented: `Bearer ${service.writeKey}`, url: `${service.baseUrl}/me?key=${service.writeKey}` },
    });
    const result = await runCli(["check"], env());
    expect(result.code).toBe(2);
    const lines = result.stderr.split("\n").filter((l) => l.length > 0);
    // the run really logged at trace/debug (Slack SDK request lines, API client), so the test can fail
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expectNoSecrets(result.stdout + result.stderr, [service.writeKey, slack.token, WEBHOOK_SECRET, OLD_WEBHOOK_SECRET]);
  });

  it("poll --once at LOG_LEVEL=trace against the emulator and Slack: alerts posted, no secret logged", async () => {
    const emulator = await startTestEmulator({ seed: "demo" });
    try {
      await emulator.control.signals({ count: 3, riskScore: 0.9 });
      const result = await runCli(
        ["poll", "--once"],
        env({ RETENTION_API_URL: emulator.baseUrl, RETENTION_API_KEY: emulator.writeKey }),
      );
      expect(slack.posted().length).toBeGreaterThan(0);
      const lines = result.stderr.split("\n").filter((l) => l.length > 0);
      expect(lines.length).toBeGreaterThan(3);
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
      expectNoSecrets(result.stdout + result.stderr, [
        emulator.writeKey,
        slack.token,
        WEBHOOK_SECRET,
        OLD_WEBHOOK_SECRET,
      ]);
    } finally {
      await emulator.close();
    }
  });

  it("runtime logger scrubs the key, token and webhook secrets from errors, fields and messages", async () => {
    const config = loadConfig({ env: env() });
    const io = { argv: [], env: {}, stdout: new PassThrough(), stderr: new PassThrough() };
    const lines: string[] = [];
    const runtime = await openRuntime(config, io, {
      client: true,
      slack: true,
      clientOptions: { maxRetries: 0 },
      slackRetry: { retries: 0 },
      logDestination: {
        write: (chunk: string) => {
          for (const line of chunk.split("\n")) if (line.length > 0) lines.push(line);
        },
      },
    });
    const { logger } = runtime;
    try {
      service.failWith(401, { error: `Key ${service.writeKey} is revoked`, echo: service.writeKey });
      const apiError = await runtime.client.me().catch((error: unknown) => error);
      logger.error({ err: apiError }, "me failed");

      const badSlack = await runtime.slack.chat
        .postMessage({ channel: "#nowhere", text: "x" })
        .catch((e: unknown) => e);
      logger.warn({ err: badSlack, token: slack.token }, "slack failed");

      logger.trace({ config }, "effective configuration");
      logger.debug(`webhook secrets in use: ${config.alerts.webhook.secrets.join(",")}`);
      logger.info({ headers: { authorization: `Bearer ${config.api.key}` }, nested: { apiKey: config.api.key } });
      logger.error(new Error(`signature mismatch for secret ${WEBHOOK_SECRET}`));
      logger.child({ slackToken: config.slack.token }).info("child logger");
    } finally {
      await runtime.close();
    }
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const mine = records.filter((r) => r.component === undefined);
    expect(mine).toHaveLength(7);
    expect(mine[0]?.err).toMatchObject({ type: "AuthenticationError" });
    expect(JSON.stringify(mine[0])).toContain("[redacted]");
    // the Slack SDK's own trace lines went through the same logger
    expect(records.some((r) => r.component === "slack-web-api")).toBe(true);
    expectNoSecrets(lines.join("\n"), [service.writeKey, slack.token, WEBHOOK_SECRET, OLD_WEBHOOK_SECRET]);
  });

  it("captureLogs (the helper other tests rely on) scrubs the same way", () => {
    const logs = captureLogs({ secrets: [service.writeKey, WEBHOOK_SECRET] });
    logs.logger.error({ err: new Error(`boom ${service.writeKey}`), secret: "short" }, `with ${WEBHOOK_SECRET}`);
    expect(logs.records()).toHaveLength(1);
    expectNoSecrets(logs.text(), [service.writeKey, WEBHOOK_SECRET, "short"]);
  });
});
