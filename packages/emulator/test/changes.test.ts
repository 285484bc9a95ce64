import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError } from "./support/expect-error.js";
import { addPerson, waitImported } from "./support/people.js";
import { asArray, bootEmulator, type JsonObject, num, obj, type Wire } from "./support/wire.js";

const CHANGE_TYPES = [
  "profile_update",
  "headline_change",
  "title_change",
  "open_to_work",
  "new_skills",
  "location_change",
  "photo_or_summary",
  "edit_activity",
  "experience_change",
  "employee_departed",
];

let w: Wire;
beforeEach(async () => {
  w = await bootEmulator({ seed: "empty", rateLimitPerMinute: 100_000 });
});
afterEach(async () => {
  await w.close();
});

async function person(body: JsonObject = {}): Promise<JsonObject> {
  return waitImported(w, num((await addPerson(w, body)).id));
}

async function feed(query: Record<string, string | number | boolean> = {}, path = "/changes"): Promise<JsonObject[]> {
  const rows: JsonObject[] = [];
  for (let page = 1; page < 100; page += 1) {
    const res = await w.get(path, { query: { ...query, page, pageSize: 100 } });
    expect(res.status, res.text).toBe(200);
    rows.push(...asArray(res.json.items));
    if (res.json.hasMore !== true) break;
  }
  return rows;
}

function expectNewestFirst(items: JsonObject[]): void {
  for (let i = 1; i < items.length; i += 1) {
    const prev = Date.parse(String(items[i - 1]?.detectedAt));
    const cur = Date.parse(String(items[i]?.detectedAt));
    expect(prev).toBeGreaterThanOrEqual(cur);
  }
}

describe("2.4 risk level and score", () => {
  it("2.4 thresholds: 0.75+ high, 0.50..0.74 watch, below 0.50 low", async () => {
    const p = await person();
    const cases: Array<[number, string]> = [
      [0.95, "high"],
      [0.75, "high"],
      [0.74, "watch"],
      [0.5, "watch"],
      [0.49, "low"],
      [0.1, "low"],
    ];
    for (const [riskScore] of cases) {
      await w.signals({ employeeId: p.id, riskScore, changeType: "title_change" });
      await w.advanceClock(1);
    }
    const items = await feed();
    expect(items).toHaveLength(cases.length);
    for (const [score, level] of cases) {
      const item = items.find((c) => c.riskScore === score);
      expect(item?.riskLevel, `score ${score}`).toBe(level);
    }
  });

  it("2.4 a departure has a null riskScore and reads as high", async () => {
    const p = await person();
    await w.signals({ employeeId: p.id, changeType: "employee_departed" });
    const [item] = await feed();
    expect(item).toMatchObject({ changeType: "employee_departed", riskScore: null, riskLevel: "high" });
  });
});

describe("2.5 change types / signal generator", () => {
  it("2.5 the generator produces every change type, only for tracked people, with levels from 2.4", async () => {
    for (let i = 0; i < 4; i += 1) await person();
    const untracked = await person({ tracked: false });
    await w.signals({ count: 300 });
    const items = await feed();
    expect(items.length).toBe(300);
    expect(new Set(items.map((c) => c.changeType))).toEqual(new Set(CHANGE_TYPES));
    expect(items.some((c) => c.employeeId === untracked.id)).toBe(false);
    for (const c of items) {
      if (c.changeType === "employee_departed") {
        expect(c.riskScore).toBeNull();
        expect(c.riskLevel).toBe("high");
      } else {
        const s = num(c.riskScore);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
        expect(c.riskLevel).toBe(s >= 0.75 ? "high" : s >= 0.5 ? "watch" : "low");
      }
    }
  });

  it("1 untracked people raise no signals even when asked for by id", async () => {
    const p = await person({ tracked: false });
    await w.raw("POST", "/_emulator/signals", { employeeId: p.id, count: 2 });
    expect(await feed()).toHaveLength(0);
  });
});

describe("2.8 change item", () => {
  it("2.8 list items carry the documented wire shape", async () => {
    const p = await person();
    await w.signals({ employeeId: p.id, changeType: "open_to_work", riskScore: 0.8 });
    const [item] = await feed();
    expect(item).toMatchObject({
      id: expect.any(Number),
      organizationId: w.organizationId,
      employeeId: p.id,
      changeType: "open_to_work",
      riskScore: 0.8,
      riskLevel: "high",
      summary: expect.any(String),
      changedFields: expect.any(String),
      detectedAt: expect.any(String),
    });
    expect(Array.isArray(obj(item).factors)).toBe(true);
    expect(obj(obj(item).employee)).toMatchObject({ id: p.id, name: p.name, networkUrl: p.networkUrl });
  });
});

