/**
 * `roster.source.type: https` end to end, against the emulator and the fake Workday RaaS report
 * (test/helpers/fakes/https-fake.ts): `reconcile` (the CLI, and reconcileOnce with instant retry
 * waits), the daemon's scheduled run and `check`. A pull that does not complete reconciles nothing:
 * no write reaches the service and nobody is archived.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { RetentionClient } from "../../../src/api/client.js";
import { type ConfiguredDaemon, startConfiguredDaemon } from "../../../src/app/configured-daemon.js";
import { loadConfig } from "../../../src/config/load-config.js";
import { configSchema } from "../../../src/config/schema.js";
import { RosterFileError, RosterPullError, RosterSourceAuthError } from "../../../src/errors.js";
import { silentLogger } from "../../../src/logger.js";
import { reconcileOnce } from "../../../src/roster/reconcile-once.js";
import type { ReconcileReport } from "../../../src/roster/report.js";
import { rosterPuller } from "../../../src/roster/sources/roster-puller.js";
import { runCli } from "../../cli/cli-harness.js";
import { captureStream } from "../../helpers/capture-stream.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../../helpers/daemon-world.js";
import { type HttpsFake, type HttpsFault, startHttpsFake, workdayRows } from "../../helpers/fakes/https-fake.js";
import { type Harness, startHarness } from "../reconcile-harness.js";

const TWELVE = workdayRows(12);
const url = (n: number) => `https://www.linkedin.com/in/worker-${n}`;

/** Active people on the service, by profile URL, sorted. */
function active(roster: Array<{ networkUrl: string; status: string }>): string[] {
  return roster
    .filter((e) => e.status !== "archived")
    .map((e) => e.networkUrl)
    .sort();
}

