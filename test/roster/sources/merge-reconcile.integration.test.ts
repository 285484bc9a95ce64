/**
 * `roster.source.type: merge` end to end: `reconcile` (dry and real), the daemon's scheduled run and
 * `check` pull the employee list from a local fake of Merge's HRIS API and reconcile it with the
 * emulator; a failed, cut or partial pull reconciles nothing, archives nobody and writes nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RetentionClient } from "../../../src/api/client.js";
import { type ConfiguredDaemon, startConfiguredDaemon } from "../../../src/app/configured-daemon.js";
import { loadConfig } from "../../../src/config/load-config.js";
import { EXIT_RUNTIME, EXIT_USAGE, RosterPullError, RosterSourceAuthError } from "../../../src/errors.js";
import { silentLogger } from "../../../src/logger.js";
import { reconcileOnce } from "../../../src/roster/reconcile-once.js";
import { rosterPuller } from "../../../src/roster/sources/roster-puller.js";
import { openStateStore } from "../../../src/store/state-store.js";
import { runCli } from "../../cli/cli-harness.js";
import { captureStream } from "../../helpers/capture-stream.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../../helpers/daemon-world.js";
import { type MergeFake, type MergeFakePerson, mergePeople, startMergeFake } from "../../helpers/fakes/merge-fake.js";
import { canonicalUrl, makePeople } from "../../helpers/roster-files.js";

let world: DaemonWorld;
let fake: MergeFake;
let configured: ConfiguredDaemon | undefined;
let client: RetentionClient;
/** 120 people in scope (two pages of Merge's 100), plus three who are not. */
let hris: MergeFakePerson[];

beforeEach(async () => {
  world = await startDaemonWorld();
  const people = mergePeople(makePeople(123));
  hris = [
    ...people.slice(0, 120),
    { ...(people[120] as MergeFakePerson), deleted: true },
    { ...(people[121] as MergeFakePerson), employmentType: "CONTRACTOR" },
    { ...(people[122] as MergeFakePerson), employmentStatus: "PENDING" },
  ];
  fake = await startMergeFake([...hris]);
  client = new RetentionClient({
    baseUrl: world.emulator.baseUrl,
    apiKey: world.emulator.writeKey,
    requestsPerMinute: 100_000,
  });
});
afterEach(async () => {
  await configured?.stop("test over");
  configured = undefined;
  await client.close();
  await fake.close();
  await world.close();
});

function configText(extra: string[] = []): string {
  return [
    "alerts:",
    "  enabled: false",
    "roster:",
    '  schedule: "0 2 1 1 *"',
    ...extra,
    "  source:",
    "    type: merge",
    `    baseUrl: ${fake.url}`,
    "daemon:",
    "  host: 127.0.0.1",
    "  port: 0",
    "",
  ].join("\n");
}

async function setup(extra: string[] = []): Promise<{ file: string; env: Record<string, string> }> {
  const file = await world.files.write("config.yaml", configText(extra));
  const env = daemonEnv(world, "merge", {
    MERGE_API_KEY: fake.apiKey,
    MERGE_ACCOUNT_TOKEN: fake.accountToken,
    LOG_LEVEL: "silent",
  });
  return { file, env };
}

async function reconcile(args: string[], setupDone?: Awaited<ReturnType<typeof setup>>) {
  const { file, env } = setupDone ?? (await setup());
  return runCli(["reconcile", "--config", file, ...args], env);
}

interface JsonReport {
  steps: Array<{ change: string; url: string; who: { name?: string } }>;
  applied?: { addedTracked: number; archived: number };
  source?: { type: string; origin: string; facts: Record<string, unknown> };
  guardedArchives?: number;
}

/** The service's roster: URL -> status ("archived" or not). */
async function serviceRoster(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const e of client.iterateEmployees({ pageSize: 100 })) out.set(e.networkUrl, e.status);
  return out;
}

/** Write requests (POST, PATCH, DELETE under /api/v1) the service has received so far. */
async function writes(): Promise<number> {
  const requests = await world.emulator.control.requests();
  return requests.filter((r) => r.method !== "GET" && r.path.startsWith("/api/v1")).length;
}

