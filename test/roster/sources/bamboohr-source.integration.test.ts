/**
 * The bamboohr source against a local fake of BambooHR's API (test/helpers/fakes/bamboohr-fake.ts):
 * the employee dataset first, paged; the custom report when the dataset cannot serve the pull;
 * and every way a pull fails, each ending in a typed error and no export.
 */
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSchema } from "../../../src/config/schema.js";
import { EXIT_RUNTIME, EXIT_USAGE, RosterPullError, RosterSourceAuthError } from "../../../src/errors.js";
import { readRoster, rosterReadOptions } from "../../../src/roster/read-roster.js";
import {
  BAMBOOHR_EXPORT,
  BambooHrSource,
  PROFILE_URL_FIELDS,
  requestedFields,
} from "../../../src/roster/sources/bamboohr-source.js";
import { PullStore } from "../../../src/roster/sources/pull-store.js";
import { sourceSecrets } from "../../../src/roster/sources/source-secrets.js";
import { type BambooHrFake, samplePeople, startBambooHrFake } from "../../helpers/fakes/bamboohr-fake.js";

const NOW = new Date("2026-03-02T02:00:00Z");

let fake: BambooHrFake;
let dir: string;
let waits: number[];

beforeEach(async () => {
  fake = await startBambooHrFake({ employees: samplePeople(25), maxPageSize: 10 });
  dir = await mkdtemp(join(tmpdir(), "bamboohr-source-"));
  waits = [];
});
afterEach(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

function source(overrides: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  const config = configSchema.parse({
    roster: {
      source: { type: "bamboohr", companyDomain: fake.companyDomain, baseUrl: fake.url, ...overrides },
    },
  }).roster.source;
  if (config.type !== "bamboohr") throw new Error("not a bamboohr source");
  return new BambooHrSource(
    config,
    sourceSecrets(config, { BAMBOOHR_API_KEY: fake.apiKey, ...env }),
    new PullStore(dir),
    {
      sleep: async (ms) => {
        waits.push(ms);
      },
    },
    () => NOW,
  );
}

function dataRequests() {
  return fake.requests.filter((r) => r.path === "v2/datasets/employee/data");
}

async function failure(promise: Promise<unknown>): Promise<RosterPullError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RosterPullError);
  const pullError = error as RosterPullError;
  expect(pullError.message).not.toContain(fake.apiKey);
  return pullError;
}

/** Nothing kept: no export and no temporary file left behind. */
async function expectNothingKept(): Promise<void> {
  const left = await readdir(dir).catch(() => [] as string[]);
  expect(left.filter((name) => name.includes(BAMBOOHR_EXPORT))).toEqual([]);
}

