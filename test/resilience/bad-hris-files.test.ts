/**
 * Bad input: a corpus of broken HRIS files run through the real `reconcile` command
 * against the emulator, with archive settings as aggressive as they go, one state database for
 * the whole corpus. Whatever the file, the command returns a clear message naming the file (and
 * lines for row problems), and nobody is archived by mistake.
 */
import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RetentionClient } from "../../src/api/client.js";
import type { ReconcileReport } from "../../src/roster/report.js";
import { ROW_ERROR_REASONS } from "../../src/roster/roster-rows.js";
import { runCli } from "../cli/cli-harness.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { canonicalUrl, type HrisPerson, toCsv } from "../helpers/roster-files.js";
import { startTestEmulator, type TestEmulator } from "../helpers/start-emulator.js";
import { type CorpusCase, lineOf, STAFF, STAYING, staying, structuralCases } from "./support/bad-hris-corpus.js";
import { FORMULA_FRAGMENTS, formulaRows, rowCases } from "./support/bad-hris-rows.js";

let emulator: TestEmulator;
let client: RetentionClient;
let slack: FakeSlack;
let dir: string;
let config: string;
let tick = 0;

beforeAll(async () => {
  emulator = await startTestEmulator({ seed: "empty", rateLimitPerMinute: 100_000, addHoldMs: 0 });
  client = new RetentionClient({ baseUrl: emulator.baseUrl, apiKey: emulator.readKey, requestsPerMinute: 10_000 });
  slack = await startFakeSlack();
  dir = await mkdtemp(join(tmpdir(), "bad-hris-"));
  config = join(dir, "retention-sync.yaml");
  // The most aggressive archiving there is: one missing file archives, people never seen in a file
  // too, and the mass-archive guard waved through. A bad file let through would archive people.
  await writeFile(
    config,
    [
      "api:",
      "  requestsPerMinute: 10000",
      "  maxRetries: 0",
      "  timeoutSeconds: 5",
      "roster:",
      "  archiveAfterMissingRuns: 1",
      "  archiveUnknown: true",
      "  approveMassArchive: true",
      "  maxArchivePercent: 100",
      "  maxArchiveCount: 100000",
      "",
    ].join("\n"),
  );
});

afterAll(async () => {
  await client?.close();
  await slack?.close();
  await emulator?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function place(name: string, content: CorpusCase["content"]): Promise<string> {
  const path = join(dir, name);
  if (typeof content === "function") await content(path);
  else await writeFile(path, content);
  // Every file is a new export (its own modification time), so the missing-run memory moves.
  tick += 1;
  const at = new Date(Date.now() + tick * 1000);
  await utimes(path, at, at);
  return path;
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly writes: Array<{ method: string; path: string }>;
}

async function reconcile(file: string, flags: string[] = [], env: Record<string, string> = {}): Promise<Run> {
  await emulator.control.clearRequests();
  const result = await runCli(["reconcile", "--config", config, "--file", file, ...flags], {
    RETENTION_API_URL: emulator.baseUrl,
    RETENTION_API_KEY: emulator.writeKey,
    RETENTION_SYNC_STATE: join(dir, "state.sqlite"),
    LOG_LEVEL: "silent",
    ...env,
  });
  const writes = (await emulator.control.requests()).filter((r) => r.method !== "GET" && r.path.startsWith("/api/v1"));
  // A crash (anything outside the error hierarchy) would read "unexpected error".
  expect(result.stderr).not.toMatch(/unexpected error/);
  return { ...result, writes };
}

const archiveOrErase = (writes: Run["writes"]) =>
  writes.filter((w) => w.method === "DELETE" || (w.method === "PATCH" && /^\/api\/v1\/employees\/\d+$/.test(w.path)));

async function activeSlugs(): Promise<string[]> {
  const out: string[] = [];
  for await (const e of client.iterateEmployees()) {
    if (e.status === "active") out.push(e.networkUrl.replace("https://www.linkedin.com/in/", ""));
  }
  return out.sort();
}

const stayingSlugs = STAYING.map((p) => p.slug).sort();

function rowErrors(report: ReconcileReport): Array<readonly [number, string]> {
  return report.rows.problems.filter((p) => ROW_ERROR_REASONS.has(p.reason)).map((p) => [p.line, p.reason] as const);
}

describe("precondition: the settings archive a genuine leaver", () => {
  it("establishes 60 people from a good export", async () => {
    const run = await reconcile(await place("good.csv", toCsv(STAFF)));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/add\s+60\s+60/);
    expect(await activeSlugs()).toEqual(STAFF.map((p) => p.slug).sort());
  });

  it("archives the one person missing from the next good export", async () => {
    const run = await reconcile(await place("good-minus-leaver.csv", toCsv(STAYING)));
    expect(run.code).toBe(0);
    expect(archiveOrErase(run.writes)).toEqual([expect.objectContaining({ method: "PATCH" })]);
    expect(await activeSlugs()).toEqual(stayingSlugs);
  });
});

describe("files refused as a whole: exit 2, nothing changed", () => {
  it.each(structuralCases().map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const file = await place(c.file, c.content);
    const run = await reconcile(file);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`Roster file ${file}:`);
    expect(run.stderr).toMatch(c.says);
    expect(run.stdout).toBe("");
    expect(run.writes).toEqual([]);
    expect(await activeSlugs()).toEqual(stayingSlugs);
  });
});

