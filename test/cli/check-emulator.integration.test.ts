import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EmulatorHandle, startEmulator } from "@retention-sync/emulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { runCli } from "./cli-harness.js";

let emulator: EmulatorHandle;
let slack: FakeSlack;
const dir = mkdtempSync(join(tmpdir(), "rs-check-emu-"));
const roster = join(dir, "hris.csv");
writeFileSync(roster, "networkUrl,name\nhttps://www.linkedin.com/in/ada-check,Ada\n");

beforeAll(async () => {
  emulator = await startEmulator({ seed: "demo" });
  slack = await startFakeSlack();
});
afterAll(async () => {
  await emulator.close();
  await slack.close();
});

const env = (key: string, file = roster): NodeJS.ProcessEnv => ({
  RETENTION_API_URL: emulator.baseUrl,
  RETENTION_API_KEY: key,
  SLACK_BOT_TOKEN: slack.token,
  SLACK_API_URL: slack.url,
  SLACK_CHANNEL: "#hr-alerts",
  HRIS_ROSTER_FILE: file,
  RETENTION_SYNC_STATE: join(dir, "state.sqlite"),
  LOG_LEVEL: "silent",
});

describe("check against the emulator", () => {
  it("a write key passes and shows the seeded company, its two competitor workspaces and both scopes", async () => {
    const result = await runCli(["check"], env(emulator.writeKey));
    expect(result.stdout).toMatch(/✓ API key works at .*: company .+ \(organization \d+\)/);
    expect(result.stdout).toMatch(/competitor workspaces: .+ \(\d+\), .+ \(\d+\)/);
    expect(result.stdout).toContain("scopes: read, write");
    expect(result.code).toBe(0);
  });

  it("a file that is readable but no roster (package.json) fails as reconcile would refuse it", async () => {
    const result = await runCli(["check"], env(emulator.writeKey, "package.json"));
    expect(result.stdout).toMatch(/✗ Roster file package.json: .*\(HRIS_ROSTER_FILE\)/);
    expect(result.code).toBe(2);
  });

  it("the read key with a roster file fails with the read-only sentence, exit 2", async () => {
    const result = await runCli(["check"], env(emulator.readKey));
    expect(result.stdout).toMatch(/✗ Roster reconciliation is enabled .* read-only/);
    expect(result.code).toBe(2);
  });

  it("an unknown key is rejected (401), exit 2", async () => {
    const result = await runCli(["check"], env("rk_not_a_key_at_all_1234"));
    expect(result.stdout).toMatch(/✗ API key rejected .*\(401\)/);
    expect(result.code).toBe(2);
  });
});
