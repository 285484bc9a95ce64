/**
 * A service answering every request with 429 and a hostile `Retry-After`: `poll --once`
 * exits at once with a clear message instead of sitting out (or spinning on) the wait; `run` stays
 * responsive, its request budget paused for at most the cap and shown on /readyz and /metrics.
 * Each test's own timeout bounds how long the command may take; nothing here waits for a duration.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_RATE_LIMIT_PAUSE_MS } from "../../src/api/retry-policy.js";
import { main } from "../../src/cli.js";
import { type ScriptedServer, startScriptedServer } from "../api/support/scripted-server.js";
import { captureStream } from "../helpers/capture-stream.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { registerSecret } from "../helpers/known-secrets.js";
import { runCli } from "./cli-harness.js";

const KEY = "rk_hostile_retry_after_0123456789";
registerSecret(KEY, "hostile Retry-After test key");

let server: ScriptedServer;
let slack: FakeSlack;
let dir: string;

beforeEach(async () => {
  server = await startScriptedServer();
  slack = await startFakeSlack();
  dir = mkdtempSync(join(tmpdir(), "rs-retry-after-"));
});
afterEach(async () => {
  await slack.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    RETENTION_API_URL: server.baseUrl,
    RETENTION_API_KEY: KEY,
    SLACK_BOT_TOKEN: slack.token,
    SLACK_API_URL: slack.url,
    SLACK_CHANNEL: "#hr-alerts",
    RETENTION_SYNC_STATE: join(dir, "state.sqlite"),
    LOG_LEVEL: "warn",
    ...extra,
  };
}

function rateLimitEverything(retryAfter: string): void {
  server.setHandler(() => ({
    status: 429,
    body: { error: "Too many requests" },
    headers: { "retry-after": retryAfter },
  }));
}

describe("poll --once against a hostile Retry-After", () => {
  it.each(["99999999", "3600"])(
    "exits with a clear message instead of waiting Retry-After: %s",
    async (retryAfter) => {
      rateLimitEverything(retryAfter);
      const result = await runCli(["poll", "--once"], env());
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("poll: could not read changes");
      expect(result.stderr).toContain(`asked to wait ${retryAfter} s before retrying`);
      expect(result.stderr).toContain("the request budget is paused for 60 s");
      // Each of /me and /competitors asked once: given up at once, never retried in a loop.
      expect(server.requests.length).toBeLessThanOrEqual(2);
    },
    30_000,
  );
});

describe("run against a hostile Retry-After", () => {
  it("stays responsive, shows the bounded pause on /readyz and /metrics, and stops at once", async () => {
    rateLimitEverything("99999999");
    const config = join(dir, "config.yaml");
    writeFileSync(config, "alerts:\n  pollInterval: 1\ndaemon:\n  port: 0\n  host: 127.0.0.1\n");
    const stdout = captureStream();
    const controller = new AbortController();
    const exit = main(["run", "--config", config], {
      env: env({ LOG_LEVEL: "info" }),
      stdout: stdout.stream,
      stderr: captureStream().stream,
      signal: controller.signal,
    });
    const lines = () =>
      stdout
        .text()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const until = async <T>(probe: () => Promise<T | undefined>): Promise<T> => {
      for (;;) {
        const value = await probe();
        if (value !== undefined) return value;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const ops = await until(async () => lines().find((l) => l.msg === "retention-sync daemon started")?.ops as string);
    const reason = await until(async () => {
      const response = await fetch(`${ops}/readyz`);
      const text = await response.text();
      return response.status === 503 && text.includes("request budget paused") ? text : undefined;
    });
    const seconds = Number(/paused for (\d+) s more/.exec(reason)?.[1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(MAX_RATE_LIMIT_PAUSE_MS / 1000);
    const metrics = await (await fetch(`${ops}/metrics`)).text();
    const paused = Number(/^retention_sync_rate_budget_paused_seconds (\S+)$/m.exec(metrics)?.[1]);
    expect(paused).toBeGreaterThan(0);
    expect(paused).toBeLessThanOrEqual(60);
    expect((await fetch(`${ops}/livez`)).status).toBe(200);
    // One warning per given-up request, not a storm of timer warnings.
    const warned = lines().filter((l) => String(l.msg).startsWith("the service asked for a longer wait"));
    expect(warned.length).toBeGreaterThan(0);
    expect(warned.length).toBeLessThanOrEqual(4);
    controller.abort();
    expect(await exit).toBe(0);
  }, 30_000);
});
