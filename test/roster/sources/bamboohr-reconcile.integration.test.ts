/**
 * `reconcile` and `check` with `roster.source: bamboohr`, in-process (runCli), against the emulator
 * of the service and the fake of BambooHR's API: a complete pull is planned and applied; a failed,
 * cut or refused pull reconciles nothing, archives nobody and writes nothing to the service.
 */
import { type EmulatorHandle, startEmulator } from "@retention-sync/emulator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RetentionClient } from "../../../src/api/client.js";
import { runCli } from "../../cli/cli-harness.js";
import {
  type BambooHrFake,
  type FakeRecord,
  samplePeople,
  startBambooHrFake,
} from "../../helpers/fakes/bamboohr-fake.js";
import { rosterDir } from "../../helpers/roster-files.js";

let emulator: EmulatorHandle;
let fake: BambooHrFake;
let files: Awaited<ReturnType<typeof rosterDir>>;

const PEOPLE = 30;

beforeEach(async () => {
  emulator = await startEmulator({ seed: "empty", importDelayMs: 0, rateLimitPerMinute: 100_000, addHoldMs: 0 });
  fake = await startBambooHrFake({ employees: samplePeople(PEOPLE), maxPageSize: 10 });
  files = await rosterDir();
});
afterEach(async () => {
  await emulator.close();
  await fake.close();
  await files.cleanup();
});

/**
 * The config of these runs. `approveMassArchive` (on unless told otherwise) takes the mass-archive
 * guard away, and one missing export archives: a partial pull used as an export would archive
 * everyone not in it at once, so only the source's completeness keeps them.
 */
async function configFile(options: { guard?: boolean } = {}): Promise<string> {
  return files.write(
    "config.yaml",
    [
      "alerts:",
      "  enabled: false",
      "roster:",
      "  archiveAfterMissingExports: 1",
      `  approveMassArchive: ${options.guard === true ? "false" : "true"}`,
      "  source:",
      "    type: bamboohr",
      `    companyDomain: ${fake.companyDomain}`,
      `    baseUrl: ${fake.url}`,
      "",
    ].join("\n"),
  );
}

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    RETENTION_API_URL: emulator.baseUrl,
    RETENTION_API_KEY: emulator.writeKey,
    RETENTION_SYNC_STATE: `${files.dir}/state.sqlite`,
    BAMBOOHR_API_KEY: fake.apiKey,
    LOG_LEVEL: "silent",
    ...extra,
  };
}

interface Report {
  dryRun: boolean;
  source?: { type: string; origin: string; facts: Record<string, unknown> };
  planned: { add: number; archive: number };
  steps: Array<{ change: string; who: { name?: string } }>;
  applied?: { addedTracked: number; archived: number };
  guard?: { people: unknown[] } | null;
}

async function reconcile(args: string[], options: { guard?: boolean; env?: Record<string, string> } = {}) {
  const config = await configFile(options);
  const result = await runCli(["reconcile", "--config", config, "--json", ...args], env(options.env));
  return { ...result, report: result.code <= 3 && result.stdout ? (JSON.parse(result.stdout) as Report) : undefined };
}

let writesSeen = 0;
/** Write requests (POST/PATCH/DELETE under /api/v1) the emulator received since the last call. */
async function takeWrites(): Promise<number> {
  const response = await fetch(`${emulator.url}/_emulator/requests`);
  const { requests } = (await response.json()) as { requests: Array<{ method: string; path: string }> };
  const fresh = requests.slice(writesSeen);
  writesSeen = requests.length;
  return fresh.filter((r) => r.method !== "GET" && r.path.startsWith("/api/v1")).length;
}

/** The service's roster: how many people, and how many archived. */
async function serviceRoster(): Promise<{ people: number; archived: number }> {
  const client = new RetentionClient({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.writeKey,
    requestsPerMinute: 100_000,
  });
  try {
    const out: Array<{ status: string }> = [];
    for await (const e of client.iterateEmployees({ pageSize: 100 })) out.push(e);
    return { people: out.length, archived: out.filter((e) => e.status === "archived").length };
  } finally {
    await client.close();
  }
}

