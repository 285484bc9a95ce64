import { describe, expect, it } from "vitest";
import {
  billingSchema,
  bulkAddResultSchema,
  changeItemSchema,
  classifySkipReason,
  competitorSchema,
  createdWebhookEndpointSchema,
  employeeSchema,
  meSchema,
  pageEnvelope,
  pageSchema,
  resolvedCompanyName,
  riskLevelSchema,
  webhookEndpointSchema,
} from "../../src/api/index.js";
import { parseBody } from "../../src/api/parse-body.js";
import { ApiResponseError } from "../../src/errors.js";
import { billingWire, changeWire, employeeWire, meWire, pageWire } from "./support/fixtures.js";

const ctx = { method: "GET", path: "/employees", status: 200 };

describe("spec records", () => {
  it("tolerates unknown fields at every level and keeps them", () => {
    const me = parseBody(meSchema, { ...meWire, plan: "gold", organization: { id: 1, name: "A", tz: "UTC" } }, ctx);
    expect(me.organization.name).toBe("A");
    expect((me as Record<string, unknown>).plan).toBe("gold");
    const e = parseBody(employeeSchema, employeeWire(3, { futureField: { a: 1 } }), ctx);
    expect(e.id).toBe(3);
  });

  it("accepts null for ? fields and reads null as absent for optional non-nullable ones", () => {
    const e = parseBody(employeeSchema, employeeWire(3, { title: null, trackingStartedAt: null }), ctx);
    expect(e.title).toBeNull();
    expect(e.trackingStartedAt).toBeUndefined();
  });

  it("derives a latest change's missing risk level from its score, case-insensitive otherwise", () => {
    const e = parseBody(
      employeeSchema,
      employeeWire(1, {
        latestChange: { riskScore: 0.6, changeType: "title_change", detectedAt: "2026-11-01T00:00:00Z" },
      }),
      ctx,
    );
    expect(e.latestChange?.riskLevel).toBe("watch");
    const f = parseBody(
      employeeSchema,
      employeeWire(1, {
        latestChange: { riskScore: null, riskLevel: "HIGH", changeType: "employee_departed", detectedAt: "x" },
      }),
      ctx,
    );
    expect(f.latestChange).toMatchObject({ riskLevel: "high", riskScore: null });
  });

  it("rejects a missing required field with an ApiResponseError naming endpoint and path", () => {
    const bad = pageWire([employeeWire(1), { ...employeeWire(2), id: undefined }], 1, 25, 2);
    const run = () => parseBody(pageSchema(employeeSchema, { page: 1, pageSize: 25 }), bad, ctx);
    expect(run).toThrow(ApiResponseError);
    expect(run).toThrow(/GET \/employees/);
    expect(run).toThrow(/items\.1\.id/);
    const { seatSettlement: _drop, ...noSettlement } = billingWire;
    expect(() => parseBody(billingSchema, noSettlement, { ...ctx, path: "/billing" })).toThrow(/seatSettlement/);
  });

  it("parses billing with only the required top-level blocks", () => {
    const b = parseBody(
      billingSchema,
      { organizationId: 1, seats: {}, plan: {}, estimate: {}, trial: {}, seatSettlement: {} },
      ctx,
    );
    expect(b.apiSeatAllowance).toBeUndefined();
  });

  it("derives page counters the server leaves out", () => {
    const schema = pageSchema(employeeSchema, { page: 2, pageSize: 1 });
    expect(parseBody(schema, { items: [employeeWire(1)], total: 5 }, ctx)).toMatchObject({
      page: 2,
      pageSize: 1,
      hasMore: true,
    });
    expect(parseBody(schema, { items: [] }, ctx).hasMore).toBe(false);
  });
});