function url(i: number): string {
  return canonicalUrl(`person-${i}`);
}

/** The service holds the 120 people after a first real run; then 3 of them leave in the HRIS. */
async function seededThenThreeLeave() {
  const ready = await setup();
  const first = await reconcile(["--json"], ready);
  expect(first.code).toBe(0);
  expect((JSON.parse(first.stdout) as JsonReport).applied?.addedTracked).toBe(120);
  const at = (i: number) => fake.people[i] as MergeFakePerson;
  fake.people[0] = { ...at(0), deleted: true };
  fake.people[1] = { ...at(1), employmentStatus: "INACTIVE" };
  fake.people[2] = { ...at(2), terminationDate: "2020-01-31T00:00:00Z" };
  fake.requests.length = 0;
  return ready;
}

/** A run that must change nothing: the same roster on the service and no write since `before`. */
async function expectNothingChanged(before: Map<string, string>, writesBefore: number): Promise<void> {
  expect(await serviceRoster()).toEqual(before);
  expect([...before.values()].filter((s) => s === "archived")).toEqual([]);
  expect(await writes()).toBe(writesBefore);
}

describe("reconcile from the merge source", () => {
  it("--dry-run plans the pulled export's joiners, a real run adds them, and leavers are archived", async () => {
    const ready = await setup();
    const dry = await reconcile(["--dry-run", "--json"], ready);
    expect(dry.code).toBe(0);
    const plan = JSON.parse(dry.stdout) as JsonReport;
    expect(plan.source).toEqual({
      type: "merge",
      origin: `${fake.url}/api/hris/v1/employees`,
      facts: { pages: 2, records: 123, bytes: expect.any(Number) },
    });
    const adds = plan.steps.filter((s) => s.change === "add").map((s) => s.url);
    expect(adds).toHaveLength(120);
    // Deleted in the HRIS, a contractor, not started yet: none is a joiner.
    for (const i of [120, 121, 122]) expect(adds).not.toContain(url(i));
    expect(await writes()).toBe(0);
    expect(fake.requests.map((r) => [r.page, r.status])).toEqual([
      [1, 200],
      [2, 200],
    ]);

    const applied = await reconcile(["--json"], ready);
    expect(applied.code).toBe(0);
    expect((JSON.parse(applied.stdout) as JsonReport).applied?.addedTracked).toBe(120);
    const roster = await serviceRoster();
    expect(roster.size).toBe(120);
    expect([...roster.keys()]).toContain(url(0));

    // Three leave in the HRIS: deleted, INACTIVE, a termination date passed.
    const at = (i: number) => fake.people[i] as MergeFakePerson;
    fake.people[0] = { ...at(0), deleted: true };
    fake.people[1] = { ...at(1), employmentStatus: "INACTIVE" };
    fake.people[2] = { ...at(2), terminationDate: "2020-01-31T00:00:00Z" };
    const leavers = await reconcile(["--dry-run", "--json"], ready);
    const archives = (JSON.parse(leavers.stdout) as JsonReport).steps.filter((s) => s.change === "archive");
    expect(archives.map((s) => s.url).sort()).toEqual([url(0), url(1), url(2)].sort());
    const archived = await reconcile(["--json"], ready);
    expect((JSON.parse(archived.stdout) as JsonReport).applied?.archived).toBe(3);
    const after = await serviceRoster();
    expect([url(0), url(1), url(2)].map((u) => after.get(u))).toEqual(["archived", "archived", "archived"]);
    expect(after.get(url(3))).not.toBe("archived");

    const text = await reconcile(["--dry-run"], ready);
    expect(text.stdout).toMatch(/pulled from merge: pages 2, records 123, bytes \d+/);
  });

  it("each complete pull is a new export: someone missing from two of them is archived, a failed pull between counts for nothing", async () => {
    const ready = await setup();
    expect((await reconcile([], ready)).code).toBe(0);
    fake.people = fake.people.filter((p) => p.remoteId !== "E000005");
    const once = JSON.parse((await reconcile(["--json"], ready)).stdout) as JsonReport & { waitingToArchive: number };
    expect(once.waitingToArchive).toBe(1);
    fake.fail(1, { kind: "status", status: 401 });
    expect((await reconcile([], ready)).code).toBe(EXIT_USAGE);
    const twice = JSON.parse((await reconcile(["--json"], ready)).stdout) as JsonReport;
    expect(twice.steps.filter((s) => s.change === "archive").map((s) => s.url)).toEqual([url(5)]);
    expect(twice.applied?.archived).toBe(1);
  });

  it("a refused credential: exit 2, nothing reconciled, nobody archived, nothing written", async () => {
    const ready = await seededThenThreeLeave();
    const before = await serviceRoster();
    const writesBefore = await writes();
    const refused = await reconcile([], { ...ready, env: { ...ready.env, MERGE_API_KEY: "revoked-merge-key-0123" } });
    expect(refused.code).toBe(EXIT_USAGE);
    expect(refused.stderr).toMatch(/Roster source merge: .*refused the credential \(401\)/);
    for (const secret of [fake.apiKey, fake.accountToken]) expect(refused.stderr).not.toContain(secret);
    await expectNothingChanged(before, writesBefore);
  });

  it("a redirect to another host on a middle page: exit 1, nothing reconciled", async () => {
    const ready = await seededThenThreeLeave();
    const before = await serviceRoster();
    const writesBefore = await writes();
    fake.fail(2, { kind: "redirect", location: `http://127.0.0.2:${new URL(fake.url).port}/api/hris/v1/employees` });
    const redirected = await reconcile([], ready);
    expect(redirected.code).toBe(EXIT_RUNTIME);
    expect(redirected.stderr).toMatch(/redirected to another origin/);
    await expectNothingChanged(before, writesBefore);
  });

  describe("a pull the retries do not cure (retry waits made instant)", () => {
    /** One run as the daemon and `reconcile` make it, with instant retry waits. */
    async function run(ready: Awaited<ReturnType<typeof setup>>, waits: number[]) {
      const config = loadConfig({ file: ready.file, env: ready.env });
      const store = await openStateStore(config.state.path);
      try {
        const logger = silentLogger();
        const pullExport = rosterPuller(config, ready.env, logger, undefined, {
          http: {
            sleep: async (ms) => {
              waits.push(ms);
            },
          },
        });
        return await reconcileOnce({ config, client, store, logger, ...(pullExport ? { pullExport } : {}) });
      } finally {
        await store.close();
      }
    }

    const faults = {
      "a 5xx on the middle page": { kind: "status", status: 500 },
      "the middle page cut short (Content-Length)": { kind: "cut", how: "content-length" },
      "the middle page cut short (chunked)": { kind: "cut", how: "chunked" },
      "a 429 on the middle page every time": { kind: "status", status: 429, retryAfter: "2" },
    } as const;
    for (const [name, fault] of Object.entries(faults)) {
      it(`${name}: RosterPullError (exit 1), nobody archived, nothing written`, async () => {
        const ready = await seededThenThreeLeave();
        const before = await serviceRoster();
        const writesBefore = await writes();
        fake.fail(2, fault, 10);
        const waits: number[] = [];
        const error = await run(ready, waits).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(RosterPullError);
        expect(error).not.toBeInstanceOf(RosterSourceAuthError);
        expect((error as RosterPullError).exitCode).toBe(EXIT_RUNTIME);
        expect(waits).toHaveLength(3);
        expect(fake.requests.map((r) => r.page)).toEqual([1, 2, 2, 2, 2]);
        await expectNothingChanged(before, writesBefore);
      });
    }

    it("the same fault cured by a retry: the run goes on and archives the three leavers", async () => {
      const ready = await seededThenThreeLeave();
      fake.fail(2, { kind: "status", status: 429, retryAfter: "2" });
      const waits: number[] = [];
      const report = await run(ready, waits);
      expect(waits).toEqual([2000]);
      expect(report.applied?.archived).toBe(3);
    });
  });

  it("an empty but valid list: refused as an export of nobody (exit 2), nobody archived", async () => {
    const ready = await seededThenThreeLeave();
    const before = await serviceRoster();
    const writesBefore = await writes();
    fake.people = [];
    const empty = await reconcile([], ready);
    expect(empty.code).toBe(EXIT_USAGE);
    expect(empty.stderr).toMatch(/holds no people; refusing to treat an empty export as everyone leaving/);
    await expectNothingChanged(before, writesBefore);
  });

  it("a list where everybody left: refused as nobody in scope, nobody archived", async () => {
    const ready = await seededThenThreeLeave();
    const before = await serviceRoster();
    const writesBefore = await writes();
    fake.people = fake.people.map((p) => ({ ...p, employmentStatus: "INACTIVE" }));
    const gone = await reconcile([], ready);
    expect(gone.code).toBe(EXIT_USAGE);
    expect(gone.stderr).toMatch(/none of its 123 rows is in scope/);
    await expectNothingChanged(before, writesBefore);
  });

  it("a list where many left at once: the mass-archive guard holds them", async () => {
    const ready = await seededThenThreeLeave();
    const before = await serviceRoster();
    const writesBefore = await writes();
    fake.people = fake.people.map((p, i) => (i < 40 ? { ...p, deleted: true } : p));
    const held = await reconcile(["--json"], ready);
    expect(held.code).toBe(3);
    expect((JSON.parse(held.stdout) as JsonReport).guardedArchives).toBe(40);
    await expectNothingChanged(before, writesBefore);
  });
});

