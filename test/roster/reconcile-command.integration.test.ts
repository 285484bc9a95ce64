import { PassThrough } from "node:stream";
import { type EmulatorHandle, startEmulator } from "@retention-sync/emulator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run } from "../../src/commands/reconcile.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { makePeople, rosterDir, toCsv } from "../helpers/roster-files.js";
import { fixturePath } from "./vendors/vendor-fixture.js";

let emulator: EmulatorHandle;
let slack: FakeSlack;
let files: Awaited<ReturnType<typeof rosterDir>>;

beforeEach(async () => {
  emulator = await startEmulator({ seed: "empty", importDelayMs: 0, rateLimitPerMinute: 100_000, addHoldMs: 0 });
  slack = await startFakeSlack();
  files = await rosterDir();
});
afterEach(async () => {
  await emulator.close();
  await slack.close();
  await files.cleanup();
});

async function reconcile(argv: string[], env: Record<string, string> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  stdout.on("data", (c) => {
    out += String(c);
  });
  stderr.resume();
  const code = await run({
    argv,
    env: {
      RETENTION_API_URL: emulator.baseUrl,
      RETENTION_API_KEY: emulator.writeKey,
      RETENTION_SYNC_STATE: `${files.dir}/state.sqlite`,
      LOG_LEVEL: "silent",
      ...env,
    },
    stdout,
    stderr,
  });
  return { code, out };
}

async function writes(): Promise<number> {
  const response = await fetch(`${emulator.url}/_emulator/requests`);
  const { requests } = (await response.json()) as { requests: Array<{ method: string; path: string }> };
  return requests.filter((r) => r.method !== "GET" && r.path.startsWith("/api/v1")).length;
}

describe("retention-sync reconcile", () => {
  it("plans a BambooHR JSON report's people by both statuses: no terminated person or contractor is a joiner", async () => {
    const { code, out } = await reconcile([
      "--dry-run",
      "--json",
      "--file",
      fixturePath("bamboohr", "custom-report.json"),
    ]);
    expect(code).toBe(3); // the report's broken LinkedIn values need a person
    const report = JSON.parse(out) as {
      mapping: { preset: string; how: string };
      steps: Array<{ change: string; who: { name?: string } }>;
    };
    expect(report.mapping).toMatchObject({
      preset: "bamboohr",
      how: expect.stringMatching(/^mapping auto: recognised by/),
    });
    const adds = report.steps.filter((s) => s.change === "add").map((s) => s.who.name);
    // Chloé's termination date (2026-12-31) is still ahead on the fixtures' day; whatever today is,
    // nobody terminated (Eva, Farid) or out of scope (Grace: contractor, Hugo: intern) is added.
    expect(adds).toEqual(expect.arrayContaining(["Ana Lima", "Ben Okafor", "Dev Patel"]));
    for (const name of ["Eva Novak", "Farid Haddad", "Grace Kim", "Hugo Silva", "Iris Berg", "Jonas Weber"]) {
      expect(adds).not.toContain(name);
    }
    const text = await reconcile(["--dry-run", "--file", fixturePath("bamboohr", "custom-report.json")]);
    expect(text.out).toMatch(/read as BambooHR .*\(preset bamboohr\): mapping auto: recognised by/);
  });

  it("--dry-run prints the plan with seat and cost delta and changes nothing", async () => {
    const file = await files.write("r.csv", toCsv(makePeople(12)));
    const { code, out } = await reconcile(["--dry-run", "--file", file]);
    expect(code).toBe(0);
    expect(out).toMatch(/dry run/);
    expect(out).toMatch(/add\s+12/);
    expect(out).toMatch(/seat delta \+12 \(\+60\.00 USD\/month\)/);
    expect(await writes()).toBe(0);
  });

  it("applies, prints JSON, posts the report to the ops channel, and exits 3 when something is deferred", async () => {
    const people = makePeople(8).map((p, i) => (i === 0 ? { ...p, url: "https://example.com/in/x" } : p));
    const file = await files.write("r.csv", toCsv(people));
    const { code, out } = await reconcile(["--json"], {
      HRIS_ROSTER_FILE: file,
      SLACK_BOT_TOKEN: slack.token,
      SLACK_API_URL: slack.url,
      SLACK_OPS_CHANNEL: "#retention-ops",
    });
    const report = JSON.parse(out) as { applied: { addedTracked: number }; rows: { byReason: Record<string, number> } };
    expect(report.applied.addedTracked).toBe(7);
    expect(report.rows.byReason).toEqual({ "invalid-url": 1 });
    expect(code).toBe(3);
    const posted = slack.posted("retention-ops");
    expect(posted).toHaveLength(1);
    expect(posted[0]?.text).toMatch(/Roster reconcile/);
  });

  it("refuses to run without a roster file", async () => {
    await expect(reconcile([])).rejects.toThrow(/roster file/);
  });
});