describe("reconcile from the https source (reconcileOnce, instant retry waits)", () => {
  let h: Harness;
  let fake: HttpsFake;
  let waits: number[];

  beforeEach(async () => {
    h = await startHarness();
    fake = await startHttpsFake({ rows: TWELVE });
    waits = [];
  });
  afterEach(async () => {
    await fake.close();
    await h.close();
  });

  /** One run as the daemon makes it: pull, then reconcile; `archiveAfterMissingExports: 1` unless said. */
  function run(roster: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = { HRIS_PASSWORD: fake.password }) {
    const config = configSchema.parse({
      api: { url: h.emulator.baseUrl, key: h.emulator.writeKey },
      roster: {
        source: { type: "https", url: fake.raasUrl("json"), username: fake.user },
        archiveAfterMissingExports: 1,
        ...roster,
      },
    });
    const pullExport = rosterPuller(config, env, silentLogger(), undefined, {
      pullDir: `${h.files.dir}/roster-pulls`,
      http: {
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
    });
    if (!pullExport) throw new Error("no pull");
    return reconcileOnce({ config, client: h.client, store: h.store, logger: silentLogger(), pullExport });
  }

  /** The twelve on the service, added by a first run from the report. */
  async function seeded(): Promise<void> {
    const report = await run();
    expect(report.exitCode).toBe(0);
    expect(active(await h.roster())).toEqual(TWELVE.map((_, n) => url(n)).sort());
    await h.takeWrites();
    // The next export drops worker-11: read, it would archive them (1 of 12, under the guard).
    fake.setRows(TWELVE.slice(0, 11), new Date(Date.now() + 2000));
  }

  async function expectNothingChanged(): Promise<void> {
    expect(await h.takeWrites()).toEqual([]);
    expect(active(await h.roster())).toEqual(TWELVE.map((_, n) => url(n)).sort());
  }

  const FAILURES: Array<{ what: string; faults: HttpsFault[]; auth?: boolean; message: RegExp }> = [
    {
      what: "a 5xx that retries do not cure",
      faults: Array(4).fill({ kind: "status", status: 500 }),
      message: /answered 500 \(4 tries\)/,
    },
    {
      what: "a 503 whose Retry-After is longer than a run waits",
      faults: [{ kind: "status", status: 503, retryAfter: "86400" }],
      message: /longer than a run waits/,
    },
    {
      what: "a body cut short of its Content-Length every time",
      faults: Array(4).fill({ kind: "cut", how: "content-length" }),
      message: /the answer was cut/,
    },
    {
      what: "a chunked body ended without its last chunk every time",
      faults: Array(4).fill({ kind: "cut", how: "chunked" }),
      message: /the answer was cut/,
    },
    {
      what: "a redirect to another host",
      faults: [{ kind: "redirect", location: "http://127.0.0.2:9/ccx/service/customreport2/acme/x/y?format=json" }],
      message: /redirected to another origin/,
    },
    {
      what: "a 401 (the ISU's password changed)",
      faults: [{ kind: "status", status: 401 }],
      auth: true,
      message: /refused the credential \(401\)/,
    },
  ];

  for (const { what, faults, auth, message } of FAILURES) {
    it(`${what}: the run throws (exit ${auth ? 2 : 1}), nothing is written, nobody is archived; the next run reconciles`, async () => {
      await seeded();
      fake.fail(...faults);
      const error = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(auth ? RosterSourceAuthError : RosterPullError);
      expect((error as RosterPullError).exitCode).toBe(auth ? 2 : 1);
      expect((error as Error).message).toMatch(message);
      await expectNothingChanged();

      // The next schedule: the report answers whole, and worker-11 is archived.
      const next = await run();
      expect(next.exitCode).toBe(0);
      expect(active(await h.roster())).toEqual(
        TWELVE.slice(0, 11)
          .map((_, n) => url(n))
          .sort(),
      );
    });
  }

  it("a report bigger than maxBytes fails the run (exit 1) and changes nothing", async () => {
    await seeded();
    fake.setRows(workdayRows(200));
    await expect(
      run({ source: { type: "https", url: fake.raasUrl("json"), username: fake.user, maxBytes: 8192 } }),
    ).rejects.toThrow(/roster.source.maxBytes/);
    await expectNothingChanged();
  });

  it("an empty but valid report is refused as everyone leaving: nothing written, nobody archived", async () => {
    await seeded();
    fake.setRows([]);
    const error = await run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RosterFileError);
    expect((error as Error).message).toMatch(/holds no people; refusing to treat an empty export as everyone leaving/);
    await expectNothingChanged();
  });

  it("a report where nobody is in scope (everyone inactive) is refused whole", async () => {
    await seeded();
    fake.setRows(TWELVE.map((row) => ({ ...row, Active_Status: "0" })));
    await expect(run()).rejects.toThrow(/none of its 12 rows is in scope/);
    await expectNothingChanged();
  });

  it("a report that drops half the people is held by the mass-archive guard", async () => {
    await seeded();
    fake.setRows(TWELVE.slice(0, 6));
    const report = await run();
    expect(report.guard?.people).toHaveLength(6);
    await expectNothingChanged();
  });

  it("a 304 is a complete pull of the same export: reconciled again, the missing counts move as for a fresh nightly file", async () => {
    const two = { archiveAfterMissingExports: 2 };
    await run(two);
    fake.setRows(TWELVE.slice(0, 11), new Date(Date.now() + 2000));
    const changed = await run(two);
    expect(changed.source?.facts.notModified).toBeUndefined();
    expect(active(await h.roster())).toHaveLength(12); // worker-11 missing from one export: not yet

    const same = await run(two);
    expect(fake.requests.map((r) => r.status)).toEqual([200, 200, 304]);
    expect(same.source?.facts).toMatchObject({ notModified: true });
    expect(same.export?.newExport).toBe(true);
    expect(active(await h.roster())).toEqual(
      TWELVE.slice(0, 11)
        .map((_, n) => url(n))
        .sort(),
    );
  });
});