describe("the daemon and check with the merge source", () => {
  async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
    for (let i = 0; i < 400; i += 1) {
      const value = await probe();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  it("the scheduled run pulls from Merge and reconciles; a refused pull changes nothing and is counted", async () => {
    const { file, env } = await setup(["  runOnStart: true"]);
    const logs = captureStream();
    configured = await startConfiguredDaemon(loadConfig({ file, env: { ...env, LOG_LEVEL: "info" } }), {
      argv: [],
      env: { ...env, LOG_LEVEL: "info" },
      stdout: logs.stream,
      stderr: logs.stream,
    });
    const { daemon } = configured;
    await until("the first scheduled run's adds", async () =>
      (await serviceRoster()).size === 120 ? true : undefined,
    );
    const metrics = async () => (await fetch(`${daemon.opsUrl}/metrics`)).text();
    await until("the pull counted", async () =>
      (await metrics()).includes('retention_sync_roster_pull_total{source="merge",outcome="ok"} 1') ? true : undefined,
    );
    // The first run over (not only its adds): a reconcileNow during a run would find it running.
    await until("the first run done", async () =>
      (await metrics()).includes('retention_sync_reconcile_runs_total{outcome="ok"} 1') ? true : undefined,
    );
    expect(logs.text()).toMatch(/roster export pulled/);

    // The linked account's token is revoked: the next run reconciles nothing.
    const before = await serviceRoster();
    const writesBefore = await writes();
    const at = (i: number) => fake.people[i] as MergeFakePerson;
    fake.people[0] = { ...at(0), deleted: true };
    fake.fail(1, { kind: "status", status: 401 });
    await daemon.reconcileNow();
    expect(await metrics()).toContain('retention_sync_roster_pull_total{source="merge",outcome="refused"} 1');
    expect(logs.text()).toMatch(/roster pull failed: nothing reconciled/);
    for (const secret of [fake.apiKey, fake.accountToken]) expect(logs.text()).not.toContain(secret);
    await expectNothingChanged(before, writesBefore);

    // The next run, with the account working again, archives the leaver.
    await daemon.reconcileNow();
    expect((await serviceRoster()).get(url(0))).toBe("archived");
  });

  it("check pulls once and prints the source's facts and how the export reads", async () => {
    const { file, env } = await setup();
    const checked = await runCli(["check", "--config", file], env);
    expect(checked.stdout).toContain(`Roster source merge pulled ${fake.url}/api/hris/v1/employees`);
    expect(checked.stdout).toMatch(/pages 2, records 123, bytes \d+/);
    expect(checked.stdout).toMatch(/Roster export parses: 123 rows \(json, mapping merge\)/);
    expect(checked.stdout).toMatch(/120 in scope; not in scope: terminated 1, out of scope \(roster.include\) 2/);
    for (const secret of [fake.apiKey, fake.accountToken])
      expect(checked.stdout + checked.stderr).not.toContain(secret);
    expect(fake.requests.map((r) => r.page)).toEqual([1, 2]);
  });
});
