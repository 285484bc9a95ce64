/**
 * Issue 15, through the real `reconcile` command against the emulator and the fake Slack: a plan a
 * person can approve (every step named, with why), saved plans, honest guards, less noise, scopes
 * first, the vendors' formats and a bounded file. One test per finding of the issue.
 */
import { lstat, readdir, readFile, stat, symlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { buildSampleRoster } from "@retention-sync/emulator";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RetentionClient } from "../../src/api/client.js";
import { JOURNAL_KEY, JOURNAL_NAMESPACE, type JournalEntry } from "../../src/roster/reconcile-journal.js";
import type { ReconcileReport } from "../../src/roster/report.js";
import { openStateStore } from "../../src/store/state-store.js";
import { runCli } from "../cli/cli-harness.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { canonicalUrl, rosterDir } from "../helpers/roster-files.js";
import { startTestEmulator, type TestEmulator } from "../helpers/start-emulator.js";
import { type RefusingProxy, startRefusingProxy } from "./refusing-proxy.js";

let emulator: TestEmulator;
let slack: FakeSlack;
let files: Awaited<ReturnType<typeof rosterDir>>;
let state = 0;

beforeAll(async () => {
  emulator = await startTestEmulator({
    seed: "empty",
    rateLimitPerMinute: 100_000,
    addHoldMs: 0,
    apiSeatsPerDay: 10_000,
  });
  files = await rosterDir();
});
afterAll(async () => {
  await emulator.close();
  await files.cleanup();
});
beforeEach(async () => {
  await emulator.control.reset();
  await emulator.control.billing({ apiSeatsPerDay: 10_000 });
  slack = await startFakeSlack();
  state += 1;
});
afterEach(async () => {
  await slack.close();
});

/** One BambooHR row: Status is Active/Inactive, Employment Status the job type. */
interface BambooRow {
  readonly n: number;
  readonly type?: "Full-Time" | "Part-Time" | "Terminated";
  readonly status?: "Active" | "Inactive";
  readonly terminated?: string;
  readonly linkedIn?: string;
  readonly department?: string;
}

const slug = (n: number) => `bamboo-${n}`;
const DEPARTMENTS = ["Engineering", "Sales", "Support", "Finance"];

/** A BambooHR custom report export (CSV), with the vendor's column names. */
function bambooCsv(rows: readonly BambooRow[]): string {
  const header =
    "Employee #,First Name,Last Name,Work Email,Department,Job Title,Employment Status,Status,LinkedIn,Termination Date";
  const lines = rows.map((r) =>
    [
      String(1000 + r.n),
      `First${r.n}`,
      `Last${r.n}`,
      `first${r.n}@example.com`,
      r.department ?? DEPARTMENTS[r.n % DEPARTMENTS.length],
      "Engineer",
      r.type ?? "Full-Time",
      r.status ?? "Active",
      r.linkedIn ?? canonicalUrl(slug(r.n)),
      r.terminated ?? "",
    ].join(","),
  );
  return `${[header, ...lines].join("\n")}\n`;
}

const staff = (count: number, from = 0): BambooRow[] =>
  Array.from({ length: count }, (_, i) => ({ n: from + i, type: (from + i) % 10 === 3 ? "Part-Time" : "Full-Time" }));

async function config(extra = ""): Promise<string> {
  return files.write(
    `config-${state}.yaml`,
    `api:\n  requestsPerMinute: 10000\nroster:\n  mapping: bamboohr\n${extra}`,
  );
}

async function reconcile(flags: string[], env: Record<string, string | undefined> = {}, configExtra = "") {
  const result = await runCli(["reconcile", "--config", await config(configExtra), ...flags], {
    RETENTION_API_URL: emulator.baseUrl,
    RETENTION_API_KEY: emulator.writeKey,
    RETENTION_SYNC_STATE: join(files.dir, `state-${state}.sqlite`),
    LOG_LEVEL: "silent",
    ...env,
  });
  return result;
}

const withSlack = {
  SLACK_BOT_TOKEN: "",
  SLACK_API_URL: "",
  SLACK_OPS_CHANNEL: "#retention-ops",
};
const slackEnv = () => ({ ...withSlack, SLACK_BOT_TOKEN: slack.token, SLACK_API_URL: slack.url });