describe("change items (fields not shown in the spec)", () => {
  it("normalizes the emulator's shape and keys it by id", () => {
    const c = parseBody(changeItemSchema, changeWire(7, { extra: true }), ctx);
    expect(c).toMatchObject({
      key: "chg:7",
      id: 7,
      organizationId: 1,
      employeeId: 107,
      changeType: "open_to_work",
      riskScore: 0.81,
      riskLevel: "high",
      factors: ["open_to_work"],
      changedFields: "openToWork",
      employee: { id: 107, name: "Person 107", location: null, department: "sales" },
    });
  });

  it("gives a change without id a stable key from org, employee, type and instant", () => {
    const minimal = {
      organizationId: 1,
      employeeId: 5,
      changeType: "title_change",
      detectedAt: "2026-11-22T10:00:00Z",
    };
    const a = parseBody(changeItemSchema, minimal, ctx);
    const b = parseBody(
      changeItemSchema,
      { ...minimal, riskScore: 0.3, noise: 1, detectedAt: "2026-11-22T10:00:00.000Z" },
      ctx,
    );
    const viaNested = parseBody(
      changeItemSchema,
      { employee: { id: 5 }, organization: { id: 1 }, type: "title_change", detectedAt: "2026-11-22T11:00:00+01:00" },
      ctx,
    );
    expect(a.key).toMatch(/^chg:h:[0-9a-f]{32}$/);
    expect(b.key).toBe(a.key);
    expect(viaNested.key).toBe(a.key);
    const other = parseBody(changeItemSchema, { ...minimal, detectedAt: "2026-11-22T10:00:01Z" }, ctx);
    expect(other.key).not.toBe(a.key);
    const otherType = parseBody(changeItemSchema, { ...minimal, changeType: "open_to_work" }, ctx);
    expect(otherType.key).not.toBe(a.key);
  });

  it("reads a departure without score as high, and derives levels from scores", () => {
    const dep = parseBody(
      changeItemSchema,
      { changeType: "employee_departed", detectedAt: "2026-11-22T10:00:00Z" },
      ctx,
    );
    expect(dep).toMatchObject({ riskScore: null, riskLevel: "high" });
    const low = parseBody(changeItemSchema, { changeType: "new_skills", riskScore: 0.2, detectedAt: "x" }, ctx);
    expect(low.riskLevel).toBe("low");
  });

  it("rejects a change item without change type or detection time", () => {
    const schema = pageSchema(changeItemSchema, { page: 1, pageSize: 25 });
    expect(() => parseBody(schema, { items: [{ id: 1, detectedAt: "x" }], hasMore: false }, ctx)).toThrow(
      /items\.0\.changeType/,
    );
    expect(() => parseBody(schema, { items: [{ id: 1, changeType: "x" }], hasMore: false }, ctx)).toThrow(
      /items\.0\.detectedAt/,
    );
  });
});

describe("competitor, webhook and bulk records", () => {
  it("normalizes competitor records under likely aliases", () => {
    const c = parseBody(
      competitorSchema,
      { organizationId: 9, name: "Globex", roles: ["sales"], status: "paused", trackedCount: 12, other: 1 },
      ctx,
    );
    expect(c).toEqual({ id: 9, name: "Globex", roleFilters: ["sales"], paused: true, trackedEmployeeCount: 12 });
    expect(() => parseBody(competitorSchema, { name: "No id" }, ctx)).toThrow(/id: required/);
  });

  it("normalizes webhook endpoints and keeps the secret of the creation response only", () => {
    const wire = {
      id: "whe_1",
      url: "https://example.com/h",
      enabled: true,
      employeeWarningSensitivity: 3,
      health: { consecutiveFailures: 2, lastDeliveryAt: null, lastStatus: 500, recentDeliveries: [{}] },
      secret: "whsec_abc",
    };
    expect(parseBody(createdWebhookEndpointSchema, wire, ctx)).toMatchObject({ id: "whe_1", secret: "whsec_abc" });
    const listed = parseBody(webhookEndpointSchema, wire, ctx);
    expect(listed).not.toHaveProperty("secret");
    expect(listed.health).toEqual({
      consecutiveFailures: 2,
      lastDeliveryAt: null,
      lastStatus: 500,
      recentDeliveries: [{}],
    });
  });

  it("normalizes bulk results: added rows, skip kinds, message or error, seat allowance", () => {
    const r = parseBody(
      bulkAddResultSchema,
      {
        added: [employeeWire(1), { employee: employeeWire(2) }, "https://www.linkedin.com/in/x"],
        skipped: [
          { networkUrl: "a", reason: "invalid_url", message: "not a public profile URL" },
          { url: "b", reason: "duplicate", error: "already on roster" },
          { networkUrl: "c", reason: "trial_limit", message: "trial cap" },
          { networkUrl: "d", code: "weird" },
          "row_quota",
        ],
        seatAllowance: { perDay: 200, usedLast24h: 10, remaining: 190 },
      },
      ctx,
    );
    expect(r.addedCount).toBe(3);
    expect(r.added[0]).toMatchObject({ id: 1, employee: { id: 1 } });
    expect(r.added[1]).toMatchObject({ id: 2, employee: { id: 2 } });
    expect(r.added[2]).toEqual({ networkUrl: "https://www.linkedin.com/in/x" });
    expect(r.skipped.map((s) => s.kind)).toEqual(["invalid_url", "duplicate", "seat_ceiling", "other", "seat_ceiling"]);
    expect(r.skipped[1]).toMatchObject({ networkUrl: "b", message: "already on roster" });
    expect(r.seatAllowance).toEqual({ perDay: 200, usedLast24h: 10, left: 190 });
  });

  it.each([
    ["invalid_url", "invalid_url"],
    ["bad url", "invalid_url"],
    ["duplicate", "duplicate"],
    ["duplicate url", "duplicate"],
    ["exists", "duplicate"],
    ["seat_limit", "seat_ceiling"],
    ["trial_limit", "seat_ceiling"],
    ["row_quota", "seat_ceiling"],
    ["charge_failed", "seat_ceiling"],
    ["ceiling", "seat_ceiling"],
    ["mystery", "other"],
  ])("classifies skip reason %s as %s", (reason, kind) => {
    expect(classifySkipReason(reason)).toBe(kind);
  });

  it("finds the resolved company of a 409 mismatch in whatever field", () => {
    expect(resolvedCompanyName({ error: "x", code: "C", resolvedCompany: { name: "Initech" } })).toBe("Initech");
    expect(resolvedCompanyName({ error: "x", resolvedName: "Initech" })).toBe("Initech");
    expect(resolvedCompanyName({ error: "x", pageCompanyFound: { title: "Initech" } })).toBe("Initech");
    expect(resolvedCompanyName({ error: "x" })).toBeUndefined();
    expect(resolvedCompanyName("nope")).toBeUndefined();
  });
});