describe("bamboohr source: the employee dataset", () => {
  it("asks the dataset for its fields, then reads every page while links.next names one, into one export", async () => {
    const pulled = await source().pull();
    expect(pulled).toMatchObject({
      file: join(dir, BAMBOOHR_EXPORT),
      format: "json",
      origin: `${fake.url}/api/gateway.php/acme/v2/datasets/employee/data`,
      facts: { endpoint: "employee dataset (v2)", pages: 3, records: 25 },
    });
    expect(fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      "GET v1_2/datasets/employee/fields?page=1&page_size=1000 200",
      "POST v2/datasets/employee/data 200",
      "POST v2/datasets/employee/data 200",
      "POST v2/datasets/employee/data 200",
    ]);
    const bodies = dataRequests().map((r) => r.body as { fields: string[]; page: number; pageSize: number });
    expect(bodies.map((b) => [b.page, b.pageSize])).toEqual([
      [1, 1000],
      [2, 1000],
      [3, 1000],
    ]);
    // Both statuses, the LinkedIn field the dataset has, and what the preset reads.
    expect(bodies[0]?.fields).toEqual(
      expect.arrayContaining(["status", "employmentHistoryStatus", "customLinkedInURL", "employeeNumber", "workEmail"]),
    );
    expect(dataRequests().every((r) => r.contentType === "application/json")).toBe(true);

    const text = await readFile(pulled.file, "utf8");
    const doc = JSON.parse(text) as { employees: Array<Record<string, unknown>> };
    expect(doc.employees).toHaveLength(25);
    expect(doc.employees[0]).toMatchObject({ employeeNumber: "1000", employmentHistoryStatus: "Part-Time" });
    const info = await stat(pulled.file);
    expect(info.mode & 0o777).toBe(0o600);
    expect(info.mtime.getTime()).toBe(NOW.getTime());

    // The bamboohr preset reads it as it reads a custom report.
    const rules = configSchema.parse({ roster: { file: pulled.file } }).roster;
    const roster = await readRoster(rosterReadOptions(rules, pulled.file, NOW));
    expect(roster.mapping.preset).toBe("bamboohr");
    expect(roster.people).toHaveLength(25);
  });

  it("asks for the next page by its number, never by following links.next", async () => {
    await source().pull();
    // The fake's links.next names https://acme.bamboohr.com/...: had it been followed, the pull would have failed.
    expect(dataRequests()).toHaveLength(3);
    expect(fake.requests.every((r) => r.status === 200)).toBe(true);
  });

  it("reads a person out by either status: Inactive or Terminated is left, Contractor is out of scope", async () => {
    fake.employees = [
      ...samplePeople(3),
      { ...samplePeople(1, 3)[0], status: "Inactive", employmentHistoryStatus: "Terminated" },
      { ...samplePeople(1, 4)[0], status: "Active", employmentHistoryStatus: "Terminated" },
      { ...samplePeople(1, 5)[0], status: "Inactive", employmentHistoryStatus: "Full-Time" },
      { ...samplePeople(1, 6)[0], status: "Active", employmentHistoryStatus: "Contractor" },
    ];
    const pulled = await source().pull();
    const rules = configSchema.parse({ roster: { file: pulled.file } }).roster;
    const roster = await readRoster(rosterReadOptions(rules, pulled.file, NOW));
    expect(roster.people.map((p) => p.name)).toEqual(["Person No0", "Person No1", "Person No2"]);
    const reasons = roster.problems.map((p) => `${p.name}: ${p.reason}`);
    expect(reasons).toEqual([
      "Person No3: terminated",
      "Person No4: terminated",
      "Person No5: terminated",
      "Person No6: out-of-scope",
    ]);
  });

  it("an empty but valid dataset is an export with no one in it", async () => {
    fake.employees = [];
    const pulled = await source().pull();
    expect(pulled.facts).toMatchObject({ pages: 1, records: 0 });
    expect(JSON.parse(await readFile(pulled.file, "utf8"))).toEqual({ employees: [] });
  });
});

