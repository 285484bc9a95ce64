/**
 * `roster.source: sftp` end to end: `reconcile` (dry and real), `check` and the daemon's scheduled
 * run pull the export from the SFTP fake and reconcile it against the emulator; every failure of the
 * pull (a wrong host key, a refused password, no file, a half-written file, a cut transfer)
 * reconciles nothing, archives nobody and writes nothing to the service.
 */
import { join } from "node:path";
import { type EmulatorHandle, startEmulator } from "@retention-sync/emulator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RetentionClient } from "../../../src/api/client.js";
import { type ConfiguredDaemon, startConfiguredDaemon } from "../../../src/app/configured-daemon.js";
import { loadConfig } from "../../../src/config/load-config.js";
import { RosterPullError } from "../../../src/errors.js";
import { silentLogger } from "../../../src/logger.js";
import { reconcileOnce } from "../../../src/roster/reconcile-once.js";
import { rosterPuller } from "../../../src/roster/sources/roster-puller.js";
import { openStateStore } from "../../../src/store/state-store.js";
import { runCli } from "../../cli/cli-harness.js";
import { captureStream } from "../../helpers/capture-stream.js";
import { newKeyPair, type SftpFake, startSftpFake } from "../../helpers/fakes/sftp-fake.js";
import { registerSecret } from "../../helpers/known-secrets.js";
import { canonicalUrl, type HrisPerson, makePeople, rosterDir, toCsv } from "../../helpers/roster-files.js";

const PASSWORD = "sftp-fake-password-4567";
const DAY = 86_400_000;

let emulator: EmulatorHandle;
let fake: SftpFake;
let files: Awaited<ReturnType<typeof rosterDir>>;
let keyFile: string;
let daemon: ConfiguredDaemon | undefined;

beforeEach(async () => {
  emulator = await startEmulator({ seed: "empty", importDelayMs: 0, rateLimitPerMinute: 100_000, addHoldMs: 0 });
  fake = await startSftpFake({ password: PASSWORD });
  files = await rosterDir();
  keyFile = await files.write("sftp_key", fake.clientPrivateKey);
});
afterEach(async () => {
  await daemon?.stop("test over");
  daemon = undefined;
  await fake.close();
  await emulator.close();
  await files.cleanup();
});

interface SourceSettings {
  readonly hostKey?: string;
  readonly doneMarker?: string | null;
  readonly auth?: "key" | "password";
  readonly extra?: string[];
}

/** A config file whose roster comes from the fake over SFTP. */
async function configFile(settings: SourceSettings = {}): Promise<string> {
  const marker = settings.doneMarker === undefined ? ".done" : settings.doneMarker;
  const lines = [
    "alerts:",
    "  enabled: false",
    "roster:",
    "  archiveAfterMissingExports: 1",
    ...(settings.extra ?? []),
    "  source:",
    "    type: sftp",
    "    host: 127.0.0.1",
    `    port: ${fake.port}`,
    `    username: ${fake.username}`,
    ...(settings.auth === "password" ? [] : [`    privateKeyFile: ${keyFile}`]),
    `    hostKey: "${settings.hostKey ?? fake.hostKey}"`,
    "    path: /exports/workers-*.csv",
    ...(marker === null ? [] : [`    doneMarker: "${marker}"`]),
    "daemon:",
    "  host: 127.0.0.1",
    "  port: 0",
    "",
  ];
  return files.write(`config-${Math.random().toString(16).slice(2)}.yaml`, lines.join("\n"));
}

function env(config: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    RETENTION_API_URL: emulator.baseUrl,
    RETENTION_API_KEY: emulator.writeKey,
    RETENTION_SYNC_STATE: join(files.dir, "state.sqlite"),
    RETENTION_SYNC_CONFIG: config,
    LOG_LEVEL: "silent",
    ...extra,
  };
}

/** Drops an export on the fake, with its done marker, `age` before now. */
function deliver(name: string, people: readonly HrisPerson[], options: { age?: number; marker?: boolean } = {}) {
  const mtime = new Date(Date.now() - (options.age ?? 0));
  fake.put(`/exports/${name}`, toCsv(people), { mtime });
  if (options.marker !== false) fake.put(`/exports/${name}.done`, "", { mtime });
}