/** A real run that puts the fake's people on the service: what the failure tests start from. */
async function seed(): Promise<void> {
  writesSeen = 0;
  const first = await reconcile([]);
  expect(first.code).toBe(0);
  expect(first.report?.applied?.addedTracked).toBe(PEOPLE);
  await takeWrites();
  expect(await serviceRoster()).toEqual({ people: PEOPLE, archived: 0 });
}

function leaving(people: readonly FakeRecord[], indexes: readonly number[]): FakeRecord[] {
  return people.map((p, i) =>
    indexes.includes(i) ? { ...p, status: "Inactive", employmentHistoryStatus: "Terminated" } : p,
  );
}

describe("reconcile from the bamboohr source", () => {
  it("--dry-run plans the pulled people, a real run applies them, and leavers are archived", async () => {
    writesSeen = 0;
    const plan = await reconcile(["--dry-run"]);
    expect(plan.code).toBe(0);
    expect(plan.report?.source).toMatchObject({
      type: "bamboohr",
      origin: `${fake.url}/api/gateway.php/acme/v2/datasets/employee/data`,
      facts: { endpoint: "employee dataset (v2)", pages: 3, records: PEOPLE },
    });
    expect(plan.report?.planned.add).toBe(PEOPLE);
    expect(await takeWrites()).toBe(0);

    const applied = await reconcile([]);
    expect(applied.code).toBe(0);
    expect(applied.report?.applied?.addedTracked).toBe(PEOPLE);
    expect(await serviceRoster()).toEqual({ people: PEOPLE, archived: 0 });

    // Two leave: one by the record status, one by the employment status; the dataset is gone
    // for this key, so the custom report is read.
    fake.options = { ...fake.options, datasetRefusal: 403 };
    fake.employees = fake.employees.map((p, i) =>
      i === 4 ? { ...p, status: "Inactive" } : i === 7 ? { ...p, employmentHistoryStatus: "Terminated" } : p,
    );
    const leavers = await reconcile(["--dry-run"]);
    expect(leavers.report?.source?.facts).toMatchObject({ endpoint: "custom report", records: PEOPLE });
    expect(leavers.report?.steps.filter((s) => s.change === "archive").map((s) => s.who.name)).toEqual([
      "Person No4",
      "Person No7",
    ]);
    await takeWrites();
    const archived = await reconcile([]);
    expect(archived.report?.applied?.archived).toBe(2);
    expect(await serviceRoster()).toEqual({ people: PEOPLE, archived: 2 });
  });

  it("a 429 with Retry-After: the run waits and goes on", async () => {
    fake.faults.push({ on: "data", page: 2, times: 1, kind: { status: 429, retryAfter: "0" } });
    const run = await reconcile([]);
    expect(run.code).toBe(0);
    expect(run.report?.applied?.addedTracked).toBe(PEOPLE);
    expect(fake.requests.filter((r) => r.status === 429)).toHaveLength(1);
  });
});