describe("bamboohr source: the custom report when the dataset cannot serve the pull", () => {
  it.each([403, 404, 422] as const)("the dataset answers %i: the custom report is pulled", async (status) => {
    fake.options = { ...fake.options, datasetRefusal: status };
    const pulled = await source().pull();
    expect(pulled.origin).toBe(`${fake.url}/api/gateway.php/acme/v1/reports/custom`);
    expect(pulled.facts).toMatchObject({ endpoint: "custom report", pages: 1, records: 25 });
    expect(String(pulled.facts.fallback)).toMatch(/v1_2\/datasets\/employee\/fields answered (403|422)/);
    const doc = JSON.parse(await readFile(pulled.file, "utf8")) as { employees: unknown[]; fields: unknown[] };
    expect(doc.employees).toHaveLength(25);
  });

  it("the first data page answers 404: the custom report is pulled", async () => {
    fake.faults.push({ on: "data", page: 1, kind: { status: 404 } });
    const pulled = await source().pull();
    expect(pulled.facts).toMatchObject({ endpoint: "custom report" });
    expect(String(pulled.facts.fallback)).toMatch(/v2\/datasets\/employee\/data answered 404/);
  });

  it("the dataset names the employment status otherwise: the custom report, asked exactly as documented", async () => {
    fake.options = { ...fake.options, datasetLacks: ["employmentHistoryStatus"] };
    const pulled = await source({ fields: ["customSocialProfile"] }).pull();
    expect(pulled.facts.fallback).toBe(
      "the employee dataset has no field employmentHistoryStatus, customSocialProfile",
    );
    expect(dataRequests()).toEqual([]);
    const report = fake.requests.find((r) => r.path.startsWith("v1/reports/custom"));
    expect(report).toMatchObject({
      method: "POST",
      path: "v1/reports/custom?format=JSON&onlyCurrent=true",
      contentType: "application/json",
      status: 200,
    });
    const fields = (report?.body as { fields?: string[] } | undefined)?.fields;
    expect(fields).toEqual(requestedFields(["customSocialProfile"]));
    expect(fields).toEqual(expect.arrayContaining([...PROFILE_URL_FIELDS, "status", "employmentHistoryStatus"]));
    expect(fields).toContain("customSocialProfile");
  });

  it("a configured field the dataset lacks sends the pull to the custom report", async () => {
    const pulled = await source({ fields: ["customBadgeColour"] }).pull();
    expect(pulled.facts.fallback).toBe("the employee dataset has no field customBadgeColour");
  });

  it("the dataset has no LinkedIn field: the custom report", async () => {
    fake.options = { ...fake.options, datasetLacks: ["customLinkedInURL"] };
    const pulled = await source().pull();
    expect(String(pulled.facts.fallback)).toMatch(/none of the LinkedIn fields/);
  });

  it("a report without the employment status (hidden from the key's user) is refused as a credential problem", async () => {
    fake.options = { ...fake.options, hidden: ["employmentHistoryStatus"] };
    const error = await failure(source().pull());
    expect(error).toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(EXIT_USAGE);
    expect(error.message).toMatch(/came back without employmentHistoryStatus.*may not see/);
    await expectNothingKept();
  });
  it("an empty report whose field list lacks the employment status is refused too", async () => {
    fake.employees = [];
    fake.options = { ...fake.options, hidden: ["employmentHistoryStatus"] };
    const error = await failure(source().pull());
    expect(error).toBeInstanceOf(RosterSourceAuthError);
    expect(error.message).toMatch(/came back without employmentHistoryStatus/);
  });
});

