import { describe, expect, it } from "vitest";
import { expectError } from "./support/expect-error.js";
import { asArray, bootEmulator, type JsonObject, num, obj, profileUrl, sharedEmulator } from "./support/wire.js";

const wire = sharedEmulator({ seed: "demo", rateLimitPerMinute: 10_000 });

async function allEmployees(query: Record<string, string | number | boolean> = {}): Promise<JsonObject[]> {
  const rows: JsonObject[] = [];
  for (let page = 1; page < 100; page += 1) {
    const res = await wire().get("/employees", { query: { ...query, page, pageSize: 100 } });
    expect(res.status).toBe(200);
    rows.push(...asArray(res.json.items));
    if (res.json.hasMore !== true) break;
  }
  return rows;
}

describe("2.9 page envelope", () => {
  it("2.9 envelope fields; defaults page 1 and pageSize 25 (8)", async () => {
    const res = await wire().get("/employees");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ page: 1, pageSize: 25, total: expect.any(Number), hasMore: true });
    expect(asArray(res.json.items)).toHaveLength(25);
  });

  it("2.9 total is exact and hasMore turns false on the last page; pages do not overlap", async () => {
    const first = await wire().get("/employees", { query: { pageSize: 100 } });
    const total = num(first.json.total);
    expect(total).toBeGreaterThan(100);
    const rows = await allEmployees();
    expect(rows).toHaveLength(total);
    expect(new Set(rows.map((r) => r.id)).size).toBe(total);
    const lastPage = Math.ceil(total / 100);
    const last = await wire().get("/employees", { query: { pageSize: 100, page: lastPage } });
    expect(last.json).toMatchObject({ page: lastPage, hasMore: false, total });
    expect(asArray(last.json.items)).toHaveLength(total - (lastPage - 1) * 100);
  });

  it("2.9 a page past the end is empty with hasMore false", async () => {
    const res = await wire().get("/employees", { query: { pageSize: 100, page: 999 } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ page: 999, hasMore: false });
    expect(asArray(res.json.items)).toHaveLength(0);
  });

  it("8 pageSize 100 is accepted", async () => {
    const res = await wire().get("/employees", { query: { pageSize: 100 } });
    expect(res.json.pageSize).toBe(100);
    expect(asArray(res.json.items)).toHaveLength(100);
  });
});

describe("4.3 GET /employees", () => {
  it("4.3 rows are Employee records of the own company by default", async () => {
    const w = wire();
    const items = asArray((await w.get("/employees", { query: { pageSize: 100 } })).json.items);
    for (const e of items) {
      expect(e).toMatchObject({
        id: expect.any(Number),
        organizationId: w.organizationId,
        name: expect.any(String),
        networkUrl: expect.stringMatching(/^https:\/\//),
        tracked: expect.any(Boolean),
        status: expect.stringMatching(/^(active|importing|archived)$/),
      });
      expect(e).toHaveProperty("latestChange");
    }
  });

  it("4.3 newest first", async () => {
    const w = await bootEmulator({ seed: "empty" });
    try {
      const ids: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await w.post("/employees", { networkUrl: profileUrl(), tracked: false });
        expect(res.status).toBe(201);
        ids.push(num(res.json.id));
        await w.advanceClock(60);
      }
      const items = asArray((await w.get("/employees")).json.items);
      expect(items.map((e) => e.id)).toEqual([...ids].reverse());
    } finally {
      await w.close();
    }
  });

  it("4.3 newest first by createdAt on the seeded roster", async () => {
    const items = await allEmployees();
    const times = items.map((e) => Date.parse(String(e.createdAt)));
    for (let i = 1; i < times.length; i += 1) expect(times[i - 1]).toBeGreaterThanOrEqual(times[i] ?? 0);
  });

  it("4.3 tracked=true / tracked=false split the roster", async () => {
    const all = await allEmployees();
    const tracked = await allEmployees({ tracked: true });
    const untracked = await allEmployees({ tracked: false });
    expect(tracked.every((e) => e.tracked === true)).toBe(true);
    expect(untracked.every((e) => e.tracked === false)).toBe(true);
    expect(tracked.length + untracked.length).toBe(all.length);
    expect(tracked.length).toBeGreaterThan(0);
  });

  it("4.3 q searches name, title and location (case-insensitive)", async () => {
    const all = await allEmployees();
    const sample = all.find((e) => typeof e.title === "string" && typeof e.location === "string");
    expect(sample).toBeDefined();
    const s = obj(sample);
    for (const field of ["name", "title", "location"] as const) {
      const needle = String(s[field]).split(/\s+/)[0]?.toUpperCase() ?? "";
      const hits = await allEmployees({ q: needle });
      expect(hits.map((e) => e.id)).toContain(s.id);
      const lower = needle.toLowerCase();
      const expected = all.filter((e) =>
        [e.name, e.title, e.location].some((v) => typeof v === "string" && v.toLowerCase().includes(lower)),
      );
      expect(hits.map((e) => e.id).sort()).toEqual(expected.map((e) => e.id).sort());
    }
    const none = await wire().get("/employees", { query: { q: "zzzz-no-such-person-zzzz" } });
    expect(none.json).toMatchObject({ total: 0, hasMore: false, items: [] });
  });

  it("4.3/5.3 organizationId selects a reachable competitor workspace", async () => {
    const w = wire();
    const competitors = asArray((await w.get("/competitors")).body);
    const ownIds = new Set((await allEmployees()).map((e) => e.id));
    for (const c of competitors) {
      const res = await w.get("/employees", { query: { organizationId: Number(c.id), pageSize: 100 } });
      expect(res.status).toBe(200);
      const items = asArray(res.json.items);
      expect(items.length).toBeGreaterThan(0);
      for (const e of items) {
        expect(e.organizationId).toBe(c.id);
        expect(ownIds.has(e.id)).toBe(false);
      }
    }
  });

  it("4.3 organizationId of an unreachable organization: 404", async () => {
    expectError(await wire().get("/employees", { query: { organizationId: 424242 } }), 404, null);
  });
});
