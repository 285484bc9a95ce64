/**
 * The `https` roster source against a local fake of Workday RaaS and of a Bearer-token report
 * (test/helpers/fakes/https-fake.ts): what a complete pull is, what each failure does, and the
 * conditional GET (ETag / Last-Modified, 304).
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSchema, rosterSourceSchema } from "../../../src/config/schema.js";
import { RosterPullError, RosterSourceAuthError } from "../../../src/errors.js";
import { readRoster, rosterReadOptions } from "../../../src/roster/read-roster.js";
import { rosterSource } from "../../../src/roster/sources/open-source.js";
import type { PulledExport, RosterSource } from "../../../src/roster/sources/roster-source.js";
import { type HttpsFake, startHttpsFake, workdayRows } from "../../helpers/fakes/https-fake.js";

let fake: HttpsFake;
let pullDir: string;
/** Retry waits asked for, in ms: the source's sleep seam, instant here. */
let waits: number[];
let clock: Date;

beforeEach(async () => {
  fake = await startHttpsFake();
  pullDir = await mkdtemp(join(tmpdir(), "rs-https-pulls-"));
  waits = [];
  clock = new Date("2026-11-20T02:00:00Z");
});
afterEach(async () => {
  await fake.close();
  await rm(pullDir, { recursive: true, force: true });
});

type SourceInput = Record<string, unknown>;

/** The https source as `roster.source` configures it: the fake's RaaS JSON URL and its ISU by default. */
function open(
  input: SourceInput = {},
  env: NodeJS.ProcessEnv = { HRIS_PASSWORD: fake.password },
  unchecked: SourceInput = {},
): RosterSource {
  const parsed = rosterSourceSchema.parse({ type: "https", url: fake.raasUrl("json"), username: fake.user, ...input });
  // `unchecked`: what the schema would refuse over plain HTTP but lets through over HTTPS.
  const config = { ...parsed, ...unchecked } as typeof parsed;
  const source = rosterSource(config, {
    env,
    pullDir,
    http: {
      sleep: async (ms) => {
        waits.push(ms);
      },
    },
    now: () => clock,
  });
  if (!source) throw new Error("no source");
  return source;
}

async function names(pulled: PulledExport, settings: Record<string, unknown> = {}): Promise<string[]> {
  const rules = configSchema.parse({ roster: { file: pulled.file, ...settings } }).roster;
  const roster = await readRoster({
    ...rosterReadOptions(rules, pulled.file, new Date("2026-11-26T12:00:00Z")),
    ...(pulled.format === "auto" ? {} : { format: pulled.format }),
  });
  return roster.people.map((p) => p.name ?? "");
}

/** The files in the pull folder: the kept export and its facts, never a part file. */
async function kept(): Promise<string[]> {
  return (await readdir(pullDir).catch(() => [] as string[])).sort();
}

async function failure(promise: Promise<unknown>): Promise<RosterPullError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RosterPullError);
  return error as RosterPullError;
}