describe("bodies that contradict the request or say nothing", () => {
  const page2 = pageSchema(employeeSchema, { page: 2, pageSize: 2 });

  it("refuses a page that answers another page number or more rows than asked for", () => {
    expect(() => parseBody(page2, { items: [employeeWire(1)], page: 1, hasMore: true }, ctx)).toThrow(
      /page: asked for page 2, the server answered page 1/,
    );
    const three = [employeeWire(1), employeeWire(2), employeeWire(3)];
    expect(() => parseBody(page2, { items: three, hasMore: false }, ctx)).toThrow(
      /items: 3 rows on one page, more than the pageSize 2 asked for/,
    );
  });

  it("refuses negative, absurd or zero counters", () => {
    expect(() => parseBody(page2, { items: [], total: -1 }, ctx)).toThrow(/total: /);
    expect(() => parseBody(page2, { items: [], total: 1e15 }, ctx)).toThrow(/total: /);
    expect(() => parseBody(page2, { items: [], pageSize: 0 }, ctx)).toThrow(/pageSize: /);
    expect(parseBody(page2, { items: [], total: 0, page: 2, pageSize: 2 }, ctx).hasMore).toBe(false);
  });

  it("says the body is empty or null instead of quoting a schema", () => {
    const empty = () => parseBody(meSchema, undefined, { ...ctx, path: "/me" });
    expect(empty).toThrow(ApiResponseError);
    expect(empty).toThrow(
      /GET \/me: unexpected response body \(status 200\): the body is empty; expected a JSON document/,
    );
    expect(() => parseBody(meSchema, null, { ...ctx, path: "/me" })).toThrow(/the body is JSON null/);
  });

  it("refuses a bulk result that does not say what was added", () => {
    const bulk = { ...ctx, method: "POST", path: "/employees/bulk" };
    expect(() => parseBody(bulkAddResultSchema, {}, bulk)).toThrow(/added: required/);
    expect(() => parseBody(bulkAddResultSchema, { added: "yes" }, bulk)).toThrow(/added: required/);
    expect(() => parseBody(bulkAddResultSchema, { added: [], skipped: "none" }, bulk)).toThrow(/skipped: /);
    expect(parseBody(bulkAddResultSchema, { added: 2 }, bulk)).toMatchObject({ addedCount: 2, skipped: [] });
    expect(parseBody(bulkAddResultSchema, { added: [], skipped: null }, bulk).skipped).toEqual([]);
  });

  it("clips a server value it quotes", () => {
    const schema = pageSchema(employeeSchema, { page: 1, pageSize: 25 });
    const latestChange = {
      riskLevel: "x".repeat(10_000),
      changeType: "title_change",
      detectedAt: "2026-11-01T00:00:00Z",
    };
    const level = parseBody(schema, { items: [employeeWire(1, { latestChange })] }, ctx).items[0]?.latestChange;
    expect(level?.riskLevel).toBe("low");
    expect(() => parseBody(riskLevelSchema, "y".repeat(10_000), ctx)).toThrow(/got "y{37}\.\.\."$/);
  });
});

describe("page schemas on the hot path", () => {
  it("builds the page envelope once per item schema; each page adds only its small request check", () => {
    const first = pageSchema(changeItemSchema, { page: 1, pageSize: 100 });
    const tenth = pageSchema(changeItemSchema, { page: 10, pageSize: 100 });
    expect(first.in).toBe(pageEnvelope(changeItemSchema));
    expect(tenth.in).toBe(first.in);
    expect(pageSchema(employeeSchema, { page: 1, pageSize: 25 }).in).toBe(pageEnvelope(employeeSchema));
    expect(pageEnvelope(employeeSchema)).not.toBe(pageEnvelope(changeItemSchema));
  });
});