describe("retention-sync reconcile and check with roster.source https (the CLI)", () => {
  let world: DaemonWorld;
  let fake: HttpsFake;

  beforeEach(async () => {
    world = await startDaemonWorld();
    fake = await startHttpsFake();
  });
  afterEach(async () => {
    await fake.close();
    await world.close();
  });

  async function cli(argv: string[], source: Record<string, unknown> = {}, extra: Record<string, string> = {}) {
    const config = await world.files.write(
      "config.yaml",
      stringify({
        roster: { source: { type: "https", url: fake.raasUrl("json"), username: fake.user, ...source } },
      }),
    );
    const env = daemonEnv(world, "cli", { HRIS_PASSWORD: fake.password, LOG_LEVEL: "info", ...extra });
    return runCli([...argv, "--config", config], env);
  }

  async function writes(): Promise<number> {
    const requests = await world.emulator.control.requests();
    return requests.filter((r) => r.method !== "GET" && r.path.startsWith("/api/v1")).length;
  }

  it("reconcile --dry-run plans the pulled Workday report's people and writes nothing; a real run applies it", async () => {
    const dry = await cli(["reconcile", "--dry-run", "--json"]);
    expect(dry.code).toBe(3); // the fixture's broken LinkedIn values (Iris, Jonas) need a person
    const report = JSON.parse(dry.stdout) as ReconcileReport;
    expect(report.source).toMatchObject({
      type: "https",
      origin: `${fake.origin}/ccx/service/customreport2/acme/ISU_Retention/Retention_Roster`,
      facts: { bytes: expect.any(Number) },
    });
    expect(report.mapping?.preset).toBe("workday");
    const adds = report.steps.filter((s) => s.change === "add").map((s) => s.who.name);
    expect(adds).toEqual(expect.arrayContaining(["Ana Lima", "Ben Okafor", "Dev Patel"]));
    for (const name of ["Eva Novak", "Grace Kim", "Hugo Silva", "Iris Berg", "Jonas Weber"]) {
      expect(adds).not.toContain(name);
    }
    expect(await writes()).toBe(0);
    const text = await cli(["reconcile", "--dry-run"]);
    expect(text.stdout).toMatch(/pulled from https: (notModified true, )?bytes \d+/);

    fake.setRows(TWELVE);
    const applied = await cli(["reconcile"]);
    expect(applied.code).toBe(0);
    const roster = await world.emulator.control.requests();
    expect(roster.some((r) => r.method === "POST")).toBe(true);
    expect(applied.stdout).not.toContain(fake.password);
    expect(applied.stderr).not.toContain(fake.password);
  });

  it("reconcile --dry-run --out, then --plan: the second pull is a 304 of the same report, and the plan applies", async () => {
    fake.setRows(TWELVE);
    const plan = join(world.files.dir, "plan.json");
    const dry = await cli(["reconcile", "--dry-run", "--out", plan]);
    expect(dry.code).toBe(0);
    const saved = JSON.parse(await readFile(plan, "utf8")) as { file: string; source?: unknown };
    expect(saved.file).toBe(`${fake.origin}/ccx/service/customreport2/acme/ISU_Retention/Retention_Roster`);
    expect(saved.source).toEqual({ type: "https", origin: saved.file });
    const applied = await cli(["reconcile", "--plan", plan]);
    expect(applied.code).toBe(0);
    expect(fake.requests.map((r) => r.status)).toEqual([200, 304]);
    expect(await writes()).toBeGreaterThan(0);
  });

  it("--plan refuses a plan whose pulled export changed since, even where no step differs", async () => {
    fake.setRows(TWELVE);
    const plan = join(world.files.dir, "plan-stale.json");
    expect((await cli(["reconcile", "--dry-run", "--out", plan])).code).toBe(0);
    // Another title for everyone: the same people, the same steps, another export.
    fake.setRows(TWELVE.map((row) => ({ ...row, Business_Title: "Staff Engineer" })));
    const applied = await cli(["reconcile", "--plan", plan]);
    expect(applied.code).toBe(2);
    expect(applied.stderr).toMatch(/is stale; nothing was changed/);
    expect(applied.stderr).toMatch(/the export changed/);
    expect(await writes()).toBe(0);
  });

  it("a refused credential exits 2 and writes nothing", async () => {
    const result = await cli(["reconcile"], {}, { HRIS_PASSWORD: "not-the-isu-password" });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/refused the credential \(401\)/);
    expect(result.stderr).not.toContain("not-the-isu-password");
    expect(await writes()).toBe(0);
  });

  it("a 503 that retries do not cure exits 1 and writes nothing", async () => {
    fake.failTimes({ kind: "status", status: 503, retryAfter: "0" }, 4);
    const result = await cli(["reconcile"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/answered 503 \(4 tries\); the next schedule tries again/);
    expect(await writes()).toBe(0);
  });

  it("check prints the source's facts and reads the export like a file", async () => {
    const result = await cli(["check"]);
    expect(result.stdout).toMatch(
      /Roster source https pulled http:\/\/127\.0\.0\.1:\d+\/ccx\/service\/customreport2\/acme\/ISU_Retention\/Retention_Roster/,
    );
    expect(result.stdout).toMatch(/bytes \d+, etag "[0-9a-f]+"/);
    expect(result.stdout).toMatch(/Roster export parses: 10 rows \(json, mapping workday\)/);
    expect(result.stdout).not.toContain(fake.password);
  });

  it("check says when the credential is refused", async () => {
    const result = await cli(["check"], {}, { HRIS_PASSWORD: "not-the-isu-password" });
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/Roster source https: .*refused the credential \(401\)/);
    expect(result.stdout + result.stderr).not.toContain("not-the-isu-password");
  });
});

