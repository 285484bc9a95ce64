/**
 * Broken API bodies: the real `reconcile` and `poll --once` commands against a loopback
 * service that answers garbage on one endpoint at a time. Each run ends (no endless pagination),
 * exits with a message naming the endpoint and what was wrong, archives nobody, and leaves the
 * poll cursors where they were.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CURSOR_NAMESPACE } from "../../src/alerts/poll-changes.js";
import { PASS_START_MARGIN_MS } from "../../src/alerts/poll-window.js";
import { openStateStore } from "../../src/store/state-store.js";
import { runCli } from "../cli/cli-harness.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { makePeople, toCsv } from "../helpers/roster-files.js";
import {
  type Answer,
  type BadApi,
  BROKEN,
  changeWire,
  type Endpoint,
  employeeWire,
  intParam,
  startBadApi,
} from "./support/bad-api-server.js";

let api: BadApi;
let slack: FakeSlack;
let dir: string;
let config: string;
let hris: string;
let runs = 0;

const LENS = "retention:1";
const CURSOR = "2026-11-20T00:00:00.000Z";

beforeAll(async () => {
  api = await startBadApi();
  slack = await startFakeSlack();
  dir = await mkdtemp(join(tmpdir(), "bad-api-"));
  config = join(dir, "retention-sync.yaml");
  // Small timeouts and one retry keep every broken case short; archiving is as eager as it goes.
  await writeFile(
    config,
    [
      "api:",
      "  requestsPerMinute: 10000",
      "  maxRetries: 1",
      "  timeoutSeconds: 2",
      "roster:",
      "  archiveAfterMissingRuns: 1",
      "  archiveUnknown: true",
      "  approveMassArchive: true",
      "  maxArchivePercent: 100",
      "",
    ].join("\n"),
  );
  // The HRIS file: the service's people 1-5 and one new hire (person-6).
  hris = join(dir, "hris.csv");
  await writeFile(hris, toCsv(makePeople(6, { prefix: "person", start: 1 })));
});

afterAll(async () => {
  await api?.close();
  await slack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  api.reset();
});

/** A fresh state database per run, with the retention lens's cursor already set. */
async function freshState(): Promise<string> {
  runs += 1;
  const path = join(dir, `state-${runs}.sqlite`);
  const store = await openStateStore(path);
  await store.namespace(CURSOR_NAMESPACE).set(LENS, CURSOR);
  await store.close();
  return path;
}

async function cursorIn(path: string): Promise<string | undefined> {
  const store = await openStateStore(path);
  try {
    return await store.namespace(CURSOR_NAMESPACE).get<string>(LENS);
  } finally {
    await store.close();
  }
}

async function cli(argv: string[], state: string) {
  const result = await runCli(["--config", config, ...argv], {
    RETENTION_API_URL: api.baseUrl,
    RETENTION_API_KEY: "rk_test_bad_bodies_0123456789",
    RETENTION_SYNC_STATE: state,
    SLACK_BOT_TOKEN: slack.token,
    SLACK_API_URL: slack.url,
    SLACK_CHANNEL: "#hr-alerts",
    LOG_LEVEL: "warn",
  });
  // Anything outside the error hierarchy would read "unexpected error": that is a crash path.
  expect(result.stderr).not.toMatch(/unexpected error/);
  return result;
}

const employees = (n: number, from: number) => Array.from({ length: n }, (_, i) => employeeWire(from + i));
const { networkUrl: _dropUrl, ...withoutUrl } = employeeWire(1);
const { id: _dropId, ...withoutId } = employeeWire(1);
const bigPage = { status: 200, body: { items: employees(60_000, 1), hasMore: false } };

/** Fresh rows on every page, `hasMore` forever, with a total that never moves. */
const endlessFresh: Answer = (r) => {
  const page = intParam(r, "page", 1);
  return { status: 200, body: { items: employees(5, page * 100), total: 5, page, pageSize: 100, hasMore: true } };
};

