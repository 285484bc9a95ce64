import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli.js";
import { SANDBOX_CREDENTIALS } from "../../src/commands/sandbox.js";
import { captureStream } from "../helpers/capture-stream.js";
import { registerSecret } from "../helpers/known-secrets.js";
import { auditLogText } from "../helpers/log-audit.js";

const FEED_STARTS = "Every message the local Slack receives is shown below";

/** A user's own config: retention alerts to a channel by name, poaching alerts to one by id. */
const USER_CONFIG = `alerts:
  routes:
    - name: people
      lens: retention
      minRiskLevel: watch
      channel: "#people-risk"
    - name: talent
      lens: poaching
      minRiskLevel: watch
      channel: C0TALENT01
`;

async function runCli(argv: string[], env: NodeJS.ProcessEnv) {
  const stdout = captureStream();
  const stderr = captureStream();
  const code = await main(argv, { env, stdout: stdout.stream, stderr: stderr.stream });
  auditLogText(`retention-sync ${argv.join(" ")}`, stdout.text() + stderr.text());
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** The `export NAME=value` lines the sandbox prints, as an environment. */
function pastedEnvironment(text: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [, name, value] of text.matchAll(/^export (\w+)=(.*)$/gm)) {
    if (name && value !== undefined) env[name] = value.replace(/^'(.*)'$/, "$1");
  }
  return env;
}

describe("retention-sync sandbox", () => {
  const root = mkdtempSync(join(tmpdir(), "rs-sandbox-"));
  const dir = join(root, "sandbox");
  const configFile = join(root, "my-config.yaml");
  const stdout = captureStream();
  const stderr = captureStream();
  const stop = new AbortController();
  let sandbox: Promise<number>;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    for (const [label, value] of Object.entries(SANDBOX_CREDENTIALS)) registerSecret(value, `sandbox ${label}`);
    writeFileSync(configFile, USER_CONFIG);
    // Free ports (0): the fixed defaults may be taken on a shared machine.
    // The user's config, as `--config` before the command would set it.
    sandbox = main(["sandbox", "--port", "0", "--slack-port", "0", "--dir", dir], {
      env: { RETENTION_SYNC_CONFIG: configFile },
      stdout: stdout.stream,
      stderr: stderr.stream,
      signal: stop.signal,
    });
    await vi.waitFor(() => expect(stdout.text()).toContain(FEED_STARTS), { timeout: 60_000, interval: 100 });
    env = pastedEnvironment(stdout.text());
  }, 90_000);

  afterAll(async () => {
    stop.abort();
    await sandbox;
  });

  it("prints the environment to paste, every variable set and pointing at loopback", () => {
    expect(Object.keys(env).sort()).toEqual([
      "RETENTION_API_KEY",
      "RETENTION_API_URL",
      "RETENTION_SYNC_STATE",
      "SLACK_API_URL",
      "SLACK_APP_TOKEN",
      "SLACK_BOT_TOKEN",
      "SLACK_CHANNEL",
      "SLACK_OPS_CHANNEL",
    ]);
    expect(env.RETENTION_API_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(env.SLACK_API_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/$/);
    expect(stdout.text()).toMatch(/retention-sync --config \S+ poll --once/);
    expect(stdout.text()).toMatch(/curl -s -X POST http:\/\/127\.0\.0\.1:\d+\/_emulator\/signals/);
  });

  it("passes check with the user's config, then shows what poll --once posts under the routed channels, readably", async () => {
    const second = { ...env, HRIS_ROSTER_FILE: join(dir, "hris-export.csv") };
    const check = await runCli(["--config", configFile, "check"], second);
    expect(check.stdout).toContain("Slack channel #people-risk (alerts.routes[0].channel): exists");
    expect(check.stdout).toContain("Slack channel C0TALENT01 (alerts.routes[1].channel): exists");
    expect(check.stdout).toContain("Slack app token works");
    expect(check.stdout).not.toContain("✗");
    expect(check.code).toBe(0);

    // A poaching change now: the seeded history of the last 24 hours may hold none.
    const control = new URL("/_emulator/signals", env.RETENTION_API_URL);
    const raised = await fetch(control, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ count: 1, organizationId: 2001, riskScore: 0.9 }),
    });
    expect(raised.status).toBe(201);
    const poll = await runCli(["--config", configFile, "poll", "--once"], second);
    expect(poll.stderr).not.toMatch(/"level":(50|60)/);
    expect(poll.code).toBe(0);
    const feed = stdout.text().slice(stdout.text().indexOf(FEED_STARTS));
    auditLogText("sandbox feed", feed + stderr.text());
    expect(feed).toMatch(/┌─ Slack #people-risk\n│ .+\n/);
    expect(feed).toMatch(/┌─ Slack C0TALENT01\n│ .+\n/);
    expect(feed).toContain("Risk of leaving");
    expect(feed).not.toMatch(/&lt;|&gt;|&amp;/);
    const transcript = readFileSync(join(dir, "slack-messages.jsonl"), "utf8").trim().split("\n");
    expect(transcript.length).toBe((feed.match(/┌─ Slack /g) ?? []).length);
  }, 120_000);

  it("names --port when its port is taken, and refuses a second sandbox in the same folder", async () => {
    const port = new URL(env.RETENTION_API_URL ?? "").port;
    const taken = await runCli(["sandbox", "--port", port, "--slack-port", "0", "--dir", join(root, "other")], {});
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is taken`);
    expect(taken.stderr).toContain("pick another with --port N");
    const twice = await runCli(["sandbox", "--port", "0", "--slack-port", "0", "--dir", dir], {});
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(`a sandbox is already running in ${dir}`);
  }, 60_000);

  it("stops cleanly on the signal and removes its control file", async () => {
    stop.abort();
    expect(await sandbox).toBe(0);
    expect(stderr.text()).toBe("");
    expect(existsSync(join(dir, "control.json"))).toBe(false);
  }, 60_000);
});