async function reconcile(config: string, argv: string[] = [], extra: Record<string, string> = {}) {
  const result = await runCli(["reconcile", "--json", ...argv], env(config, extra));
  const report = result.stdout.trim().startsWith("{") ? (JSON.parse(result.stdout) as Report) : undefined;
  return { ...result, report };
}

interface Report {
  steps: Array<{ change: string; url: string }>;
  applied?: { addedTracked: number; archived: number };
  source?: { type: string; origin: string; facts: Record<string, unknown> };
  export?: { stale: boolean; ageDays: number; modifiedAt: string };
  findings: Array<{ kind: string }>;
}

async function requestLog(): Promise<Array<{ method: string; path: string }>> {
  const response = await fetch(`${emulator.url}/_emulator/requests`);
  return ((await response.json()) as { requests: Array<{ method: string; path: string }> }).requests;
}

async function writes(): Promise<number> {
  return (await requestLog()).filter((r) => r.method !== "GET" && r.path.startsWith("/api/v1")).length;
}

async function serviceRoster(): Promise<Array<{ networkUrl: string; status: string }>> {
  const client = new RetentionClient({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.writeKey,
    requestsPerMinute: 100_000,
  });
  try {
    const out: Array<{ networkUrl: string; status: string }> = [];
    for await (const e of client.iterateEmployees({ pageSize: 100 })) out.push(e);
    return out.sort((a, b) => a.networkUrl.localeCompare(b.networkUrl));
  } finally {
    await client.close();
  }
}

const PEOPLE = makePeople(20);

/** 20 people on the service, added by a real run from the SFTP export. */
async function seeded(config: string) {
  deliver("workers-2024-06-01.csv", PEOPLE, { age: DAY });
  const run = await reconcile(config);
  expect(run.code).toBe(0);
  expect(run.report?.applied?.addedTracked).toBe(20);
  return { roster: await serviceRoster(), writes: await writes() };
}

