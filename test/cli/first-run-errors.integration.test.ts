/**
 * The first run of a new user, against the emulator and the fake Slack: a URL without /api/v1 and
 * a rejected key get the same fix and exit 2 from every command that calls the service; a bot that
 * is not in its channel is named with the fix, by `poll --once` and by the daemon's /readyz.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { API_KEY_FIX, API_URL_FIX } from "../../src/errors.js";
import { captureStream } from "../helpers/capture-stream.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { useEmulator } from "../helpers/start-emulator.js";
import { until } from "../helpers/until.js";
import { runCli } from "./cli-harness.js";

const emulator = useEmulator({ rateLimitPerMinute: 100_000 });

let slack: FakeSlack;
let dir: string;

beforeEach(async () => {
  await emulator().control.reset();
  slack = await startFakeSlack({ channels: [{ name: "hr-alerts" }] });
  dir = mkdtempSync(join(tmpdir(), "rs-first-run-"));
  writeFileSync(join(dir, "hris.csv"), "networkUrl,name\nhttps://www.linkedin.com/in/ada-first-run,Ada\n");
});
afterEach(async () => {
  await slack.close();
  rmSync(dir, { recursive: true, force: true });
});

function env(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    RETENTION_API_URL: emulator().baseUrl,
    RETENTION_API_KEY: emulator().writeKey,
    SLACK_BOT_TOKEN: slack.token,
    SLACK_API_URL: slack.url,
    SLACK_CHANNEL: "#hr-alerts",
    HRIS_ROSTER_FILE: join(dir, "hris.csv"),
    RETENTION_SYNC_STATE: join(dir, "state.sqlite"),
    OPS_PORT: "0",
    LOG_LEVEL: "silent",
    ...overrides,
  };
}

/** Every command that calls the service, as a new user would first run it. */
const COMMANDS: ReadonlyArray<readonly string[]> = [["poll", "--once"], ["reconcile", "--dry-run"], ["check"], ["run"]];

describe("a URL without /api/v1", () => {
  for (const argv of COMMANDS) {
    it(`${argv.join(" ")}: exit 2, naming the fix`, async () => {
      const origin = emulator().baseUrl.replace(/\/api\/v1\/?$/, "");
      const result = await runCli(argv, env({ RETENTION_API_URL: origin }));
      expect(result.stdout + result.stderr).toContain(API_URL_FIX);
      expect(result.code).toBe(2);
    });
  }
});

describe("a rejected key (401)", () => {
  for (const argv of COMMANDS) {
    it(`${argv.join(" ")}: exit 2, naming the fix`, async () => {
      const result = await runCli(argv, env({ RETENTION_API_KEY: "rk_not_a_key_first_run_1234" }));
      expect(result.stdout + result.stderr).toContain(API_KEY_FIX);
      expect(result.stdout + result.stderr).not.toContain("rk_not_a_key_first_run_1234");
      expect(result.code).toBe(2);
    });
  }
});

describe("a bot that is not in its channel", () => {
  const notMember = () => {
    const channel = slack.channels.get("hr-alerts");
    if (!channel) throw new Error("the fake Slack has #hr-alerts");
    channel.isMember = false;
  };

  it("poll --once: the alert waits in the outbox, the fix is named, exit 3", async () => {
    await runCli(["poll", "--once"], env());
    notMember();
    await emulator().control.signals({ count: 1, organizationId: emulator().organizationId, riskScore: 0.9 });
    const result = await runCli(["poll", "--once"], env());
    expect(result.stdout).toContain("1 waiting in the outbox");
    expect(result.stderr).toContain(
      "poll: Slack refused posts to #hr-alerts (not_in_channel); they wait in the outbox: run /invite @<your bot> in #hr-alerts, or give the app the chat:write.public scope",
    );
    expect(result.code).toBe(3);
  });

  it("run: /readyz names the channel and the fix as a needs-operator note, cleared once a post goes through", async () => {
    notMember();
    await emulator().control.signals({ count: 1, organizationId: emulator().organizationId, riskScore: 0.9 });
    const path = join(dir, "config.yaml");
    writeFileSync(path, ["alerts:", "  pollInterval: 0.2", "  initialLookback: 2m", "daemon:", "  port: 0"].join("\n"));
    const stdout = captureStream();
    const controller = new AbortController();
    const exit = main(["run", "--config", path], {
      env: env({ LOG_LEVEL: "info" }),
      stdout: stdout.stream,
      stderr: captureStream().stream,
      signal: controller.signal,
    });
    try {
      const ops = await until("the daemon's start", async () => {
        const line = stdout
          .text()
          .split("\n")
          .find((l) => l.includes('"msg":"retention-sync daemon started"'));
        return line ? String((JSON.parse(line) as { ops: string }).ops) : undefined;
      });
      const readyz = await until("the note on /readyz", async () => {
        const text = await (await fetch(`${ops}/readyz`)).text();
        return text.includes("not_in_channel") ? text : undefined;
      });
      expect(readyz).toContain(
        "needs operator: Slack refuses posts to #hr-alerts (not_in_channel); they wait in the outbox: run /invite @<your bot> in #hr-alerts",
      );
      const metrics = await (await fetch(`${ops}/metrics`)).text();
      expect(metrics).toContain('retention_sync_needs_operator{reason="slack_channel"} 1');

      const channel = slack.channels.get("hr-alerts");
      if (channel) channel.isMember = true;
      await emulator().control.signals({ count: 1, organizationId: emulator().organizationId, riskScore: 0.9 });
      await until("the note cleared", async () => {
        const text = await (await fetch(`${ops}/readyz`)).text();
        return text.includes("not_in_channel") ? undefined : text;
      });
    } finally {
      controller.abort();
      expect(await exit).toBe(0);
    }
  });
});
