/**
 * The `merge` roster source against a local fake of Merge's HRIS API (test/helpers/fakes/merge-fake.ts):
 * what it asks for, the one document it writes, and every way a pull fails without leaving an export.
 */
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSchema } from "../../../src/config/schema.js";
import { EXIT_RUNTIME, EXIT_USAGE, RosterPullError, RosterSourceAuthError } from "../../../src/errors.js";
import { readRoster, rosterReadOptions } from "../../../src/roster/read-roster.js";
import { MERGE_EXPAND } from "../../../src/roster/sources/merge-source.js";
import { rosterSource } from "../../../src/roster/sources/open-source.js";
import type { RosterSource } from "../../../src/roster/sources/roster-source.js";
import {
  type MergeFake,
  type MergeFakePerson,
  mergeCursor,
  mergePeople,
  startMergeFake,
} from "../../helpers/fakes/merge-fake.js";
import { canonicalUrl, makePeople } from "../../helpers/roster-files.js";

let fake: MergeFake;
let dir: string;
let waits: number[];
const PULLED_AT = new Date("2026-11-26T12:00:00Z");

beforeEach(async () => {
  fake = await startMergeFake(mergePeople(makePeople(250)));
  dir = await mkdtemp(join(tmpdir(), "merge-source-"));
  waits = [];
});
afterEach(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

function source(
  options: { baseUrl?: string; apiKey?: string; accountToken?: string; maxBytes?: number } = {},
): RosterSource {
  const config = configSchema.parse({
    roster: {
      source: {
        type: "merge",
        baseUrl: options.baseUrl ?? fake.url,
        ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}),
      },
    },
  }).roster.source;
  const env = {
    MERGE_API_KEY: options.apiKey ?? fake.apiKey,
    MERGE_ACCOUNT_TOKEN: options.accountToken ?? fake.accountToken,
  };
  const opened = rosterSource(config, {
    env,
    pullDir: join(dir, "pulls"),
    now: () => PULLED_AT,
    http: {
      sleep: async (ms) => {
        waits.push(ms);
      },
    },
  });
  if (!opened) throw new Error("no source");
  return opened;
}

/** What the pull folder holds: the kept export and nothing half-written beside it. */
async function pullFolder(): Promise<string[]> {
  return (await readdir(join(dir, "pulls")).catch(() => [] as string[])).sort();
}

async function failure(pull: Promise<unknown>): Promise<RosterPullError> {
  const error = await pull.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof RosterPullError)) throw new Error(`expected a RosterPullError, got ${String(error)}`);
  for (const secret of [fake.apiKey, fake.accountToken]) expect(error.message).not.toContain(secret);
  return error;
}

function readPulled(file: string) {
  const rules = configSchema.parse({ roster: { file } }).roster;
  return readRoster(rosterReadOptions(rules, file, PULLED_AT));
}

