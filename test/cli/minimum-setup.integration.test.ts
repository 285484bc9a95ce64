/**
 * The README's minimum set-up, taken at its word: the variables its table names, and nothing else,
 * are enough for `poll --once` and `run` against the emulator and the fake Slack. The only
 * additions are what a test cannot do without: SLACK_API_URL (the fake Slack instead of slack.com)
 * and, for `run`, OPS_PORT=0 (a shared machine may have port 9400 taken). The process runs in an
 * empty folder, so the default state path is used as a new user gets it.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bundleEntry } from "../helpers/bundle-entry.js";
import { type DaemonProcess, spawnDaemon, waitForLog } from "../helpers/daemon-process.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { auditChildOutput } from "../helpers/log-audit.js";
import { useEmulator } from "../helpers/start-emulator.js";

const emulator = useEmulator({ rateLimitPerMinute: 100_000 });

/** The variables of the README's "Minimum set-up" table, in its order. */
function readmeVariables(): string[] {
  const readme = readFileSync("README.md", "utf8");
  const section = readme.split("## Minimum set-up")[1]?.split("\n## ")[0] ?? "";
  return [...section.matchAll(/^\| `([A-Z_]+)` /gm)].map((m) => m[1] ?? "");
}

let cli: string;
let slack: FakeSlack;
let dir: string;

beforeAll(async () => {
  cli = await bundleEntry("src/cli.ts", "cli-minimum-setup");
});
beforeEach(async () => {
  await emulator().control.reset();
  slack = await startFakeSlack({ channels: [{ name: "hr-alerts" }] });
  dir = mkdtempSync(join(tmpdir(), "rs-minimum-"));
  writeFileSync(join(dir, "hris.csv"), "networkUrl,name\nhttps://www.linkedin.com/in/ada-minimum,Ada\n");
});
afterEach(async () => {
  await slack.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The values a new user would set for the README's variables; a variable without one fails the test. */
function readmeEnv(): Record<string, string> {
  const values: Record<string, string> = {
    RETENTION_API_URL: emulator().baseUrl,
    RETENTION_API_KEY: emulator().writeKey,
    SLACK_BOT_TOKEN: slack.token,
    SLACK_CHANNEL: "#hr-alerts",
    HRIS_ROSTER_FILE: join(dir, "hris.csv"),
  };
  const names = readmeVariables();
  expect(names).toEqual(Object.keys(values));
  return Object.fromEntries(names.map((name) => [name, values[name] ?? ""]));
}

/** A retention and a poaching change, so a pass has one alert of each lens to place. */
async function oneChangePerLens(): Promise<void> {
  const [competitor] = (
    (await (
      await fetch(`${emulator().baseUrl}/me`, { headers: { authorization: `Bearer ${emulator().readKey}` } })
    ).json()) as {
      competitors: Array<{ id: number }>;
    }
  ).competitors;
  await emulator().control.signals({ count: 1, organizationId: emulator().organizationId, riskScore: 0.9 });
  if (competitor) await emulator().control.signals({ count: 1, organizationId: competitor.id, riskScore: 0.9 });
}

describe("the README's minimum set-up", () => {
  it("poll --once: posts the retention alert to SLACK_CHANNEL, exit 0", async () => {
    await oneChangePerLens();
    const child = spawn(process.execPath, [cli, "poll", "--once"], {
      cwd: dir,
      env: { PATH: process.env.PATH, ...readmeEnv(), SLACK_API_URL: slack.url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    auditChildOutput("retention-sync poll --once (minimum set-up)", child);
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
    const [code] = (await once(child, "exit")) as [number | null];
    expect(out).toMatch(/poll: \d+ new alert\(s\).*message\(s\) posted, 0 waiting in the outbox/);
    expect(code).toBe(0);
    expect(slack.posted("hr-alerts").length).toBeGreaterThan(0);
    for (const message of slack.posted("hr-alerts")) expect(JSON.stringify(message)).not.toContain("Poaching");
  });

  it("run: starts, polls, posts and is ready with nothing needing an operator", async () => {
    await oneChangePerLens();
    const daemon: DaemonProcess = await spawnDaemon(
      cli,
      { ...readmeEnv(), SLACK_API_URL: slack.url, OPS_PORT: "0" },
      20_000,
      dir,
    );
    try {
      const started = await waitForLog<{ ops: string }>(daemon, "retention-sync daemon started");
      await waitForLog(daemon, "poll pass done");
      expect(slack.posted("hr-alerts").length).toBeGreaterThan(0);
      const readyz = await fetch(`${started.ops}/readyz`);
      const text = await readyz.text();
      expect(text).toMatch(/^ready: /);
      expect(text).not.toContain("needs operator");
      expect(readyz.status).toBe(200);
    } finally {
      daemon.child.kill("SIGTERM");
      expect((await daemon.exited).code).toBe(0);
    }
  });
});
