import { describe, expect, it } from "vitest";
import { buildSeed, COMPANY_ID } from "../../src/seed.js";
import { EmulatorState } from "../../src/state.js";

const NOW = Date.parse("2026-11-23T10:00:00Z");

function seeded(seed: "demo" | "empty") {
  const state = new EmulatorState();
  buildSeed(state, seed, NOW);
  return state;
}

describe("emulator seed and state indexes", () => {
  it("builds the same demo world every time", () => {
    const a = seeded("demo");
    const b = seeded("demo");
    expect([...a.employees.values()]).toEqual([...b.employees.values()]);
    expect([...a.changes.values()]).toEqual([...b.changes.values()]);
    expect(a.competitorsOf(COMPANY_ID).map((o) => o.name)).toEqual(["Acme Corp", "Globex"]);
    expect(a.employeeIdsOf(COMPANY_ID).length).toBe(300);
  });

  it("the empty seed has a company with nobody in it", () => {
    const s = seeded("empty");
    expect(s.employeeIdsOf(COMPANY_ID)).toEqual([]);
    expect(s.competitorsOf(COMPANY_ID)).toEqual([]);
  });

  it("keeps tracked counts, URL index and history consistent through track, untrack and erase", () => {
    const s = seeded("empty");
    const url = "https://www.linkedin.com/in/ada-adler";
    const emp = s.insertEmployee({
      organizationId: COMPANY_ID,
      networkUrl: url,
      canonicalUrl: url,
      slug: "ada-adler",
      name: "Ada",
      tracked: true,
      now: NOW,
      importReadyAt: NOW + 1000,
    });
    expect(emp.status).toBe("importing");
    expect(s.trackedIn(COMPANY_ID)).toBe(1);
    s.settleImports(NOW + 999);
    expect(emp.status).toBe("importing");
    s.settleImports(NOW + 1000);
    expect(emp).toMatchObject({ status: "active", name: "Ada Adler" });
    s.setTracked(emp, false, NOW + 2000);
    expect(emp.windows).toEqual([{ from: NOW, to: NOW + 2000 }]);
    expect(s.trackedIn(COMPANY_ID)).toBe(0);
    s.addChange({
      id: 1,
      organizationId: COMPANY_ID,
      employeeId: emp.id,
      changeType: "title_change",
      changedFields: "title",
      riskScore: 0.6,
      summary: "",
      factors: [],
      detectedAt: NOW + 1500,
    });
    expect(s.findByUrl(COMPANY_ID, url)).toBe(emp);
    s.eraseEmployee(emp);
    expect(s.findByUrl(COMPANY_ID, url)).toBeUndefined();
    expect(s.changes.size).toBe(0);
    expect(s.changeIdsOf(COMPANY_ID)).toEqual([]);
  });
});