const employeeCases: Array<[string, Answer, RegExp]> = [
  [
    "an HTML page with 200",
    BROKEN.html200,
    /GET \/employees: unexpected response body \(status 200\): body is not JSON/,
  ],
  ["an HTML page with 502", BROKEN.html502, /GET \/employees failed with 502/],
  ["an empty 200 body", BROKEN.empty200, /GET \/employees: .*the body is empty/],
  ["{}", BROKEN.emptyObject, /GET \/employees: .*items: .*expected array/],
  ["null", BROKEN.jsonNull, /GET \/employees: .*the body is JSON null/],
  ["items that are not a list", { status: 200, body: { items: "none", hasMore: false } }, /items: .*expected array/],
  [
    "items with wrong types",
    { status: 200, body: { items: [employeeWire(1, { id: "one", tracked: "yes" })], hasMore: false } },
    /items\.0\.id: .*items\.0\.tracked: /,
  ],
  ["an employee without networkUrl", { status: 200, body: { items: [withoutUrl] } }, /items\.0\.networkUrl: /],
  ["an employee without id", { status: 200, body: { items: [withoutId] } }, /items\.0\.id: /],
  [
    "a negative total",
    { status: 200, body: { items: employees(5, 1), total: -5, hasMore: true } },
    /total: .*>=0|total: Too small/,
  ],
  ["an absurd total", { status: 200, body: { items: employees(5, 1), total: 1e15, hasMore: true } }, /total: Too big/],
  ["hasMore forever with fresh rows", endlessFresh, /page 2: hasMore is still true past the 5 rows/],
  [
    "the same page served again and again",
    { status: 200, body: { items: employees(5, 1), total: 500, page: 1, pageSize: 100, hasMore: true } },
    /page: asked for page 2, the server answered page 1/,
  ],
  [
    "the same rows again, without page numbers",
    { status: 200, body: { items: employees(5, 1), hasMore: true } },
    /page 4: 3 pages in a row repeat rows already seen/,
  ],
  ["an empty page with hasMore", { status: 200, body: { items: [], hasMore: true } }, /page is empty but hasMore/],
  ["a 20 MB page", bigPage, /items: 60000 rows on one page, more than the pageSize 100/],
  ["truncated JSON", BROKEN.truncated, /GET \/employees: .*body is not JSON/],
  ["JSON nested 100,000 levels deep", BROKEN.deeplyNested, /GET \/employees: .*items\.0: /],
];

const billingCases: Array<[string, Answer, RegExp]> = [
  ["required blocks missing", { status: 200, body: { organizationId: 1 } }, /GET \/billing: .*seats: .*plan: /],
  ["an HTML page with 200", BROKEN.html200, /GET \/billing: .*body is not JSON/],
  ["a plan that is a string", { status: 200, body: { organizationId: 1, plan: "gold" } }, /GET \/billing: .*plan: /],
];

const bulkCases: Array<[string, Answer, RegExp]> = [
  ["an HTML page with 200", BROKEN.html200, /POST \/employees\/bulk: unexpected response body.*not JSON/],
  ["{}", BROKEN.emptyObject, /POST \/employees\/bulk: .*added: required/],
  ["null", BROKEN.jsonNull, /POST \/employees\/bulk: .*JSON null/],
  ["truncated JSON", BROKEN.truncated, /POST \/employees\/bulk: .*not JSON/],
  ["added that is a word", { status: 200, body: { added: "yes", skipped: {} } }, /added: required.*skipped: /],
];

describe("reconcile against broken bodies", () => {
  it("control: a well-formed service gets the archive and the add (so the no-write checks can fail)", async () => {
    api.shape({ roster: [1, 2, 3, 4, 5, 99] });
    const result = await cli(["reconcile", "--file", hris], await freshState());
    expect(result.code).toBe(0);
    expect(api.writes().map((w) => `${w.method} ${w.path}`)).toEqual(["PATCH /employees/99", "POST /employees/bulk"]);
  });

  const broken = (endpoint: Endpoint, cases: Array<[string, Answer, RegExp]>) =>
    cases.map(([name, answer, says]) => [`${endpoint}: ${name}`, endpoint, answer, says] as const);

  it.each([...broken("GET /employees", employeeCases), ...broken("GET /billing", billingCases)])(
    "%s: exit 1, the endpoint named, nothing written",
    async (_name, endpoint, answer, says) => {
      // Person 99 is on the service but not in the file: any run that got through would archive them.
      api.shape({ roster: [1, 2, 3, 4, 5, 99] });
      api.set({ [endpoint]: answer });
      const result = await cli(["reconcile", "--file", hris], await freshState());
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^retention-sync: error: /m);
      expect(result.stderr).toMatch(says);
      expect(result.stdout).toBe("");
      expect(api.writes()).toEqual([]);
      expect(api.requests.length).toBeLessThanOrEqual(8);
    },
  );

  it.each(broken("POST /employees/bulk", bulkCases))(
    "%s: the add is reported as failed by endpoint, sent once, nobody archived",
    async (_name, endpoint, answer, says) => {
      api.set({ [endpoint]: answer });
      const result = await cli(["reconcile", "--file", hris], await freshState());
      expect(result.code).toBe(3);
      // Every person of the chunk is named as unconfirmed, not only the first URL.
      expect(result.stdout).toMatch(
        /failed \(1\):\n\s+add person 6 \(E000006, \w+\) https:\/\/www\.linkedin\.com\/in\/person-6: /,
      );
      expect(result.stdout).toMatch(says);
      expect(api.writes().map((w) => `${w.method} ${w.path}`)).toEqual(["POST /employees/bulk"]);
    },
  );
});