describe("the daemon's scheduled run from the https source", () => {
  let world: DaemonWorld;
  let fake: HttpsFake;
  let configured: ConfiguredDaemon | undefined;

  beforeEach(async () => {
    world = await startDaemonWorld();
    fake = await startHttpsFake({ rows: TWELVE });
  });
  afterEach(async () => {
    await configured?.stop("test over");
    configured = undefined;
    await fake.close();
    await world.close();
  });

  /** The service's roster, as the emulator's state holds it. */
  async function roster(): Promise<Array<{ networkUrl: string; status: string }>> {
    const client = new RetentionClient({ baseUrl: world.emulator.baseUrl, apiKey: world.emulator.writeKey });
    try {
      const out: Array<{ networkUrl: string; status: string }> = [];
      for await (const e of client.iterateEmployees({ pageSize: 100 })) out.push(e);
      return out;
    } finally {
      await client.close();
    }
  }

  async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
    for (let i = 0; i < 400; i += 1) {
      const value = await probe();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  it("pulls and reconciles on start; a refused or failed pull changes nothing and the next run reconciles", async () => {
    const logs = captureStream();
    const file = await world.files.write(
      "config.yaml",
      stringify({
        alerts: { enabled: false },
        roster: {
          schedule: "0 2 1 1 *",
          runOnStart: true,
          archiveAfterMissingExports: 1,
          source: { type: "https", url: fake.raasUrl("json"), username: fake.user },
        },
        daemon: { host: "127.0.0.1", port: 0 },
      }),
    );
    const env = daemonEnv(world, "daemon", { HRIS_PASSWORD: fake.password, LOG_LEVEL: "info" });
    configured = await startConfiguredDaemon(loadConfig({ file, env }), {
      argv: [],
      env,
      stdout: logs.stream,
      stderr: logs.stream,
    });
    const { daemon } = configured;
    const metrics = () => fetch(`${daemon.opsUrl}/metrics`).then((r) => r.text());
    await until("the first run's end", async () =>
      (await metrics()).includes('retention_sync_reconcile_runs_total{outcome="ok"} 1') ? true : undefined,
    );
    expect(await metrics()).toContain('retention_sync_roster_pull_total{source="https",outcome="ok"} 1');
    expect(active(await roster())).toHaveLength(12);
    const writesBefore = (await world.emulator.control.requests()).filter((r) => r.method !== "GET").length;

    // The ISU's password changed in Workday: the run is refused, nothing changes.
    fake.setRows(TWELVE.slice(0, 11), new Date(Date.now() + 2000));
    fake.fail({ kind: "status", status: 401 });
    await daemon.reconcileNow();
    expect(await metrics()).toContain('retention_sync_roster_pull_total{source="https",outcome="refused"} 1');
    // Workday down for the whole run: the same.
    fake.failTimes({ kind: "status", status: 503, retryAfter: "0" }, 4);
    await daemon.reconcileNow();
    expect(await metrics()).toContain('retention_sync_roster_pull_total{source="https",outcome="failed"} 1');
    const writesAfter = (await world.emulator.control.requests()).filter((r) => r.method !== "GET").length;
    expect(writesAfter).toBe(writesBefore);
    expect(logs.text()).toMatch(/roster pull failed: nothing reconciled/);
    const ready = await (await fetch(`${daemon.opsUrl}/readyz`)).text();
    expect(ready).not.toContain(fake.password);

    expect(active(await roster())).toHaveLength(12);

    // The next run: the report answers, worker-11 is archived.
    await daemon.reconcileNow();
    expect(active(await roster())).toEqual(
      TWELVE.slice(0, 11)
        .map((_, n) => url(n))
        .sort(),
    );
    expect(logs.text()).not.toContain(fake.password);
  });
});