describe("a pull that fails reconciles nothing and archives nobody", () => {
  beforeEach(async () => {
    await seed();
    // The next export would archive the first 20 people, were it read.
    fake.employees = leaving(fake.employees, [...Array(20).keys()]);
  });

  async function expectNothingDone(result: { code: number; stdout: string; stderr: string }, code: number) {
    expect(result.code).toBe(code);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/Roster source bamboohr: /);
    expect(result.stderr).not.toContain(fake.apiKey);
    expect(await takeWrites()).toBe(0);
    expect(await serviceRoster()).toEqual({ people: PEOPLE, archived: 0 });
  }

  it("a key BambooHR refuses (401): exit 2", async () => {
    const result = await reconcile([], { env: { BAMBOOHR_API_KEY: "revoked-key-0000" } });
    await expectNothingDone(result, 2);
    expect(result.stderr).toMatch(/refused the credential \(401\)/);
  });

  it("a 5xx on the middle page that the retries do not cure: exit 1", async () => {
    // Retry-After: 0 keeps the run's waits short; the retries are the same.
    fake.faults.push({ on: "data", page: 2, kind: { status: 500, retryAfter: "0" } });
    const result = await reconcile([]);
    await expectNothingDone(result, 1);
    expect(result.stderr).toMatch(/answered 500 \(4 tries\)/);
    expect(fake.requests.filter((r) => r.status === 500)).toHaveLength(4);
  });

  it("a page cut mid-body: exit 1", async () => {
    // The run backs off between its tries as it would against BambooHR (about 7 s in all).
    fake.faults.push({ on: "data", page: 3, kind: { cut: "chunked" } });
    const result = await reconcile([]);
    await expectNothingDone(result, 1);
    expect(result.stderr).toMatch(/the answer was cut/);
  });

  it("a redirect to another host: exit 1", async () => {
    const elsewhere = `http://127.0.0.2:${new URL(fake.url).port}/api/gateway.php/acme/v2/datasets/employee/data`;
    fake.faults.push({ on: "data", page: 2, kind: { redirect: elsewhere } });
    const result = await reconcile([]);
    await expectNothingDone(result, 1);
    expect(result.stderr).toMatch(/redirected to another origin/);
  });

  it("a custom report without the employment status (hidden from the key's user): exit 2", async () => {
    fake.options = { ...fake.options, hidden: ["employmentHistoryStatus"] };
    const result = await reconcile([]);
    await expectNothingDone(result, 2);
    expect(result.stderr).toMatch(/without employmentHistoryStatus/);
  });

  it("--dry-run with a failing pull plans nothing either", async () => {
    fake.faults.push({ on: "data", page: 2, kind: { status: 503, retryAfter: "0" } });
    const result = await reconcile(["--dry-run"]);
    await expectNothingDone(result, 1);
  });
});

describe("valid answers that would archive too many", () => {
  beforeEach(seed);

  it("an empty answer is refused as an empty export, even with the mass-archive guard approved", async () => {
    fake.employees = [];
    const result = await reconcile([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /bamboohr\.json: holds no people; refusing to treat an empty export as everyone leaving/,
    );
    expect(await takeWrites()).toBe(0);
    expect(await serviceRoster()).toEqual({ people: PEOPLE, archived: 0 });
  });

  it("an answer with nobody in scope (everyone Inactive) is refused", async () => {
    fake.employees = fake.employees.map((p) => ({ ...p, status: "Inactive" }));
    const result = await reconcile([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/none of its 30 rows is in scope \(30 terminated/);
    expect(await takeWrites()).toBe(0);
    expect(await serviceRoster()).toEqual({ people: PEOPLE, archived: 0 });
  });

  it("an answer that drops half the people: the mass-archive guard holds them", async () => {
    fake.employees = leaving(fake.employees, [...Array(15).keys()]);
    const result = await reconcile([], { guard: true });
    expect(result.report?.source?.facts).toMatchObject({ records: PEOPLE });
    expect(result.report?.guard?.people).toHaveLength(15);
    expect(result.report?.applied?.archived ?? 0).toBe(0);
    expect(result.code).not.toBe(0);
    expect(await serviceRoster()).toEqual({ people: PEOPLE, archived: 0 });
  });
});

describe("check with the bamboohr source", () => {
  it("pulls once and prints the source's facts and what the export holds", async () => {
    const config = await configFile();
    const result = await runCli(["check", "--config", config], env());
    expect(result.stdout).toContain(
      `✓ Roster source bamboohr pulled ${fake.url}/api/gateway.php/acme/v2/datasets/employee/data`,
    );
    expect(result.stdout).toMatch(/endpoint "employee dataset \(v2\)", pages 3, records 30, bytes \d+/);
    expect(result.stdout).toMatch(/✓ Roster export parses: 30 rows \(json, mapping bamboohr\)/);
    expect(result.stdout).not.toContain(fake.apiKey);
    expect(result.code).toBe(0);
  });

  it("says why the pull failed, and exits 2 for a refused key", async () => {
    const config = await configFile();
    const result = await runCli(["check", "--config", config], env({ BAMBOOHR_API_KEY: "revoked-key-0000" }));
    expect(result.stdout).toMatch(/✗ Roster source bamboohr: .*refused the credential \(401\)/);
    expect(result.code).toBe(2);
  });
});