describe("https source: Workday RaaS", () => {
  it("pulls the custom report as JSON with the integration system user's Basic credential, whole, into one kept file", async () => {
    const pulled = await open().pull();
    expect(fake.requests).toEqual([
      {
        path: "/ccx/service/customreport2/acme/ISU_Retention/Retention_Roster",
        query: { format: "json" },
        auth: "basic ISU_Retention",
        status: 200,
      },
    ]);
    expect(pulled.origin).toBe(`${fake.origin}/ccx/service/customreport2/acme/ISU_Retention/Retention_Roster`);
    expect(pulled.file).toBe(join(pullDir, "https.json"));
    expect(pulled.facts).toMatchObject({ bytes: expect.any(Number), etag: expect.any(String) });
    // The export's time is when the pull completed; only the owner may read it.
    const info = await stat(pulled.file);
    expect(info.mtime.toISOString()).toBe(clock.toISOString());
    expect(info.mode & 0o077).toBe(0);
    expect(await kept()).toEqual(["https.json", "https.meta.json"]);
    expect(await names(pulled)).toEqual(
      expect.arrayContaining(["Ana Lima", "Ben Okafor", "Chloé Martin", "Dev Patel"]),
    );
  });

  it("pulls the same report as CSV (format=csv), read by the Workday preset from its column headings", async () => {
    const pulled = await open({ url: fake.raasUrl("csv") }).pull();
    expect(fake.requests[0]?.query).toEqual({ format: "csv" });
    expect(pulled.file).toBe(join(pullDir, "https.csv"));
    expect((await readFile(pulled.file, "utf8")).split("\r\n")[0]).toMatch(/^Employee ID,Worker,Name,/);
    expect(await names(pulled)).toEqual(expect.arrayContaining(["Ana Lima", "Ben Okafor", "Dev Patel"]));
  });

  it("keeps the report's prompts in the URL it asks for, and shows only the origin and path", async () => {
    const url = fake.raasUrl("json", { Effective_as_of_Date: "2026-11-20-08:00" });
    const pulled = await open({ url }).pull();
    expect(fake.requests[0]?.query).toEqual({ Effective_as_of_Date: "2026-11-20-08:00", format: "json" });
    expect(pulled.origin).not.toContain("?");
  });

  it("format: json reads the answer as JSON whatever its name or type", async () => {
    const pulled = await open({ format: "json" }).pull();
    expect(pulled.format).toBe("json");
    expect(pulled.file).toBe(join(pullDir, "https.json"));
  });

  it("a URL without format=json gets Workday's XML, which is read as nothing and refused by the reader", async () => {
    const pulled = await open({ url: fake.raasUrl("xml") }).pull();
    expect(pulled.file).toBe(join(pullDir, "https.export"));
    await expect(names(pulled)).rejects.toThrow();
  });
});

describe("https source: any report URL with a token", () => {
  it("sends HRIS_TOKEN as a Bearer token (the environment wins over the config file)", async () => {
    const source = open(
      { url: fake.exportUrl("csv"), username: undefined, token: "not-the-token" },
      {
        HRIS_TOKEN: fake.token,
      },
    );
    const pulled = await source.pull();
    expect(fake.requests).toEqual([{ path: "/exports/roster.csv", query: {}, auth: "bearer", status: 200 }]);
    expect(pulled.file).toBe(join(pullDir, "https.csv"));
    expect(await names(pulled)).toEqual(expect.arrayContaining(["Ana Lima"]));
  });

  it("an NDJSON answer (application/x-ndjson) is kept as .ndjson and read line by line", async () => {
    const pulled = await open(
      { url: fake.exportUrl("ndjson"), username: undefined },
      { HRIS_TOKEN: fake.token },
    ).pull();
    expect(pulled.file).toBe(join(pullDir, "https.ndjson"));
    // Lines of Workday rows without RaaS's wrapper: recognised by nothing, so the preset is named.
    expect(await names(pulled, { mapping: "workday" })).toEqual(
      expect.arrayContaining(["Ana Lima", "Ben Okafor", "Dev Patel"]),
    );
  });

  it("a wrong token is refused: RosterSourceAuthError, exit 2, no retry, nothing kept", async () => {
    const error = await failure(
      open({ url: fake.exportUrl("json"), username: undefined }, { HRIS_TOKEN: "wrong-token-123" }).pull(),
    );
    expect(error).toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(/refused the credential \(401\)/);
    expect(error.message).not.toContain("wrong-token-123");
    expect(fake.requests).toHaveLength(1);
    expect(await kept()).toEqual([]);
  });
});