describe("reconcile from an SFTP export", () => {
  it("--dry-run plans the pulled export's adds and archives; a real run applies them", async () => {
    const config = await configFile();
    deliver("workers-2024-06-01.csv", PEOPLE, { age: DAY });
    const dry = await reconcile(config, ["--dry-run"]);
    expect(dry.stderr).toBe("");
    expect(dry.code).toBe(0);
    expect(dry.report?.steps.filter((s) => s.change === "add")).toHaveLength(20);
    expect(dry.report?.source).toMatchObject({
      type: "sftp",
      origin: `sftp://127.0.0.1:${fake.port}/exports/workers-2024-06-01.csv`,
      facts: { file: "workers-2024-06-01.csv", doneMarker: "workers-2024-06-01.csv.done" },
    });
    expect(await writes()).toBe(0);

    const real = await reconcile(config);
    expect(real.code).toBe(0);
    expect(real.report?.applied?.addedTracked).toBe(20);
    expect(await serviceRoster()).toHaveLength(20);

    // The next night's file leaves one person out: the newest file wins, and they are archived.
    deliver("workers-2024-06-02.csv", PEOPLE.slice(1));
    const next = await reconcile(config, ["--dry-run"]);
    expect(next.report?.source?.facts).toMatchObject({ file: "workers-2024-06-02.csv" });
    const archives = next.report?.steps.filter((s) => s.change === "archive") ?? [];
    expect(archives.map((s) => s.url)).toEqual([canonicalUrl(PEOPLE[0]?.slug ?? "")]);
    const applied = await reconcile(config);
    expect(applied.code).toBe(0);
    const archived = (await serviceRoster()).filter((e) => e.status === "archived");
    expect(archived.map((e) => e.networkUrl)).toEqual([canonicalUrl(PEOPLE[0]?.slug ?? "")]);
  });

  it("without a doneMarker, reads the file once it held still between two looks", async () => {
    const config = await configFile({ doneMarker: null });
    deliver("workers-2024-06-01.csv", PEOPLE.slice(0, 3), { marker: false });
    const dry = await reconcile(config, ["--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.report?.steps.filter((s) => s.change === "add")).toHaveLength(3);
    expect(fake.requests.filter((r) => r === "STAT /exports/workers-2024-06-01.csv").length).toBeGreaterThanOrEqual(3);
  });

  it("a stale newest file is reconciled and reported stale (roster.staleAfter)", async () => {
    const config = await configFile();
    deliver("workers-2024-06-01.csv", PEOPLE.slice(0, 3), { age: 10 * DAY });
    const dry = await reconcile(config, ["--dry-run"]);
    expect(dry.code).toBe(3); // a stale export needs a person's attention
    expect(dry.report?.export).toMatchObject({ stale: true, ageDays: 10 });
    expect(dry.report?.steps.filter((s) => s.change === "add")).toHaveLength(3);
    const text = await runCli(["reconcile", "--dry-run"], env(config));
    expect(text.stdout).toMatch(/UNCHANGED FOR 10 DAYS/);
  });

  it("an empty but valid export (a header, no rows) archives nobody: the reader refuses it", async () => {
    const config = await configFile();
    const before = await seeded(config);
    deliver("workers-2024-06-02.csv", []);
    const run = await reconcile(config);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/has a header but no rows; refusing to treat an empty export as everyone leaving/);
    expect(await writes()).toBe(before.writes);
    expect(await serviceRoster()).toEqual(before.roster);
    expect((await serviceRoster()).filter((e) => e.status === "archived")).toEqual([]);
  });
});

describe("a failed SFTP pull reconciles nothing", () => {
  it("a wrong host key: exit 2, nothing written, nobody archived", async () => {
    const good = await configFile();
    const before = await seeded(good);
    deliver("workers-2024-06-02.csv", PEOPLE.slice(1));
    const wrong = await configFile({ hostKey: newKeyPair().fingerprint });
    const run = await reconcile(wrong);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /Roster source sftp: 127\.0\.0\.1:\d+ presented an ssh-ed25519 host key whose fingerprint is not/,
    );
    expect(await writes()).toBe(before.writes);
    expect(await serviceRoster()).toEqual(before.roster);
  });

  it("a refused password: exit 2, the password in no output, nothing written", async () => {
    const before = await seeded(await configFile());
    deliver("workers-2024-06-02.csv", PEOPLE.slice(1));
    const config = await configFile({ auth: "password" });
    registerSecret("a-wrong-password-99", "a wrong SFTP password");
    const run = await reconcile(config, [], { SFTP_PASSWORD: "a-wrong-password-99" });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/refused retention's password/);
    expect(`${run.stdout}${run.stderr}`).not.toContain("a-wrong-password-99");
    expect(await writes()).toBe(before.writes);
    expect(await serviceRoster()).toEqual(before.roster);
    // And the right one, from the environment, works.
    const ok = await reconcile(config, ["--dry-run"], { SFTP_PASSWORD: PASSWORD });
    expect(ok.code).toBe(0);
    expect(ok.report?.steps.filter((s) => s.change === "archive")).toHaveLength(1);
  });

  it("no matching file, or a file without its done marker: exit 1 naming what was found, nothing written", async () => {
    const config = await configFile();
    const before = await seeded(config);
    fake.remove("/exports/workers-2024-06-01.csv");
    fake.remove("/exports/workers-2024-06-01.csv.done");
    fake.put("/exports/payroll.csv", "x\n");
    const none = await reconcile(config);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      /no file in sftp:\/\/127\.0\.0\.1:\d+\/exports matches workers-\*\.csv: found 1 file: payroll\.csv/,
    );
    deliver("workers-2024-06-02.csv", PEOPLE.slice(1), { marker: false });
    const unmarked = await reconcile(config);
    expect(unmarked.code).toBe(1);
    expect(unmarked.stderr).toMatch(/has no workers-2024-06-02\.csv\.done yet/);
    expect(await writes()).toBe(before.writes);
    expect(await serviceRoster()).toEqual(before.roster);
  });

  it("a half-written file and a cut transfer: RosterPullError (exit 1), nothing written, nobody archived", async () => {
    const good = await configFile();
    const before = await seeded(good);
    const config = loadConfig({ file: await configFile({ doneMarker: null }), env: env(good) });
    const store = await openStateStore(":memory:");
    const client = new RetentionClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.writeKey,
      requestsPerMinute: 100_000,
    });
    const instant = { http: { sleep: async () => {} } };
    const pullExport = rosterPuller(config, {}, undefined, undefined, instant);
    if (!pullExport) throw new Error("no pull source");
    const run = () =>
      reconcileOnce({
        config,
        client,
        store,
        logger: silentLogger(),
        pullExport,
      });
    try {
      // Being written: it grows at every look.
      const big = toCsv(PEOPLE.slice(1));
      fake.put("/exports/workers-2024-06-02.csv", big, { growsBy: "https://www.linkedin.com/in/late,Late\n" });
      const half = await run().catch((e: unknown) => e);
      expect(half).toBeInstanceOf(RosterPullError);
      expect((half as RosterPullError).exitCode).toBe(1);
      expect((half as RosterPullError).message).toMatch(/kept changing over 5 looks/);

      // Cut mid-transfer, on every try.
      const many = makePeople(2000).slice(1);
      fake.put("/exports/workers-2024-06-03.csv", toCsv(many), {
        cutAfter: 50_000,
        mtime: new Date(Date.now() + 5000),
      });
      const cut = await run().catch((e: unknown) => e);
      expect(cut).toBeInstanceOf(RosterPullError);
      expect((cut as RosterPullError).exitCode).toBe(1);
      expect((cut as RosterPullError).message).toMatch(/connection closed after 50000 bytes .*\(3 tries\)/);
    } finally {
      await client.close();
      await store.close();
    }
    expect(await writes()).toBe(before.writes);
    expect(await serviceRoster()).toEqual(before.roster);
  });
});