describe("merge source: a complete pull", () => {
  it("reads every page with both credentials, deleted people and the preset's relations expanded, and keeps one document", async () => {
    const pulled = await source().pull();
    expect(pulled).toMatchObject({
      file: join(dir, "pulls", "merge.json"),
      format: "json",
      origin: `${fake.url}/api/hris/v1/employees`,
      facts: { pages: 3, records: 250 },
    });
    // Page 1 without a cursor, then each page's `next`: every other parameter unchanged.
    expect(fake.requests.map((r) => [r.method, r.path, r.page, r.status, r.authorized])).toEqual([
      ["GET", "/api/hris/v1/employees", 1, 200, true],
      ["GET", "/api/hris/v1/employees", 2, 200, true],
      ["GET", "/api/hris/v1/employees", 3, 200, true],
    ]);
    const [first, ...rest] = fake.requests;
    expect(first?.query).toEqual({ page_size: "100", include_deleted_data: "true", expand: MERGE_EXPAND });
    expect(MERGE_EXPAND.split(",").sort()).toEqual(["employments", "groups", "manager", "work_location"]);
    for (const r of rest) {
      const { cursor, ...same } = r.query;
      expect(cursor).toMatch(/.+/);
      expect(same).toEqual(first?.query);
    }

    const text = await readFile(pulled.file, "utf8");
    const document = JSON.parse(text) as { results: Array<Record<string, unknown>> };
    expect(Object.keys(document)).toEqual(["results"]);
    expect(document.results).toHaveLength(250);
    expect(document.results[0]).toMatchObject({ remote_id: "E000000", employment_status: "ACTIVE" });
    // Expanded: whole objects where Merge otherwise sends ids (the location decides scope only).
    expect(document.results[1]).toMatchObject({
      employments: [{ employment_type: "FULL_TIME", job_title: "Engineer" }],
      groups: [{ type: "DEPARTMENT", name: "Sales" }],
      work_location: { name: "London" },
    });
    const info = await stat(pulled.file);
    expect(info.mode & 0o777).toBe(0o600);
    expect(info.mtime.toISOString()).toBe(PULLED_AT.toISOString());
    expect(pulled.facts.bytes).toBe(Buffer.byteLength(text));
    expect(await pullFolder()).toEqual(["merge.json"]);

    // The merge preset reads it as it comes (mapping auto), the expanded relations included.
    const roster = await readPulled(pulled.file);
    expect(roster.mapping.preset).toBe("merge");
    expect(roster.people).toHaveLength(250);
    expect(roster.people[1]).toMatchObject({
      employeeId: "E000001",
      name: "person 1",
      email: "person.1@example.com",
      profileUrl: canonicalUrl("person-1"),
      department: "Sales",
      title: "Engineer",
    });
  });

  it("who left and who is out of scope: deleted, INACTIVE, a passed termination date; PENDING, contractors", async () => {
    const base = mergePeople(makePeople(8));
    const at = (i: number) => base[i] as MergeFakePerson;
    fake.people = [
      at(0),
      { ...at(1), managerRemoteId: at(0).remoteId },
      { ...at(2), deleted: true },
      { ...at(3), employmentStatus: "INACTIVE" },
      { ...at(4), terminationDate: "2026-10-31T00:00:00Z" },
      { ...at(5), employmentStatus: "PENDING" },
      { ...at(6), employmentType: "CONTRACTOR" },
      { ...at(7), employmentType: "INTERN" },
    ];
    const pulled = await source().pull();
    expect(pulled.facts).toMatchObject({ pages: 1, records: 8 });
    const roster = await readPulled(pulled.file);
    expect(roster.people.map((p) => p.name)).toEqual(["person 0", "person 1"]);
    expect(roster.people[1]?.managerEmail).toBe("person.0@example.com");
    const why = Object.fromEntries(roster.problems.map((p) => [p.name, p.reason]));
    expect(why).toEqual({
      "person 2": "terminated",
      "person 3": "terminated",
      "person 4": "terminated",
      "person 5": "out-of-scope",
      "person 6": "out-of-scope",
      "person 7": "out-of-scope",
    });
  });

  it("an empty but valid list is a complete pull of nobody, which the reader refuses", async () => {
    fake.people = [];
    const pulled = await source().pull();
    expect(pulled.facts).toMatchObject({ pages: 1, records: 0 });
    expect(JSON.parse(await readFile(pulled.file, "utf8"))).toEqual({ results: [] });
    await expect(readPulled(pulled.file)).rejects.toThrow(/holds no people; refusing to treat an empty export/);
  });

  it("takes the SDKs' form of the base URL (https://api.merge.dev/api) as well", async () => {
    const pulled = await source({ baseUrl: `${fake.url}/api/` }).pull();
    expect(pulled.origin).toBe(`${fake.url}/api/hris/v1/employees`);
    expect(fake.requests.every((r) => r.path === "/api/hris/v1/employees" && r.status === 200)).toBe(true);
  });

  it("waits as a 429's Retry-After says, then goes on from the same page", async () => {
    fake.fail(2, { kind: "status", status: 429, retryAfter: "7" }, 2);
    const pulled = await source().pull();
    expect(pulled.facts).toMatchObject({ pages: 3, records: 250 });
    expect(waits).toEqual([7000, 7000]);
    expect(fake.requests.map((r) => [r.page, r.status])).toEqual([
      [1, 200],
      [2, 429],
      [2, 429],
      [2, 200],
      [3, 200],
    ]);
  });

  it("a 5xx or a cut page that a retry cures is still a complete pull", async () => {
    fake.fail(2, { kind: "status", status: 502 });
    fake.fail(3, { kind: "cut", how: "content-length" });
    const pulled = await source().pull();
    expect(pulled.facts).toMatchObject({ pages: 3, records: 250 });
    expect(waits).toEqual([1000, 1000]);
  });
});