describe("poll --once against broken bodies", () => {
  /** The cursor a successful pass commits: the newest change read, or at least its start less a minute. */
  function expectPassCursor(cursor: string | undefined, startedAt: number, endedAt: number): void {
    const ms = Date.parse(cursor ?? "");
    expect(ms).toBeGreaterThanOrEqual(startedAt - PASS_START_MARGIN_MS);
    expect(ms).toBeLessThanOrEqual(endedAt);
  }

  it("control: a well-formed change moves the cursor and posts (so the cursor checks can fail)", async () => {
    api.shape({ changes: [changeWire(1, { detectedAt: "2026-11-22T10:00:00Z" })] });
    const state = await freshState();
    const before = slack.posted().length;
    const startedAt = Date.now();
    const result = await cli(["poll", "--once"], state);
    expect(result.code).toBe(0);
    expect(slack.posted().length).toBe(before + 1);
    expectPassCursor(await cursorIn(state), startedAt, Date.now());
  });

  it("a change dated 9999-12-31 is posted, but the cursor does not follow it (later changes still arrive)", async () => {
    api.shape({
      changes: [
        changeWire(1, { detectedAt: "2026-11-22T10:00:00Z" }),
        changeWire(2, { detectedAt: "9999-12-31T00:00:00Z" }),
      ],
    });
    const state = await freshState();
    const before = slack.posted().length;
    const startedAt = Date.now();
    expect((await cli(["poll", "--once"], state)).code).toBe(0);
    expect(slack.posted().length).toBe(before + 2);
    expectPassCursor(await cursorIn(state), startedAt, Date.now());
  });

  it("a stored cursor in the future (written from such a change) is dropped: polling restarts from the look-back", async () => {
    const recent = new Date(Date.now() - 3_600_000).toISOString();
    api.shape({ changes: [changeWire(3, { detectedAt: recent })] });
    const state = await freshState();
    const store = await openStateStore(state);
    await store.namespace(CURSOR_NAMESPACE).set(LENS, "9999-12-31T00:00:00.000Z");
    await store.close();
    const before = slack.posted().length;
    const startedAt = Date.now();
    const result = await cli(["poll", "--once"], state);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/stored cursor of retention:1 is in the future/);
    expect(slack.posted().length).toBe(before + 1);
    expectPassCursor(await cursorIn(state), startedAt, Date.now());
  });

  const lensCases: Array<[string, Endpoint, Answer, RegExp]> = [
    ["GET /me: an HTML page with 200", "GET /me", BROKEN.html200, /GET \/me: .*body is not JSON/],
    ["GET /me: an HTML page with 502", "GET /me", BROKEN.html502, /GET \/me failed with 502/],
    ["GET /me: an empty 200 body", "GET /me", BROKEN.empty200, /GET \/me: .*the body is empty/],
    ["GET /me: {}", "GET /me", BROKEN.emptyObject, /GET \/me: .*organization: /],
    ["GET /me: null", "GET /me", BROKEN.jsonNull, /GET \/me: .*JSON null/],
    ["GET /me: garbage fields", "GET /me", { status: 200, body: { organization: "Acme" } }, /organization: /],
    [
      "GET /me: competitors that are not a list",
      "GET /me",
      { status: 200, body: { organization: { id: 1, name: "Own" }, competitors: {}, scopes: ["read"] } },
      /GET \/me: .*competitors: .*expected array/,
    ],
    [
      "GET /me: a competitor workspace without id",
      "GET /me",
      { status: 200, body: { organization: { id: 1, name: "Own" }, competitors: [{ name: "Globex" }], scopes: [] } },
      /GET \/me: .*competitors\.0\.id: /,
    ],
  ];

  it.each(lensCases)("%s: exit 1, the endpoint named, cursor kept", async (_name, endpoint, answer, says) => {
    api.set({ [endpoint]: answer });
    const state = await freshState();
    const result = await cli(["poll", "--once"], state);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/poll: could not read changes: /);
    expect(result.stderr).toMatch(says);
    expect(await cursorIn(state)).toBe(CURSOR);
    expect(api.writes()).toEqual([]);
  });

  const sameChangePage: Answer = {
    status: 200,
    body: { items: [changeWire(1)], total: 900, page: 1, pageSize: 100, hasMore: true },
  };
  const changeCases: Array<[string, Answer, RegExp]> = [
    ["garbage items", { status: 200, body: { items: [{ foo: 1 }], hasMore: false } }, /items\.0\.changeType: required/],
    ["items that are not a list", { status: 200, body: { items: { a: 1 } } }, /items: .*expected array/],
    ["an HTML page with 200", BROKEN.html200, /body is not JSON/],
    ["truncated JSON", BROKEN.truncated, /body is not JSON/],
    ["the same page again and again", sameChangePage, /asked for page 2, the server answered page 1/],
    [
      "hasMore forever with empty pages",
      { status: 200, body: { items: [], hasMore: true } },
      /page is empty but hasMore/,
    ],
  ];

  it.each(changeCases)(
    "GET /changes: %s: the only lens fails (exit 1), endpoint named, cursor kept, nothing posted",
    async (_name, answer, says) => {
      api.set({ "GET /changes": answer });
      const state = await freshState();
      const before = slack.posted().length;
      const result = await cli(["poll", "--once"], state);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/poll: could not read changes of retention:1: .*GET \/changes: /);
      expect(result.stderr).toMatch(/GET \/changes: /);
      expect(result.stderr).toMatch(says);
      expect(await cursorIn(state)).toBe(CURSOR);
      expect(slack.posted()).toHaveLength(before);
    },
  );
});
