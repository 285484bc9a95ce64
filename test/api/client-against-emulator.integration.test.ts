import { type EmulatorHandle, startEmulator } from "@retention-sync/emulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateLimiter, RetentionClient, type RetentionClientOptions, resolvedCompanyName } from "../../src/api/index.js";
import {
  type ApiError,
  ApiResponseError,
  ApiTimeoutError,
  AuthenticationError,
  ConflictError,
  NotFoundError,
  PermissionError,
  ServerError,
} from "../../src/errors.js";

let emu: EmulatorHandle;
const clients: RetentionClient[] = [];

function client(options: Partial<RetentionClientOptions> = {}): RetentionClient {
  const c = new RetentionClient({
    baseUrl: emu.baseUrl,
    apiKey: emu.writeKey,
    retryBaseDelayMs: 5,
    timeoutMs: 5_000,
    rateLimiter: new RateLimiter({ requestsPerMinute: 6_000 }),
    ...options,
  });
  clients.push(c);
  return c;
}

async function control(path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${emu.url}/_emulator/${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`control ${path} answered ${res.status}: ${await res.text()}`);
  const text = await res.text();
  return text === "" ? undefined : JSON.parse(text);
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

const url = (slug: string) => `https://www.linkedin.com/in/${slug}`;

beforeAll(async () => {
  emu = await startEmulator({ seed: "empty", importDelayMs: 0, signalIntervalMs: 0, rateLimitPerMinute: 100_000 });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await emu.close();
});

describe("RetentionClient against the emulator", () => {
  it("introspects the key, reads and edits the organization, reads billing", async () => {
    const c = client();
    const me = await c.me();
    expect(me.organization.id).toBe(emu.organizationId);
    expect(me.scopes).toContain("write");
    const org = await c.getOrganization();
    expect(org).toMatchObject({ id: emu.organizationId, kind: "primary" });
    const updated = await c.updateOrganization({ alertRiskThreshold: 0.75 });
    expect(updated.alertRiskThreshold).toBe(0.75);
    const billing = await c.getBilling();
    expect(billing.organizationId).toBe(emu.organizationId);
    expect(billing.seatSettlement).toBeDefined();
  });

  it("adds, reads, pages, updates, archives and erases people", async () => {
    const c = client();
    const first = await c.addEmployee({ networkUrl: url("ada-lovelace"), name: "Ada" });
    expect(first.outcome).toBe("created");
    const id = first.employee?.id ?? 0;
    expect(id).toBeGreaterThan(0);
    expect(await c.addEmployee({ networkUrl: url("ada-lovelace") })).toEqual({
      outcome: "already-exists",
      afterRetry: false,
    });
    for (const slug of ["b-one", "b-two", "b-three", "b-four"]) await c.addEmployee({ networkUrl: url(slug) });
    const walked: number[] = [];
    for await (const e of c.iterateEmployees({ pageSize: 2 })) walked.push(e.id);
    expect(walked).toHaveLength(5);
    expect(new Set(walked).size).toBe(5);
    const page = await c.listEmployees({ pageSize: 2 });
    expect(page).toMatchObject({ page: 1, pageSize: 2, total: 5, hasMore: true });

    expect((await c.getEmployee(id)).networkUrl).toContain("ada-lovelace");
    expect((await c.updateEmployee(id, { tracked: false })).tracked).toBe(false);
    await c.deleteEmployee(id);
    expect((await c.getEmployee(id)).status).toBe("archived");
    await c.deleteEmployee(id, { permanent: true });
    expect(await caught(c.getEmployee(id))).toBeInstanceOf(NotFoundError);
  });

  it("bulk-adds with skipped items normalized to kinds", async () => {
    const c = client();
    await c.addEmployee({ networkUrl: url("dup-person") });
    const result = await c.bulkAddEmployees({
      networkUrls: [url("bulk-one"), url("bulk-two"), url("dup-person"), "https://example.com/not-a-profile"],
    });
    expect(result.addedCount).toBe(2);
    expect(result.added.every((a) => a.employee !== undefined)).toBe(true);
    expect(result.skipped.map((s) => s.kind).sort()).toEqual(["duplicate", "invalid_url"]);
    expect(result.seatAllowance?.perDay).toBeGreaterThan(0);
  });

  it("reads the change feed and a person's changes", async () => {
    const c = client();
    const added = await c.addEmployee({ networkUrl: url("signal-person") });
    const employeeId = added.employee?.id ?? 0;
    await control("signals", { count: 3, employeeId });
    await control("signals", { count: 4 });
    const all = [];
    for await (const change of c.iterateChanges({ pageSize: 2 })) all.push(change);
    expect(all.length).toBeGreaterThanOrEqual(7);
    expect(new Set(all.map((x) => x.key)).size).toBe(all.length);
    expect(all.every((x) => ["high", "watch", "low"].includes(x.riskLevel))).toBe(true);
    const mine = await c.listEmployeeChanges(employeeId);
    expect(mine.items.length).toBeGreaterThanOrEqual(3);
    expect(mine.items.every((x) => x.employeeId === employeeId)).toBe(true);
    const since = await c.listChanges({ since: new Date(Date.now() + 86_400_000 * 365).toISOString() });
    expect(since.items).toHaveLength(0);
  });

  it("manages competitor workspaces, including the identity mismatch", async () => {
    const c = client();
    const mismatch = await caught(
      c.addCompetitor({ companyNetworkUrl: "https://www.linkedin.com/company/initech", name: "Globex" }),
    );
    expect(mismatch).toBeInstanceOf(ConflictError);
    expect((mismatch as ApiError).code).toBe("COMPETITOR_IDENTITY_MISMATCH");
    expect(resolvedCompanyName((mismatch as ApiError).body)).toBe("Initech");
    const created = await c.addCompetitor({
      companyNetworkUrl: "https://www.linkedin.com/company/initech",
      name: "Initech",
      roleFilters: ["engineering"],
    });
    expect(created.id).toBeGreaterThan(0);
    expect((await c.listCompetitors()).map((x) => x.id)).toContain(created.id);
    expect((await c.getCompetitor(created.id)).roleFilters).toEqual(["engineering"]);
    expect((await c.updateCompetitor(created.id, { paused: true })).paused).toBe(true);
    await c.deleteCompetitor(created.id);
    expect(await caught(c.getCompetitor(created.id))).toBeInstanceOf(NotFoundError);
  });

  it("manages webhook endpoints; the secret comes only on creation", async () => {
    const c = client();
    const created = await c.addWebhook({ url: "https://hooks.example.com/retention", employeeWarningSensitivity: 2 });
    expect(created.id).toMatch(/^whe_/);
    expect(created.secret).toBeTruthy();
    const listed = await c.listWebhooks();
    expect(listed.find((w) => w.id === created.id)).not.toHaveProperty("secret");
    expect((await c.updateWebhook(created.id, { enabled: false })).enabled).toBe(false);
    await c.deleteWebhook(created.id);
    expect((await c.listWebhooks()).map((w) => w.id)).not.toContain(created.id);
  });

  it("maps auth and scope failures", async () => {
    const readOnly = client({ apiKey: emu.readKey });
    expect((await readOnly.me()).scopes).not.toContain("write");
    const denied = await caught(readOnly.addEmployee({ networkUrl: url("nope") }));
    expect(denied).toBeInstanceOf(PermissionError);
    expect((denied as ApiError).code).toBe("INSUFFICIENT_SCOPE");
    const wrongKey = "rs_wrong_key_0123456789abcdef";
    const unknown = await caught(client({ apiKey: wrongKey }).me());
    expect(unknown).toBeInstanceOf(AuthenticationError);
    expect((unknown as Error).message).not.toContain(wrongKey);
  });

  it("rides out injected 5xx faults on reads", async () => {
    await control("faults", { errorRate: 0.5 });
    try {
      const c = client({ maxRetries: 10, sleep: async () => {} });
      for (let i = 0; i < 5; i += 1) expect((await c.me()).organization.id).toBe(emu.organizationId);
    } finally {
      await control("faults", { errorRate: 0, timeoutRate: 0, malformedRate: 0 });
    }
    const noRetry = client({ maxRetries: 0 });
    await control("faults", { errorRate: 1 });
    try {
      expect(await caught(noRetry.me())).toBeInstanceOf(ServerError);
    } finally {
      await control("faults", { errorRate: 0 });
    }
  });

  it("retries a burst of 429/503/500 on a read, pausing the shared bucket on the 429", async () => {
    const sleeps: number[] = [];
    let t = 0;
    const limiter = new RateLimiter({
      requestsPerMinute: 6_000,
      now: () => t,
      sleep: async (ms) => {
        t += ms;
      },
    });
    const c = client({
      rateLimiter: limiter,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    await control("faults", { statuses: [429, 503, 500] });
    expect((await c.me()).organization.id).toBe(emu.organizationId);
    expect(sleeps).toHaveLength(3);
    expect(sleeps[0]).toBe(1000);
    expect(limiter.pausedUntilMs).toBeGreaterThanOrEqual(1000);
  });

  it("maps injected timeouts and malformed bodies", async () => {
    await control("faults", { timeoutRate: 1, timeoutDelayMs: 3_000 });
    try {
      expect(await caught(client({ timeoutMs: 200, maxRetries: 0 }).me())).toBeInstanceOf(ApiTimeoutError);
    } finally {
      await control("faults", { timeoutRate: 0 });
    }
    await control("faults", { malformedRate: 1 });
    try {
      expect(await caught(client({ maxRetries: 0 }).listEmployees())).toBeInstanceOf(ApiResponseError);
    } finally {
      await control("faults", { malformedRate: 0 });
    }
  });
});

describe("RetentionClient against the emulator's per-minute limit", () => {
  let limited: EmulatorHandle;
  beforeAll(async () => {
    limited = await startEmulator({ seed: "empty", rateLimitPerMinute: 2 });
  });
  afterAll(async () => {
    await limited.close();
  });

  it("waits each Retry-After (on the emulator's clock) and completes every call", async () => {
    const sleeps: number[] = [];
    let t = 0;
    const c = new RetentionClient({
      baseUrl: limited.baseUrl,
      apiKey: limited.writeKey,
      rateLimiter: new RateLimiter({
        requestsPerMinute: 6_000,
        now: () => t,
        sleep: async (ms) => {
          t += ms;
        },
      }),
      // The wait is spent on the emulator's virtual clock, so the test stays fast over real HTTP.
      sleep: async (ms) => {
        sleeps.push(ms);
        const res = await fetch(`${limited.url}/_emulator/clock`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ advanceSeconds: ms / 1000 }),
        });
        await res.text();
      },
    });
    clients.push(c);
    // At 2 per 60 s window: 2 pass, the 3rd waits out the window, 2 more pass, the 5th waits again.
    for (let i = 0; i < 6; i += 1) expect((await c.me()).organization.id).toBe(limited.organizationId);
    expect(sleeps.length).toBeGreaterThanOrEqual(2);
    expect(sleeps.every((ms) => ms >= 1000 && ms % 1000 === 0)).toBe(true);
    const log = (await (await fetch(`${limited.url}/_emulator/requests`)).json()) as unknown;
    const entries = Array.isArray(log) ? log : ((log as { requests?: unknown[] }).requests ?? []);
    const statuses = entries.map((e) => (e as { status: number }).status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(sleeps.length);
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
  });
});