describe("4.4 GET /changes", () => {
  it("4.4 newest first, page envelope exact", async () => {
    const p = await person();
    for (let i = 0; i < 7; i += 1) {
      await w.signals({ employeeId: p.id, riskScore: 0.6 });
      await w.advanceClock(30);
    }
    const res = await w.get("/changes", { query: { pageSize: 3 } });
    expect(res.json).toMatchObject({ total: 7, page: 1, pageSize: 3, hasMore: true });
    const all = await feed();
    expect(all).toHaveLength(7);
    expectNewestFirst(all);
    const last = await w.get("/changes", { query: { pageSize: 3, page: 3 } });
    expect(last.json).toMatchObject({ hasMore: false });
    expect(asArray(last.json.items)).toHaveLength(1);
  });

  it("4.4 since is inclusive (changes detected at or after)", async () => {
    const p = await person();
    for (let i = 0; i < 4; i += 1) {
      await w.signals({ employeeId: p.id, riskScore: 0.6 });
      await w.advanceClock(60);
    }
    const all = await feed();
    const pivot = obj(all[1]);
    const since = await feed({ since: String(pivot.detectedAt) });
    expect(since.map((c) => c.id)).toEqual(all.slice(0, 2).map((c) => c.id));
  });

  it("4.4 minRiskScore keeps changes at or above the score; departures are always included", async () => {
    const p = await person();
    for (const riskScore of [0.3, 0.6, 0.8]) await w.signals({ employeeId: p.id, riskScore, changeType: "new_skills" });
    await w.signals({ employeeId: p.id, changeType: "employee_departed" });
    const res = await feed({ minRiskScore: 0.6 });
    expect(res.map((c) => c.riskScore).sort()).toEqual([0.6, 0.8, null].sort());
  });

  it("4.4 changeType filters on the enum of 2.5", async () => {
    const p = await person();
    await w.signals({ employeeId: p.id, changeType: "title_change", riskScore: 0.6 });
    await w.signals({ employeeId: p.id, changeType: "open_to_work", riskScore: 0.6 });
    const res = await feed({ changeType: "open_to_work" });
    expect(res.map((c) => c.changeType)).toEqual(["open_to_work"]);
  });

  it("4.4 organizationId reads a competitor workspace (poaching lens); own feed excludes it", async () => {
    const demo = await bootEmulator({ seed: "demo", rateLimitPerMinute: 100_000 });
    try {
      const competitor = obj(asArray((await demo.get("/competitors")).body)[0]);
      const cid = num(competitor.id);
      await demo.signals({ organizationId: cid, count: 5 });
      const res = await demo.get("/changes", { query: { organizationId: cid, pageSize: 100 } });
      expect(res.status).toBe(200);
      const items = asArray(res.json.items);
      expect(items.length).toBeGreaterThanOrEqual(5);
      expect(items.every((c) => c.organizationId === cid)).toBe(true);
      const own = await demo.get("/changes", { query: { pageSize: 100 } });
      expect(asArray(own.json.items).every((c) => c.organizationId === demo.organizationId)).toBe(true);
      expectError(await demo.get("/changes", { query: { organizationId: 999_999 } }), 404, null);
    } finally {
      await demo.close();
    }
  });
});

describe("4.3 GET /employees/{id}/changes", () => {
  it("4.3 only that person's changes, newest first, paginated", async () => {
    const a = await person();
    const b = await person();
    for (let i = 0; i < 3; i += 1) {
      await w.signals({ employeeId: a.id, riskScore: 0.55 + i / 10 });
      await w.advanceClock(10);
    }
    await w.signals({ employeeId: b.id, riskScore: 0.9 });
    const items = await feed({}, `/employees/${String(a.id)}/changes`);
    expect(items).toHaveLength(3);
    expect(items.every((c) => c.employeeId === a.id)).toBe(true);
    expectNewestFirst(items);
    const page = await w.get(`/employees/${String(a.id)}/changes`, { query: { pageSize: 2 } });
    expect(page.json).toMatchObject({ total: 3, pageSize: 2, hasMore: true });
  });

  it("4.3 404 for an unknown person", async () => {
    expectError(await w.get("/employees/98765/changes"), 404, null);
  });
});

describe("2.6 latestChange", () => {
  it("2.6 null without changes, then the latest change visible to the company", async () => {
    const p = await person();
    expect(p.latestChange).toBeNull();
    await w.signals({ employeeId: p.id, riskScore: 0.4, changeType: "new_skills" });
    await w.advanceClock(60);
    await w.signals({ employeeId: p.id, riskScore: 0.8, changeType: "open_to_work" });
    const [newest] = await feed();
    const res = await w.get(`/employees/${String(p.id)}`);
    expect(res.json.latestChange).toEqual({
      riskScore: 0.8,
      riskLevel: "high",
      changeType: "open_to_work",
      detectedAt: obj(newest).detectedAt,
    });
  });
});

describe("2.5 deterministic generator", () => {
  it("2.5 the same seed and the same calls give the same changes (who, type, score, text)", async () => {
    const runs: unknown[] = [];
    for (let i = 0; i < 2; i += 1) {
      const demo = await bootEmulator({ seed: "demo", rateLimitPerMinute: 100_000 });
      try {
        await demo.signals({ count: 20 });
        const items = asArray((await demo.get("/changes", { query: { pageSize: 100 } })).json.items);
        runs.push(items.map(({ detectedAt: _d, employee: _e, ...rest }) => rest));
      } finally {
        await demo.close();
      }
    }
    expect(runs[0]).toEqual(runs[1]);
    expect((runs[0] as unknown[]).length).toBeGreaterThanOrEqual(20);
  });
});

describe("4.4 since accepts any ISO 8601 date-time", () => {
  it("4.4 an offset date-time means the same instant as its UTC form; a bare date is refused", async () => {
    const p = await person();
    for (let i = 0; i < 3; i += 1) {
      await w.signals({ employeeId: p.id, riskScore: 0.6 });
      await w.advanceClock(3600);
    }
    const all = await feed();
    const pivot = new Date(String(obj(all[1]).detectedAt));
    const shifted = new Date(pivot.getTime() + 2 * 3600_000).toISOString().replace("Z", "+02:00");
    const withOffset = await feed({ since: shifted });
    expect(withOffset.map((c) => c.id)).toEqual(all.slice(0, 2).map((c) => c.id));
    expect((await w.get("/changes", { query: { since: "2026-11-20" } })).status).toBe(400);
  });
});