describe("https source: credentials", () => {
  it("a wrong ISU password is a 401: RosterSourceAuthError (exit 2), one request, no file, no secret in the message", async () => {
    const error = await failure(open({}, { HRIS_PASSWORD: "wrong-password-1" }).pull());
    expect(error).toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain("/ccx/service/customreport2/acme/ISU_Retention/Retention_Roster");
    expect(error.message).not.toContain("wrong-password-1");
    expect(fake.requests.map((r) => r.status)).toEqual([401]);
    expect(waits).toEqual([]);
    expect(await kept()).toEqual([]);
  });

  it("a user without access to the report is a 403: exit 2", async () => {
    await fake.close();
    fake = await startHttpsFake({ usersWithoutAccess: { ISU_Other: "other-isu-password-9" } });
    const error = await failure(open({ username: "ISU_Other" }, { HRIS_PASSWORD: "other-isu-password-9" }).pull());
    expect(error).toBeInstanceOf(RosterSourceAuthError);
    expect(error.message).toMatch(/\(403\)/);
  });

  it("a username without a password, a password without a username, or a user in the URL is refused before any request", async () => {
    const inline = { url: fake.raasUrl("json").replace("http://", "http://ISU_Retention:inline-secret-77@") };
    for (const [input, env, unchecked, why] of [
      [{}, {}, {}, /and no password is set: put it in HRIS_PASSWORD/],
      [
        { username: undefined },
        { HRIS_PASSWORD: fake.password },
        {},
        /HRIS_PASSWORD is set but roster.source.username is not/,
      ],
      [{ username: undefined }, {}, inline, /the URL carries a user name or password/],
      [{ username: undefined }, { HRIS_TOKEN: fake.token }, inline, /the URL carries a user name or password/],
    ] as const) {
      const error = await failure(open(input, env, unchecked).pull());
      expect(error).toBeInstanceOf(RosterSourceAuthError);
      expect(error.message).toMatch(why);
      expect(error.message).not.toContain("inline-secret-77");
    }
    expect(fake.requests).toEqual([]);
  });

  it("the report's path is checked after the credential: an unknown report is a 404, exit 1", async () => {
    const error = await failure(
      open({ url: `${fake.origin}/ccx/service/customreport2/acme/ISU_Retention/Nope?format=json` }).pull(),
    );
    expect(error).not.toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/answered 404/);
  });
});