describe("bamboohr source: failed pulls are no export", () => {
  it("no API key: refused before any request (exit 2)", async () => {
    const config = configSchema.parse({
      roster: { source: { type: "bamboohr", companyDomain: "acme", baseUrl: fake.url } },
    }).roster.source;
    if (config.type !== "bamboohr") throw new Error("not a bamboohr source");
    const error = await failure(new BambooHrSource(config, {}, new PullStore(dir)).pull());
    expect(error.exitCode).toBe(EXIT_USAGE);
    expect(error.message).toMatch(/BAMBOOHR_API_KEY/);
    expect(fake.requests).toEqual([]);
  });

  it("a key BambooHR does not know: 401, exit 2, and no fallback to the report", async () => {
    const error = await failure(source({}, { BAMBOOHR_API_KEY: "not-the-key-at-all" }).pull());
    expect(error).toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(EXIT_USAGE);
    expect(fake.requests.map((r) => r.status)).toEqual([401]);
    await expectNothingKept();
  });

  it("the custom report refuses the key (403): exit 2", async () => {
    fake.options = { ...fake.options, datasetRefusal: 404 };
    fake.faults.push({ on: "report", kind: { status: 403 } });
    const error = await failure(source().pull());
    expect(error).toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(EXIT_USAGE);
  });

  it("a 5xx on the middle page that retries do not cure: exit 1, the last good export untouched", async () => {
    const good = await source().pull();
    const before = await readFile(good.file, "utf8");
    fake.employees = samplePeople(12);
    fake.faults.push({ on: "data", page: 2, kind: { status: 500 } });
    const error = await failure(source().pull());
    expect(error).not.toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(EXIT_RUNTIME);
    expect(error.message).toMatch(/answered 500 \(4 tries\); the next schedule tries again/);
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(await readFile(good.file, "utf8")).toBe(before);
    expect((await readdir(dir)).filter((name) => name.endsWith(".part"))).toEqual([]);
  });

  it("a 5xx that a retry cures: the pull goes on", async () => {
    fake.faults.push({ on: "data", page: 2, times: 1, kind: { status: 502 } });
    const pulled = await source().pull();
    expect(pulled.facts).toMatchObject({ pages: 3, records: 25 });
    expect(waits).toEqual([1000]);
  });

  it.each(["content-length", "chunked"] as const)("a page cut short (%s): exit 1, nothing kept", async (cut) => {
    fake.faults.push({ on: "data", page: 2, kind: { cut } });
    const error = await failure(source().pull());
    expect(error.exitCode).toBe(EXIT_RUNTIME);
    expect(error.message).toMatch(/v2\/datasets\/employee\/data.*(cut|did not answer|terminated|closed)/);
    await expectNothingKept();
  });

  it("a custom report cut short: exit 1, nothing kept", async () => {
    fake.options = { ...fake.options, datasetRefusal: 404 };
    fake.faults.push({ on: "report", kind: { cut: "content-length" } });
    const error = await failure(source().pull());
    expect(error.exitCode).toBe(EXIT_RUNTIME);
    await expectNothingKept();
  });

  it("a redirect to another host: exit 1, and the key is not sent there", async () => {
    const elsewhere = `http://127.0.0.2:${new URL(fake.url).port}/api/gateway.php/acme/v2/datasets/employee/data`;
    fake.faults.push({ on: "data", page: 2, kind: { redirect: elsewhere } });
    const error = await failure(source().pull());
    expect(error.exitCode).toBe(EXIT_RUNTIME);
    expect(error.message).toMatch(/redirected to another origin \(http:\/\/127\.0\.0\.2:\d+\)/);
    expect(dataRequests().map((r) => r.status)).toEqual([200, 307]);
    await expectNothingKept();
  });

  it.each([429, 503])("a %i with Retry-After: the pull waits as long as it says and goes on", async (status) => {
    fake.faults.push({ on: "data", page: 2, times: 2, kind: { status, retryAfter: "7" } });
    fake.faults.push({ on: "fields", times: 1, kind: { status, retryAfter: "3" } });
    const pulled = await source().pull();
    expect(pulled.facts).toMatchObject({ pages: 3, records: 25 });
    expect(waits).toEqual([3000, 7000, 7000]);
  });

  it("a Retry-After longer than a run waits: exit 1 at once", async () => {
    fake.faults.push({ on: "data", page: 1, kind: { status: 429, retryAfter: "3600" } });
    const error = await failure(source().pull());
    expect(error.exitCode).toBe(EXIT_RUNTIME);
    expect(error.message).toMatch(/asking to wait 3600 s: longer than a run waits/);
    expect(waits).toEqual([]);
  });

  it("pages adding up to more than maxBytes: exit 1", async () => {
    fake.employees = samplePeople(40);
    const error = await failure(source({ maxBytes: 4096 }).pull());
    expect(error.exitCode).toBe(EXIT_RUNTIME);
    expect(error.message).toMatch(/more than 4096 bytes \(roster\.source\.maxBytes\)/);
    await expectNothingKept();
  });

  it("an answer that is not the documented shape: exit 1", async () => {
    fake.options = { ...fake.options, datasetRefusal: 404 };
    fake.faults.push({ on: "report", kind: { status: 200 } });
    const error = await failure(source().pull());
    expect(error.exitCode).toBe(EXIT_RUNTIME);
    expect(error.message).toMatch(/the custom report is not in the documented shape/);
  });
});