describe("merge source: a failed pull leaves no export and the last one as it was", () => {
  let last: string;
  beforeEach(async () => {
    // A complete pull from an earlier run, which a failed one must not touch.
    const pulled = await source().pull();
    last = await readFile(pulled.file, "utf8");
    fake.requests.length = 0;
  });
  async function lastPullKept(): Promise<void> {
    expect(await pullFolder()).toEqual(["merge.json"]);
    expect(await readFile(join(dir, "pulls", "merge.json"), "utf8")).toBe(last);
  }

  it("a refused API key: RosterSourceAuthError, exit 2, no retry", async () => {
    const error = await failure(source({ apiKey: "not-the-key-0123456789" }).pull());
    expect(error).toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(EXIT_USAGE);
    expect(error.message).toMatch(/refused the credential \(401\)/);
    expect(fake.requests).toHaveLength(1);
    await lastPullKept();
  });

  it("a refused linked account token: RosterSourceAuthError, exit 2", async () => {
    const error = await failure(source({ accountToken: "not-the-account-0123456789" }).pull());
    expect(error).toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(EXIT_USAGE);
    await lastPullKept();
  });

  it("a credential refused on a middle page (revoked mid-pull) fails the whole pull", async () => {
    fake.fail(2, { kind: "status", status: 401 });
    const error = await failure(source().pull());
    expect(error).toBeInstanceOf(RosterSourceAuthError);
    await lastPullKept();
  });

  it("no credentials: refused before any call, exit 2, naming the variables", async () => {
    const error = await failure(source({ apiKey: "", accountToken: "" }).pull());
    expect(error).toBeInstanceOf(RosterSourceAuthError);
    expect(error.message).toMatch(/MERGE_API_KEY .* and MERGE_ACCOUNT_TOKEN/);
    expect(fake.requests).toEqual([]);
    await lastPullKept();
  });

  it("a 5xx on a middle page that the retries do not cure: RosterPullError, exit 1", async () => {
    fake.fail(2, { kind: "status", status: 503 }, 10);
    const error = await failure(source().pull());
    expect(error).not.toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(EXIT_RUNTIME);
    expect(error.message).toMatch(/answered 503 \(4 tries\); the next schedule tries again/);
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(fake.requests.map((r) => r.page)).toEqual([1, 2, 2, 2, 2]);
    await lastPullKept();
  });

  for (const how of ["content-length", "chunked"] as const) {
    it(`a page cut short (${how === "chunked" ? "a chunked body without its end" : "fewer bytes than its Content-Length"}): exit 1`, async () => {
      fake.fail(2, { kind: "cut", how }, 10);
      const error = await failure(source().pull());
      expect(error.exitCode).toBe(EXIT_RUNTIME);
      expect(error.message).toMatch(/employees: the answer was cut \(.+\) \(4 tries\)/);
      expect(fake.requests.filter((r) => r.page === 2)).toHaveLength(4);
      await lastPullKept();
    });
  }

  it("a redirect to another host is not followed: exit 1, at once", async () => {
    const port = new URL(fake.url).port;
    fake.fail(2, { kind: "redirect", location: `http://127.0.0.2:${port}/api/hris/v1/employees?cursor=x` });
    const error = await failure(source().pull());
    expect(error.exitCode).toBe(EXIT_RUNTIME);
    expect(error.message).toMatch(/redirected to another origin \(http:\/\/127\.0\.0\.2:\d+\)/);
    expect(fake.requests.map((r) => r.page)).toEqual([1, 2]);
    await lastPullKept();
  });

  it("a 429 asking for a longer wait than a run waits: exit 1", async () => {
    fake.fail(2, { kind: "status", status: 429, retryAfter: "3600" });
    const error = await failure(source().pull());
    expect(error.exitCode).toBe(EXIT_RUNTIME);
    expect(error.message).toMatch(/answered 429, asking to wait 3600 s: longer than a run waits/);
    expect(waits).toEqual([]);
    await lastPullKept();
  });

  it("a page that is not Merge's list, or not JSON: exit 1", async () => {
    fake.fail(2, { kind: "body", body: JSON.stringify({ data: [] }) });
    const shape = await failure(source().pull());
    expect(shape.message).toMatch(/page 2 is not Merge's employee list/);
    fake.fail(1, { kind: "body", body: "<html>maintenance</html>" });
    const notJson = await failure(source().pull());
    expect(notJson.message).toMatch(/page 1 is not JSON/);
    await lastPullKept();
  });

  it("a list longer than roster.source.maxBytes: exit 1", async () => {
    const error = await failure(source({ maxBytes: 64 * 1024 }).pull());
    expect(error.message).toMatch(/longer than 65536 bytes \(roster\.source\.maxBytes\)/);
    await lastPullKept();
  });

  it("a cursor that points back to a page already read stops the pull: exit 1", async () => {
    // Page 1 twice says its next page is page 1 again.
    const loop = JSON.stringify({ next: mergeCursor(0), previous: null, results: [] });
    fake.fail(1, { kind: "body", body: loop }, 2);
    const error = await failure(source().pull());
    expect(error.message).toMatch(/page 2 points back to a page already read/);
    expect(fake.requests.map((r) => r.page)).toEqual([1, 1]);
    await lastPullKept();
  });
});