describe("check and the daemon with an SFTP source", () => {
  it("check pulls the export and prints the source's facts", async () => {
    const config = await configFile();
    deliver("workers-2024-06-01.csv", PEOPLE.slice(0, 3), { age: DAY });
    const result = await runCli(["check"], env(config));
    const name = "workers-2024-06-01.csv";
    expect(result.stdout).toContain(`✓ Roster source sftp pulled sftp://127.0.0.1:${fake.port}/exports/${name}`);
    expect(result.stdout).toMatch(
      new RegExp(
        `file "${name.replace(/\./g, "\\.")}", bytes \\d+, modifiedAt "[0-9T:.-]+Z", doneMarker "${name.replace(/\./g, "\\.")}\\.done"`,
      ),
    );
    expect(result.stdout).toMatch(/✓ Roster export parses: 3 rows/);
  });

  it("check says a wrong host key is the operator's to fix", async () => {
    deliver("workers-2024-06-01.csv", PEOPLE.slice(0, 3));
    const result = await runCli(["check"], env(await configFile({ hostKey: newKeyPair().fingerprint })));
    expect(result.stdout).toMatch(
      /✗ .*Roster source sftp: .*host key whose fingerprint is not roster\.source\.hostKey/,
    );
    expect(result.code).not.toBe(0);
  });

  it("the daemon's scheduled run (runOnStart) pulls the export and reconciles it", async () => {
    deliver("workers-2024-06-01.csv", PEOPLE.slice(0, 4));
    const file = await configFile({ extra: ["  runOnStart: true", '  schedule: "0 2 1 1 *"'] });
    const daemonEnv = { ...env(file), LOG_LEVEL: "info" };
    const logs = captureStream();
    daemon = await startConfiguredDaemon(loadConfig({ file, env: daemonEnv }), {
      argv: [],
      env: daemonEnv,
      stdout: logs.stream,
      stderr: logs.stream,
    });
    for (let i = 0; i < 400 && (await serviceRoster()).length < 4; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(await serviceRoster()).toHaveLength(4);
    expect(logs.text()).toContain("roster export pulled");
    expect(logs.text()).toContain(`sftp://127.0.0.1:${fake.port}/exports/workers-2024-06-01.csv`);
  });
});