describe("files read with row problems: every problem by line, nothing archived, nothing sent", () => {
  it.each(rowCases().map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const file = await place(c.file, c.content);
    const run = await reconcile(file, ["--json", ...(c.dryRun ? ["--dry-run"] : [])]);
    expect(run.code).toBe(c.code);
    const report = JSON.parse(run.stdout) as ReconcileReport;
    expect(report.file).toBe(file);
    expect([...report.notices, ...report.rows.problems.map((p) => p.message)].join("\n")).toMatch(c.says);
    expect(rowErrors(report)).toEqual(c.problems ?? []);
    expect(report.planned.archive).toBe(0);
    expect(run.writes).toEqual([]);
    expect(await activeSlugs()).toEqual(stayingSlugs);
  });
});

describe("formula cells: handled as text, never echoed where a spreadsheet or Slack would run them", () => {
  const { people, problems } = formulaRows();
  const leaks = (text: string) => FORMULA_FRAGMENTS.filter((f) => text.includes(f));

  it("keeps the people whose other cells hold formulas, refuses formula URLs, and the text and Slack reports stay inert", async () => {
    const file = await place("formulas.csv", toCsv(people));
    const run = await reconcile(file, [], {
      SLACK_BOT_TOKEN: slack.token,
      SLACK_API_URL: slack.url,
      SLACK_OPS_CHANNEL: "#retention-ops",
    });
    expect(run.code).toBe(3);
    expect(run.stdout).toContain(`Reconcile report: ${file}`);
    for (const [line] of problems) expect(run.stdout).toMatch(new RegExp(`line ${line}: formula-cell: `));
    expect(run.stdout).toMatch(/line 5: formula-cell: spreadsheet formula in name \(HYPERLINK\(\.\.\.\)\)/);
    expect(leaks(run.stdout)).toEqual([]);
    const posted = slack.posted("retention-ops");
    expect(posted).toHaveLength(1);
    const blocks = JSON.stringify(posted[0]?.blocks);
    expect(blocks).toMatch(/formula-cell/);
    expect(leaks(blocks)).toEqual([]);
    expect(blocks).not.toMatch(/<(?:https?:|mailto:|[@#!])/);
    expect(posted[0]?.blocks).toContainEqual(
      expect.objectContaining({ text: expect.objectContaining({ verbatim: true }) }),
    );
    expect(run.writes).toEqual([]);
    expect(await activeSlugs()).toEqual(stayingSlugs);
  });

  it("lists the same problems in the JSON report, without the formulas and without the formula employee id", async () => {
    const run = await reconcile(await place("formulas-again.csv", toCsv(people)), ["--json"]);
    expect(run.code).toBe(3);
    const report = JSON.parse(run.stdout) as ReconcileReport;
    expect(rowErrors(report)).toEqual(problems);
    expect(leaks(run.stdout)).toEqual([]);
    expect(report.rows.problems.find((p) => p.line === 10)).not.toHaveProperty("employeeId");
    expect(run.writes).toEqual([]);
    expect(await activeSlugs()).toEqual(stayingSlugs);
  });
});

describe("a person whose row breaks is held, not archived, until the row is fixed or removed", () => {
  const byId = staying(10);
  const byEmail = staying(11);
  const emptied = staying(20);
  const leaver = staying(58);
  const rest = STAYING.filter((p) => p !== leaver);
  const withRows = (rows: Map<HrisPerson, Partial<HrisPerson>>, people = rest) =>
    toCsv(people.map((p) => ({ ...p, ...rows.get(p) })));
  // The finding names the person by the HRIS name of their last good row (the memory keeps it).
  const held = (line: number, who: string, what: string, person: HrisPerson) =>
    `line ${line}: the row of ${who} has ${what}; "${person.name}" is on the roster as ${canonicalUrl(person.slug)} ` +
    "and would be archived (missing from 1 export); fix the row, or remove it to archive them";

  it("a broken URL (matched by employee id) and a formula URL without an id (matched by email): held, the leaver archived", async () => {
    const rows = new Map<HrisPerson, Partial<HrisPerson>>([
      // A typo in the host: linkedln.
      [byId, { url: `https://www.linkedln.com/in/${byId.slug}` }],
      [byEmail, { employeeId: "", url: `=HYPERLINK("${canonicalUrl(byEmail.slug)}")` }],
    ]);
    const run = await reconcile(await place("broken-rows.csv", withRows(rows)), ["--json"]);
    const report = JSON.parse(run.stdout) as ReconcileReport;
    // Only the genuine leaver of the same file is archived: the hold is specific.
    expect(report.steps.map((s) => [s.change, s.url])).toEqual([["archive", canonicalUrl(leaver.slug)]]);
    expect(archiveOrErase(run.writes)).toHaveLength(1);
    expect(await activeSlugs()).toEqual(rest.map((p) => p.slug).sort());
    expect(run.code).toBe(3);
    expect(rowErrors(report)).toEqual([
      [lineOf(10), "invalid-url"],
      [lineOf(11), "formula-cell"],
    ]);
    expect(report.heldForBrokenRows).toBe(2);
    expect(report.findings).toEqual([
      {
        kind: "held-for-broken-row",
        severity: "warning",
        message: held(lineOf(10), `employee "${byId.employeeId}"`, "an invalid profile URL", byId),
      },
      {
        kind: "held-for-broken-row",
        severity: "warning",
        message: held(lineOf(11), `"${byEmail.email}"`, "a spreadsheet formula", byEmail),
      },
    ]);
  });

  it("the URL cell emptied: held, exit 3, in the text report and the Slack ops report; the fixed rows change nothing", async () => {
    const file = await place("emptied-url.csv", withRows(new Map([[emptied, { url: "" }]])));
    const run = await reconcile(file, [], {
      SLACK_BOT_TOKEN: slack.token,
      SLACK_API_URL: slack.url,
      SLACK_OPS_CHANNEL: "#general",
    });
    expect(run.writes).toEqual([]);
    expect(await activeSlugs()).toEqual(rest.map((p) => p.slug).sort());
    expect(run.code).toBe(3);
    const finding = held(lineOf(20), `employee "${emptied.employeeId}"`, "no profile URL", emptied);
    expect(run.stdout).toContain("archives held for broken rows: 1");
    expect(run.stdout).toContain(`WARNING: ${finding}`);
    const posted = slack.posted("general");
    expect(posted).toHaveLength(1);
    expect(posted[0]?.text).toMatch(/:warning:/);
    const blocks = JSON.stringify(posted[0]?.blocks);
    expect(blocks).toContain("archives held for broken rows: 1");
    expect(blocks).toContain(JSON.stringify(finding).slice(1, -1));
  });

  it("the row removed from the file: archived by the normal rule", async () => {
    const without = rest.filter((p) => p !== emptied);
    const run = await reconcile(await place("row-removed.csv", toCsv(without)), ["--json"]);
    const report = JSON.parse(run.stdout) as ReconcileReport;
    expect(report.steps.map((s) => [s.change, s.url])).toEqual([["archive", canonicalUrl(emptied.slug)]]);
    expect(archiveOrErase(run.writes)).toHaveLength(1);
    expect(await activeSlugs()).toEqual(without.map((p) => p.slug).sort());
    expect(run.code).toBe(0);
    expect(report.heldForBrokenRows).toBe(0);
    expect(report.findings).toEqual([]);
  });
});