describe("https source: failed and cut pulls", () => {
  /** A good pull first: a failed one must leave it as it was. */
  async function goodPull(): Promise<{ file: string; content: string; mtime: number }> {
    const pulled = await open().pull();
    return {
      file: pulled.file,
      content: await readFile(pulled.file, "utf8"),
      mtime: (await stat(pulled.file)).mtimeMs,
    };
  }

  async function expectUntouched(before: { file: string; content: string; mtime: number }): Promise<void> {
    expect(await readFile(before.file, "utf8")).toBe(before.content);
    expect((await stat(before.file)).mtimeMs).toBe(before.mtime);
    expect((await kept()).filter((f) => f.endsWith(".part"))).toEqual([]);
  }

  it("a 5xx that retries do not cure: four tries with backoff, then RosterPullError (exit 1), the last good pull untouched", async () => {
    const before = await goodPull();
    fake.setRows(workdayRows(3));
    fake.failTimes({ kind: "status", status: 500 }, 4);
    clock = new Date("2026-11-21T02:00:00Z");
    const error = await failure(open().pull());
    expect(error).not.toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/answered 500 \(4 tries\); the next schedule tries again/);
    expect(waits).toEqual([1000, 2000, 4000]);
    await expectUntouched(before);
  });

  it("a 5xx that a retry cures is a complete pull", async () => {
    fake.fail({ kind: "status", status: 502 }, { kind: "status", status: 504 });
    const pulled = await open().pull();
    expect(fake.requests.map((r) => r.status)).toEqual([502, 504, 200]);
    expect(await names(pulled)).toContain("Ana Lima");
  });

  it("a 429 and a 503 with Retry-After are waited for as they say, then the report is pulled", async () => {
    fake.fail({ kind: "status", status: 429, retryAfter: "7" }, { kind: "status", status: 503, retryAfter: "2" });
    const pulled = await open().pull();
    expect(waits).toEqual([7000, 2000]);
    expect(fake.requests.map((r) => r.status)).toEqual([429, 503, 200]);
    expect(pulled.facts.bytes).toBeGreaterThan(0);
  });

  it("a Retry-After longer than a run waits fails the pull at once (exit 1)", async () => {
    fake.fail({ kind: "status", status: 503, retryAfter: "3600" });
    const error = await failure(open().pull());
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/asking to wait 3600 s: longer than a run waits/);
    expect(waits).toEqual([]);
    expect(await kept()).toEqual([]);
  });

  it("a body cut short of its Content-Length is retried; cut every time, the pull fails and keeps nothing of it", async () => {
    const before = await goodPull();
    fake.setRows(workdayRows(40));
    fake.failTimes({ kind: "cut", how: "content-length" }, 4);
    const error = await failure(open().pull());
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/the answer was cut/);
    expect(fake.requests.slice(1).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    await expectUntouched(before);
  });

  it("a chunked body ended without its last chunk fails the pull the same way", async () => {
    const before = await goodPull();
    fake.setRows(workdayRows(40));
    fake.failTimes({ kind: "cut", how: "chunked" }, 4);
    const error = await failure(open().pull());
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/the answer was cut/);
    await expectUntouched(before);
  });

  it("a body cut once and whole the next time is a complete pull", async () => {
    fake.setRows(workdayRows(40));
    fake.fail({ kind: "cut", how: "content-length" });
    const pulled = await open().pull();
    expect(await names(pulled)).toHaveLength(40);
  });

  it("a server that never answers, or stops inside its answer, times out on every try: exit 1", async () => {
    const before = await goodPull();
    fake.setRows(workdayRows(40));
    fake.failTimes({ kind: "stall", phase: "headers" }, 4);
    const silent = await failure(open({ timeoutSeconds: "1s" }).pull());
    expect(silent.exitCode).toBe(1);
    expect(silent.message).toMatch(/did not answer \(UND_ERR_HEADERS_TIMEOUT.*\(4 tries\)/);
    fake.failTimes({ kind: "stall", phase: "body" }, 4);
    const stopped = await failure(open({ timeoutSeconds: "1s" }).pull());
    expect(stopped.message).toMatch(/the answer was cut \(UND_ERR_BODY_TIMEOUT.*\(4 tries\)/);
    await expectUntouched(before);
  });

  it("a report bigger than maxBytes fails the pull (exit 1) without a retry, and nothing of it is kept", async () => {
    const before = await goodPull();
    fake.setRows(workdayRows(200));
    const error = await failure(open({ maxBytes: 4096 }).pull());
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/longer than 4096 bytes \(roster.source.maxBytes\); nothing was read/);
    expect(fake.requests).toHaveLength(2);
    await expectUntouched(before);
  });

  it("a redirect within the same origin is followed, with the credential", async () => {
    const target = fake.raasUrl("json").replace(fake.origin, "");
    fake.fail({ kind: "redirect", location: target.replace("format=json", "format=json&redirected=1"), status: 302 });
    const pulled = await open().pull();
    expect(fake.requests.map((r) => [r.status, r.auth])).toEqual([
      [302, "basic ISU_Retention"],
      [200, "basic ISU_Retention"],
    ]);
    expect(fake.requests[1]?.query).toEqual({ format: "json", redirected: "1" });
    expect(await names(pulled)).toContain("Ana Lima");
  });

  it("a redirect to another host is not followed: RosterPullError (exit 1), the other host never asked", async () => {
    const other = await startHttpsFake({ host: "127.0.0.2" });
    try {
      fake.fail({ kind: "redirect", location: other.raasUrl("json") });
      const error = await failure(open().pull());
      expect(error).not.toBeInstanceOf(RosterSourceAuthError);
      expect(error.exitCode).toBe(1);
      expect(error.message).toMatch(/redirected to another origin \(http:\/\/127\.0\.0\.2:\d+\)/);
      expect(other.requests).toEqual([]);
      expect(await kept()).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("an empty but valid report is a complete pull; the reader refuses it as everyone leaving", async () => {
    fake.setRows([]);
    const pulled = await open().pull();
    expect(await readFile(pulled.file, "utf8")).toBe('{"Report_Entry":[]}');
    await expect(names(pulled)).rejects.toThrow(
      /holds no people; refusing to treat an empty export as everyone leaving/,
    );
  });
});

describe("https source: conditional GET", () => {
  it("sends the ETag and Last-Modified back; a 304 is a complete pull of the same export, its time moved to now", async () => {
    const first = await open().pull();
    const content = await readFile(first.file, "utf8");
    // Times with milliseconds: a file's time set in ms reads back a hair off (…122.999 for .123).
    clock = new Date("2026-11-21T02:00:00.123Z");
    const second = await open().pull();
    const [, again] = fake.requests;
    expect(again?.ifNoneMatch).toMatch(/^"[0-9a-f]+"$/);
    expect(again?.ifModifiedSince).toMatch(/GMT$/);
    expect(again?.status).toBe(304);
    expect(second.file).toBe(first.file);
    expect(second.facts).toEqual({ notModified: true, bytes: first.facts.bytes, etag: first.facts.etag });
    expect(await readFile(second.file, "utf8")).toBe(content);
    expect((await stat(second.file)).mtime.toISOString()).toBe(clock.toISOString());

    // And again the next night: the kept file is still the one the validators are of.
    clock = new Date("2026-11-22T02:00:00.007Z");
    const third = await open().pull();
    expect(third.facts.notModified).toBe(true);
    expect(fake.requests.map((r) => r.status)).toEqual([200, 304, 304]);
    expect((await stat(third.file)).mtime.toISOString()).toBe(clock.toISOString());
  });

  it("a changed report answers 200 with a new ETag, and the new export replaces the kept one", async () => {
    await open().pull();
    fake.setRows(workdayRows(2), new Date(Date.now() + 5000));
    const second = await open().pull();
    expect(fake.requests[1]?.status).toBe(200);
    expect(second.facts.notModified).toBeUndefined();
    expect(await names(second)).toEqual(["worker 0", "worker 1"]);
  });

  it("with only Last-Modified, If-Modified-Since alone gets the 304", async () => {
    fake.validators({ etag: false, lastModified: true });
    const first = await open().pull();
    expect(first.facts.etag).toBeUndefined();
    const second = await open().pull();
    expect(fake.requests[1]).toMatchObject({ status: 304, ifModifiedSince: expect.stringMatching(/GMT$/) });
    expect(fake.requests[1]?.ifNoneMatch).toBeUndefined();
    expect(second.facts).toEqual({ notModified: true, bytes: first.facts.bytes });
  });

  it("without validators every pull is whole", async () => {
    fake.validators({ etag: false, lastModified: false });
    await open().pull();
    await open().pull();
    expect(fake.requests.map((r) => [r.status, r.ifNoneMatch, r.ifModifiedSince])).toEqual([
      [200, undefined, undefined],
      [200, undefined, undefined],
    ]);
  });

  it("the validators of another URL are not sent, and the export of the other format is not left behind", async () => {
    await open().pull();
    const csv = await open({ url: fake.raasUrl("csv") }).pull();
    expect(fake.requests[1]).toEqual({
      path: "/ccx/service/customreport2/acme/ISU_Retention/Retention_Roster",
      query: { format: "csv" },
      auth: "basic ISU_Retention",
      status: 200,
    });
    expect(csv.file).toBe(join(pullDir, "https.csv"));
    expect(await kept()).toEqual(["https.csv", "https.meta.json"]);
    // Back to JSON: its ETag was forgotten with the CSV pull, so this is whole again.
    await open().pull();
    expect(fake.requests[2]).toMatchObject({ query: { format: "json" }, status: 200 });
    expect(fake.requests[2]?.ifNoneMatch).toBeUndefined();
  });

  it("when the kept file is gone or is not the one the validators are of, no validators are sent", async () => {
    const first = await open().pull();
    await rm(first.file);
    await open().pull();
    expect(fake.requests[1]).toMatchObject({ status: 200 });
    expect(fake.requests[1]?.ifNoneMatch).toBeUndefined();

    // Another file in its place (another pull's, a restore): not the export the validators name.
    await writeFile(first.file, '{"Report_Entry":[]}');
    await open().pull();
    expect(fake.requests[2]).toMatchObject({ status: 200 });
    expect(fake.requests[2]?.ifNoneMatch).toBeUndefined();
    expect(await names({ ...first })).toContain("Ana Lima");
  });

  it("a 304 for a kept file removed while the request was out fails the pull (exit 1); the next pull is whole", async () => {
    const first = await open().pull();
    fake.onNextRequest(() => rm(first.file));
    const error = await failure(open().pull());
    expect(fake.requests[1]?.status).toBe(304);
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/answered 304 but the kept export is gone; the next run pulls it whole/);
    const next = await open().pull();
    expect(fake.requests[2]).toMatchObject({ status: 200 });
    expect(await names(next)).toContain("Ana Lima");
  });

  it("a 304 to a request that named no earlier pull fails the pull (exit 1) rather than read nothing", async () => {
    fake.fail({ kind: "status", status: 304 });
    const error = await failure(open().pull());
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/answered 304 Not Modified to a request that named no earlier pull/);
    expect(await kept()).toEqual([]);
  });

  it("a failed pull after a good one keeps the validators: the next pull may still be a 304", async () => {
    await open().pull();
    fake.failTimes({ kind: "status", status: 500 }, 4);
    await failure(open().pull());
    const pulled = await open().pull();
    expect(pulled.facts.notModified).toBe(true);
  });
});