async function apiRequests(): Promise<Array<{ method: string; path: string }>> {
  return (await emulator.control.requests()).filter((r) => r.path.startsWith("/api/v1"));
}
const writesOf = (requests: Array<{ method: string; path: string }>) => requests.filter((r) => r.method !== "GET");

async function roster(): Promise<Array<{ networkUrl: string; status: string; tracked: boolean }>> {
  const client = new RetentionClient({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.writeKey,
    requestsPerMinute: 100_000,
  });
  const out: Array<{ networkUrl: string; status: string; tracked: boolean }> = [];
  for await (const e of client.iterateEmployees({ pageSize: 100 })) out.push(e);
  await client.close();
  return out;
}

describe("a plan a person can approve", () => {
  it("BambooHR: part-time staff stay in scope; the dry run names every step with who and why, and --json lists adds and removals named", async () => {
    const first = await files.write(`bamboo-a-${state}.csv`, bambooCsv(staff(40)));
    const applied = await reconcile(["--file", first]);
    expect(applied.code).toBe(0);
    expect((await roster()).filter((e) => e.status !== "archived")).toHaveLength(40);
    // The next export: two people terminated (Status Inactive, a termination date), two joiners.
    const rows: BambooRow[] = staff(40).map((r) =>
      r.n === 5 || r.n === 6 ? { ...r, type: "Terminated", status: "Inactive", terminated: "2026-01-31" } : r,
    );
    const next = await files.write(`bamboo-b-${state}.csv`, bambooCsv([...rows, ...staff(2, 40)]));
    await emulator.control.clearRequests();
    const dry = await reconcile(["--dry-run", "--file", next]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("  add (2):");
    expect(dry.stdout).toContain(`    First40 Last40 (1040, Engineering) ${canonicalUrl(slug(40))} - joiner, line 42`);
    expect(dry.stdout).toContain("  archive (2):");
    expect(dry.stdout).toContain(
      `    First5 Last5 (1005, Sales) ${canonicalUrl(slug(5))} - terminated in HRIS (terminated on "2026-01-31"), line 7`,
    );
    // The four part-time people are nowhere in the plan.
    for (const n of [3, 13, 23, 33]) expect(dry.stdout).not.toContain(canonicalUrl(slug(n)));
    expect(writesOf(await apiRequests())).toEqual([]);

    const json = JSON.parse((await reconcile(["--dry-run", "--json", "--file", next])).stdout) as ReconcileReport;
    expect(json.steps.map((s) => [s.change, s.who.name, s.who.employeeId, s.who.department, s.url, s.why])).toEqual([
      [
        "archive",
        "First5 Last5",
        "1005",
        "Sales",
        canonicalUrl(slug(5)),
        'terminated in HRIS (terminated on "2026-01-31")',
      ],
      [
        "archive",
        "First6 Last6",
        "1006",
        "Support",
        canonicalUrl(slug(6)),
        'terminated in HRIS (terminated on "2026-01-31")',
      ],
      ["add", "First40 Last40", "1040", "Engineering", canonicalUrl(slug(40)), "joiner"],
      ["add", "First41 Last41", "1041", "Sales", canonicalUrl(slug(41)), "joiner"],
    ]);
  });

  it("a demo-sized dry run (the demo's seed and sample export) prints named steps", async () => {
    const demo = await startTestEmulator({ seed: "demo", rateLimitPerMinute: 100_000 });
    try {
      const client = new RetentionClient({ baseUrl: demo.baseUrl, apiKey: demo.readKey, requestsPerMinute: 100_000 });
      const people = [];
      for await (const e of client.iterateEmployees({ pageSize: 100 })) people.push(e);
      await client.close();
      const sample = buildSampleRoster(people);
      const file = await files.write(`demo-${state}.csv`, sample.csv);
      const result = await runCli(["reconcile", "--dry-run", "--file", file], {
        RETENTION_API_URL: demo.baseUrl,
        RETENTION_API_KEY: demo.writeKey,
        RETENTION_SYNC_STATE: join(files.dir, `demo-${state}.sqlite`),
        LOG_LEVEL: "silent",
      });
      expect(result.stdout).toContain(`  add (${sample.joiners}):`);
      expect(result.stdout).toMatch(/\n {4}\S.* https:\/\/www\.linkedin\.com\/in\/\S+ - joiner, line \d+\n/);
      expect(result.stdout).toMatch(/\n {4}\S.* https:\/\/www\.linkedin\.com\/in\/\S+ - rehire/);
    } finally {
      await demo.close();
    }
  });
});

describe("honest guards", () => {
  it("measures the mass-archive guard against the people managed from the export and names them, in the report and the ops post", async () => {
    // 300 people came to the service through other doors; 34 from the HRIS export.
    await emulator.control.seedPeople({ count: 300, slugPrefix: "other" });
    const everyone = staff(34);
    await reconcile(["--file", await files.write(`g1-${state}.csv`, bambooCsv(everyone))]);
    const stayed = bambooCsv(everyone.slice(14));
    await reconcile(["--file", await files.write(`g2-${state}.csv`, stayed)]);
    await emulator.control.clearRequests();
    const guarded = await reconcile(["--file", await files.write(`g3-${state}.csv`, stayed)], slackEnv());
    expect(guarded.code).toBe(3);
    expect(writesOf(await apiRequests())).toEqual([]);
    expect(guarded.stdout).toContain("would archive 14 of the 34 people managed from the HRIS export (41.2 %)");
    expect(guarded.stdout).toContain("held by the mass-archive guard (14 of 34 managed, 41.2 %):");
    expect(guarded.stdout).toContain(
      `    First0 Last0 (1000, Engineering) ${canonicalUrl(slug(0))} - left (missing from 2 exports since`,
    );
    const [post] = slack.posted("retention-ops");
    expect(post?.text).toMatch(/^:warning: Roster reconcile needs attention: the mass-archive guard/);
    const body = JSON.stringify(post?.blocks);
    expect(body).toContain("Held by the mass-archive guard (14 of 34 managed, 41.2 %)");
    expect(body).toContain(`First0 Last0 (1000, Engineering) ${canonicalUrl(slug(0))}`);
  });
});

describe("exports, not runs", () => {
  it("counts missing exports by fingerprint, says so, and archives people marked terminated as terminated, not missing", async () => {
    const all = staff(20);
    await reconcile(["--file", await files.write(`e1-${state}.csv`, bambooCsv(all))]);
    const without = all.filter((r) => r.n !== 7).map((r) => (r.n === 8 ? { ...r, status: "Inactive" as const } : r));
    const second = JSON.parse(
      (await reconcile(["--json", "--file", await files.write(`e2-${state}.csv`, bambooCsv(without))])).stdout,
    ) as ReconcileReport;
    expect(second.steps.map((s) => [s.who.name, s.why])).toEqual([
      ["First8 Last8", 'terminated in HRIS (status "Inactive")'],
    ]);
    expect(second.waitingToArchive).toBe(1);
    // The same export again is not a second missing export.
    const again = await reconcile(["--file", join(files.dir, `e2-${state}.csv`)]);
    expect(again.stdout).toContain("missing from this export, archived after more missing exports: 1");
    expect(again.stdout).toContain("same export as before");
    expect(again.stdout).not.toContain("archive (");
    // A fresh export with the same content is.
    const third = await reconcile(["--file", await files.write(`e2-${state}.csv`, bambooCsv(without))]);
    expect(third.stdout).toContain("  archive (1):");
    expect(third.stdout).toMatch(
      /First7 Last7 \(1007, Finance\) \S+ - left \(missing from 2 exports since \d{4}-\d{2}-\d{2}\)/,
    );
  });
});

describe("every refusal named", () => {
  let proxy: RefusingProxy;
  beforeEach(async () => {
    proxy = await startRefusingProxy(emulator.baseUrl);
  });
  afterEach(async () => {
    await proxy.close();
  });

  it("names each profile the service skipped, with its reason known or not, in the report and the ops post", async () => {
    proxy.refuse(canonicalUrl(slug(2)), "profile_unavailable", "The profile is private.");
    proxy.refuse(canonicalUrl(slug(3)), "invalid_url", "networkUrls[]: not a public profile URL.");
    const file = await files.write(`r-${state}.csv`, bambooCsv(staff(6)));
    const run = await reconcile(["--file", file], { ...slackEnv(), RETENTION_API_URL: proxy.baseUrl });
    expect(run.code).toBe(3);
    expect(run.stdout).toContain("refused by the service (2):");
    expect(run.stdout).toContain(
      `add First2 Last2 (1002, Support) ${canonicalUrl(slug(2))}: UNKNOWN REASON profile_unavailable: refused for a reason this version does not know (profile_unavailable): The profile is private.`,
    );
    expect(run.stdout).toContain(`add First3 Last3 (1003, Finance) ${canonicalUrl(slug(3))}: invalid_url:`);
    expect(run.stdout).toContain("NEEDS ATTENTION: 2 people refused by the service");
    const [post] = slack.posted("retention-ops");
    expect(post?.text).toBe(":warning: Roster reconcile needs attention: 2 people refused by the service");
    expect(JSON.stringify(post?.blocks)).toContain("profile_unavailable");
  });

  it("names all 50 people of a bulk add whose answer was lost, and counts them as unconfirmed, not as not done", async () => {
    proxy.loseNextBulkAnswer();
    const file = await files.write(`lost-${state}.csv`, bambooCsv(staff(50)));
    const run = await reconcile(["--json", "--file", file], { RETENTION_API_URL: proxy.baseUrl });
    const report = JSON.parse(run.stdout) as ReconcileReport;
    expect(run.code).toBe(3);
    expect(report.failures.map((f) => f.url)).toEqual(staff(50).map((r) => canonicalUrl(slug(r.n))));
    expect(report.failures.every((f) => f.unconfirmed)).toBe(true);
    expect(report.applied?.unconfirmed).toBe(50);
    // The service did add them: the next run reads the roster and finds nothing left to do.
    const next = await reconcile(["--file", file]);
    expect(next.code).toBe(0);
    expect(next.stdout).toMatch(/add\s+0/);
  });
});

describe("less noise", () => {
  it("an emptied LinkedIn cell is news once per export: the same export read again exits 0 and posts nothing", async () => {
    const all = staff(12);
    await reconcile(
      ["--file", await files.write(`n1-${state}.csv`, bambooCsv(all))],
      {},
      "  archiveAfterMissingExports: 1\n",
    );
    const emptied = bambooCsv(all.map((r) => (r.n === 4 ? { ...r, linkedIn: "" } : r)));
    const file = await files.write(`n2-${state}.csv`, emptied);
    const runs = [];
    for (let i = 0; i < 3; i += 1)
      runs.push(await reconcile(["--file", file], slackEnv(), "  archiveAfterMissingExports: 1\n"));
    expect(runs.map((r) => r.code)).toEqual([3, 0, 0]);
    const posts = slack.posted("retention-ops");
    expect(posts).toHaveLength(1);
    expect(posts[0]?.text).toBe(":warning: Roster reconcile needs attention: 1 archive held for broken rows");
    // A new export of the same content with nothing to do is routine, and says so.
    await reconcile(["--file", await files.write(`n3-${state}.csv`, bambooCsv(all))], slackEnv());
    expect(slack.posted("retention-ops").at(-1)?.text).toBe(
      ":white_check_mark: Roster reconcile, routine: nothing to change",
    );
  });
});

describe("scopes first", () => {
  it("a read-only key: reconcile exits 2 with the fix before any write; a dry run says the plan cannot be applied", async () => {
    const file = await files.write(`ro-${state}.csv`, bambooCsv(staff(3)));
    await emulator.control.clearRequests();
    const run = await reconcile(["--file", file], { RETENTION_API_KEY: emulator.readKey });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /api\.key \(RETENTION_API_KEY\): the key is read-only \(scopes: read\).*create a read\+write key/,
    );
    expect((await apiRequests()).map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/v1/me"]);
    const dry = await reconcile(["--dry-run", "--file", file], { RETENTION_API_KEY: emulator.readKey });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("WARNING: the API key is read-only: this plan cannot be applied with it");
  });
});

describe("saved plans", () => {
  it("--dry-run --out writes the plan; --plan applies exactly it with no request beyond the floor", async () => {
    await reconcile(["--file", await files.write(`p1-${state}.csv`, bambooCsv(staff(120)))]);
    const file = await files.write(`p2-${state}.csv`, bambooCsv([...staff(110), ...staff(60, 200)]));
    const planFile = join(files.dir, `plan-${state}.json`);
    const dry = await reconcile(
      ["--dry-run", "--out", planFile, "--file", file],
      {},
      "  archiveAfterMissingExports: 1\n",
    );
    expect(dry.stdout).toContain(`plan written to ${planFile}`);
    const saved = JSON.parse(await readFile(planFile, "utf8")) as { steps: unknown[]; format: string };
    expect(saved.format).toBe("retention-sync-plan");
    await emulator.control.clearRequests();
    const run = await reconcile(["--plan", planFile], {}, "  archiveAfterMissingExports: 1\n");
    expect(run.code).toBe(0);
    // The floor: /me, 2 pages of the 120 people, /billing, 2 bulk adds (60 joiners), 10 archives.
    expect((await apiRequests()).map((r) => `${r.method} ${r.path.replace(/\d+$/, "N")}`)).toEqual([
      "GET /api/v1/me",
      "GET /api/v1/employees",
      "GET /api/v1/employees",
      "GET /api/v1/billing",
      ...Array(10).fill("PATCH /api/v1/employees/N"),
      "POST /api/v1/employees/bulk",
      "POST /api/v1/employees/bulk",
    ]);
    const live = (await roster()).filter((e) => e.status !== "archived").map((e) => e.networkUrl);
    expect(live).toHaveLength(170);
    // The same plan again: every step is done, so it is stale, and says why.
    const again = await reconcile(["--plan", planFile], {}, "  archiveAfterMissingExports: 1\n");
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      "70 steps differ (none of them is needed any more: was this plan applied already?):",
    );
    expect(again.stderr).toContain("...and 45 more");
  });

  it("refuses a stale plan and names the difference and what changed; changes nothing", async () => {
    await reconcile(["--file", await files.write(`s1-${state}.csv`, bambooCsv(staff(5)))]);
    const file = await files.write(`s2-${state}.csv`, bambooCsv(staff(8)));
    const planFile = join(files.dir, `stale-${state}.json`);
    await reconcile(["--dry-run", "--out", planFile, "--file", file]);
    // Someone adds First6 through the dashboard, and the day's allowance shrinks to 1 seat.
    const client = new RetentionClient({ baseUrl: emulator.baseUrl, apiKey: emulator.writeKey });
    await client.addEmployee({ networkUrl: canonicalUrl(slug(6)) });
    await client.close();
    await emulator.control.billing({ apiSeatsPerDay: 2 });
    await emulator.control.clearRequests();
    const run = await reconcile(["--plan", planFile]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`the saved plan ${planFile} is stale; nothing was changed`);
    expect(run.stderr).toContain("3 steps differ:");
    expect(run.stderr).toContain(
      `- add First6 Last6 (1006, Support) ${canonicalUrl(slug(6))}: in the saved plan, no longer needed`,
    );
    expect(run.stderr).toContain(
      `- add First7 Last7 (1007, Finance) ${canonicalUrl(slug(7))}: in the saved plan, now deferred (api-seat-allowance)`,
    );
    expect(run.stderr).toContain("because the service roster changed (5 rows when planned, 6 now)");
    expect(run.stderr).toMatch(
      /because billing changed \(paying, api-seat-allowance \d+ when planned; paying, api-seat-allowance 0 now\)/,
    );
    expect(writesOf(await apiRequests())).toEqual([]);
  });

  it("applies a plan whose inputs changed in a way that alters no step, and says what changed", async () => {
    await reconcile(["--file", await files.write(`u1-${state}.csv`, bambooCsv(staff(5)))]);
    const file = await files.write(`u2-${state}.csv`, bambooCsv(staff(6)));
    const planFile = join(files.dir, `same-${state}.json`);
    await reconcile(["--dry-run", "--out", planFile, "--file", file]);
    // Someone the export does not know is added through the dashboard: no step changes.
    await emulator.control.seedPeople({ count: 1, slugPrefix: "walk-in" });
    const run = await reconcile(["--plan", planFile]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "note: since the plan was made the service roster changed (5 rows when planned, 6 now), but no step changed",
    );
    expect(run.stdout).toMatch(/add\s+1\s+1/);
  });

  it("a plan file carries no approval: edited to lift the guard and archive, it is held (exit 3) without --allow-mass-archive; with it, it applies and the report, the ops post and the journal say so", async () => {
    await reconcile(["--file", await files.write(`m1-${state}.csv`, bambooCsv(staff(40)))]);
    // 16 of the 40 are terminated: 40 %, over the 10 % limit.
    const rows = staff(40).map((r) =>
      r.n < 16 ? { ...r, type: "Terminated" as const, status: "Inactive" as const, terminated: "2026-01-31" } : r,
    );
    const file = await files.write(`m2-${state}.csv`, bambooCsv(rows));
    const guardedPlan = join(files.dir, `guarded-${state}.json`);
    expect((await reconcile(["--dry-run", "--out", guardedPlan, "--file", file])).code).toBe(3);
    const approvedPlan = join(files.dir, `approved-${state}.json`);
    const approvedDry = await reconcile(["--dry-run", "--allow-mass-archive", "--out", approvedPlan, "--file", file]);
    expect(approvedDry.code).toBe(0);
    // Someone who can write the file lifts the guard in it and appends the archive steps.
    type PlanFile = { steps: Array<{ kind: string }>; allowMassArchive?: boolean };
    const guarded = JSON.parse(await readFile(guardedPlan, "utf8")) as PlanFile;
    const approved = JSON.parse(await readFile(approvedPlan, "utf8")) as PlanFile;
    expect(guarded.steps.filter((step) => step.kind === "archive")).toHaveLength(0);
    const archives = approved.steps.filter((step) => step.kind === "archive");
    expect(archives).toHaveLength(16);
    const edited = join(files.dir, `edited-${state}.json`);
    await files.write(
      `edited-${state}.json`,
      JSON.stringify({ ...guarded, allowMassArchive: true, steps: [...guarded.steps, ...archives] }),
    );
    await emulator.control.clearRequests();

    const held = await reconcile(["--plan", edited], slackEnv());
    expect(held.code).toBe(3);
    expect(held.stderr).toContain(
      `the saved plan ${edited} archives 16 of the 40 people managed from the HRIS export (40 %), over the limit of 50 people or 10 %: the mass-archive guard holds them and nothing was changed`,
    );
    expect(held.stderr).toContain(`apply it with reconcile --plan ${edited} --allow-mass-archive`);
    expect(held.stderr).toContain("the plan file's allowMassArchive field was ignored: a plan carries no approval");
    expect(writesOf(await apiRequests())).toEqual([]);
    // The operator's own plan, made with the flag, needs the flag again when applied.
    expect((await reconcile(["--plan", approvedPlan])).code).toBe(3);
    expect(writesOf(await apiRequests())).toEqual([]);

    const run = await reconcile(["--plan", edited, "--allow-mass-archive", "--json"], slackEnv());
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as ReconcileReport;
    expect(report.guardLifted).toEqual({
      by: "flag",
      means: "--allow-mass-archive",
      archives: 16,
      managed: 40,
      percent: 40,
      maxArchiveCount: 50,
      maxArchivePercent: 10,
    });
    expect(report.findings).toContainEqual({
      kind: "mass-archive-guard-lifted",
      severity: "warning",
      message:
        "mass-archive guard lifted by --allow-mass-archive for 16 people: archiving 16 of the 40 people managed from the HRIS export (40 %) is over the limit of 50 people or 10 %",
    });
    expect(report.notices).toContain(
      "the plan file's allowMassArchive field was ignored: a plan carries no approval; the mass-archive guard is lifted only when applying, by --allow-mass-archive or roster.approveMassArchive",
    );
    expect(report.applied?.archived).toBe(16);
    expect((await roster()).filter((e) => e.status === "archived")).toHaveLength(16);
    const [post] = slack.posted("retention-ops");
    expect(post?.text).toBe(
      ":warning: Roster reconcile: mass-archive guard lifted by --allow-mass-archive for 16 people: 16 archived",
    );
    expect(JSON.stringify(post?.blocks)).toContain("WARNING: mass-archive guard lifted by --allow-mass-archive");
    const store = await openStateStore(join(files.dir, `state-${state}.sqlite`));
    const journal = await store.namespace(JOURNAL_NAMESPACE).get<JournalEntry>(JOURNAL_KEY);
    await store.close();
    expect(journal).toMatchObject({
      completed: true,
      guardLifted: { by: "flag", means: "--allow-mass-archive", archives: 16 },
    });
  });

  it("the text report says which approval lifted the guard: the flag or roster.approveMassArchive", async () => {
    await reconcile(["--file", await files.write(`t1-${state}.csv`, bambooCsv(staff(20)))]);
    const rows = staff(20).map((r) =>
      r.n < 5 ? { ...r, type: "Terminated" as const, status: "Inactive" as const, terminated: "2026-01-31" } : r,
    );
    const file = await files.write(`t2-${state}.csv`, bambooCsv(rows));
    const byFlag = await reconcile(["--dry-run", "--allow-mass-archive", "--file", file]);
    expect(byFlag.code).toBe(0);
    expect(byFlag.stdout).toContain(
      "  WARNING: mass-archive guard lifted by --allow-mass-archive for 5 people: archiving 5 of the 20 people managed from the HRIS export (25 %) is over the limit of 50 people or 10 %",
    );
    expect(byFlag.stdout).toContain(
      "  approved: the mass-archive guard was lifted by --allow-mass-archive for 5 people; nothing else needs a person",
    );
    expect(byFlag.stdout).not.toContain("routine: nothing needs a person");
    const byConfig = await reconcile(["--file", file], {}, "  approveMassArchive: true\n");
    expect(byConfig.code).toBe(0);
    expect(byConfig.stdout).toContain("  WARNING: mass-archive guard lifted by roster.approveMassArchive for 5 people");
    expect(byConfig.stdout).toMatch(/archive\s+5\s+5/);
  });

  it("--out writes the plan owner-only through a fresh temporary file: a file or symlink planted at the old temporary name is left alone", async () => {
    await reconcile(["--file", await files.write(`o1-${state}.csv`, bambooCsv(staff(3)))]);
    const file = await files.write(`o2-${state}.csv`, bambooCsv(staff(4)));
    const planFile = join(files.dir, `owner-only-${state}.json`);
    const victim = await files.write(`victim-${state}.txt`, "keep me\n");
    // The name the plan's temporary file had before: predictable, so anyone could plant it.
    const planted = `${planFile}.${process.pid}.tmp`;
    await symlink(victim, planted);
    const before = process.umask(0o022);
    try {
      expect((await reconcile(["--dry-run", "--out", planFile, "--file", file])).code).toBe(0);
    } finally {
      process.umask(before);
    }
    expect((await stat(planFile)).mode & 0o777).toBe(0o600);
    expect((await lstat(planFile)).isSymbolicLink()).toBe(false);
    expect(JSON.parse(await readFile(planFile, "utf8"))).toMatchObject({ format: "retention-sync-plan", version: 2 });
    expect(await readFile(victim, "utf8")).toBe("keep me\n");
    expect((await lstat(planted)).isSymbolicLink()).toBe(true);
    expect((await readdir(files.dir)).filter((name) => name.includes(`owner-only-${state}`)).sort()).toEqual([
      `owner-only-${state}.json`,
      `owner-only-${state}.json.${process.pid}.tmp`,
    ]);
  });

  it("refuses flags that contradict a saved plan", async () => {
    const file = await files.write(`f-${state}.csv`, bambooCsv(staff(2)));
    expect((await reconcile(["--out", join(files.dir, "x.json"), "--file", file])).stderr).toMatch(/needs --dry-run/);
    expect((await reconcile(["--plan", join(files.dir, "none.json")])).stderr).toMatch(
      /plan file .*none\.json: cannot be read/,
    );
    expect((await reconcile(["--plan", join(files.dir, "none.json"), "--allow-mass-archive"])).code).toBe(2);
  });
});

describe("bounded files", () => {
  it("refuses a file over roster.maxRows with a clear error, exit 2, nothing written", async () => {
    const file = await files.write(`big-${state}.csv`, bambooCsv(staff(40)));
    await emulator.control.clearRequests();
    const run = await reconcile(["--file", file], {}, "  maxRows: 25\n");
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/has more than 25 rows \(roster\.maxRows; stopped at line 27\).*raise roster\.maxRows/);
    expect(await apiRequests()).toEqual([]);
  });
});

describe("stale exports", () => {
  it("warns about an export unchanged for longer than roster.staleAfter, in the report and the ops post", async () => {
    const file = await files.write(`old-${state}.csv`, bambooCsv(staff(3)));
    const fourDaysAgo = new Date(Date.now() - 4 * 86_400_000);
    await utimes(file, fourDaysAgo, fourDaysAgo);
    const run = await reconcile(["--file", file], slackEnv());
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(
      /WARNING: the export has not changed for 4 days .*roster\.staleAfter is 3 days.*HRIS export job/,
    );
    expect(slack.posted("retention-ops")[0]?.text).toMatch(/needs attention: the export has not changed for 4 days/);
  });
});
