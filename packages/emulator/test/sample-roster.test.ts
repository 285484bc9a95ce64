import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { buildSampleRoster, type RosterPerson } from "../src/sample-roster.js";

function people(count: number, archived = 0): RosterPerson[] {
  return Array.from({ length: count + archived }, (_, i) => ({
    name: `Person ${i}`,
    networkUrl: `https://www.linkedin.com/in/person-${i}`,
    department: "Sales",
    status: i >= count ? "archived" : "active",
  }));
}

describe("buildSampleRoster", () => {
  it("keeps most people, drops a few leavers, adds joiners, a rehire and broken rows", () => {
    const sample = buildSampleRoster(people(200, 3), { joiners: 5 });
    const rows = parse(sample.csv, { columns: true }) as Array<Record<string, string>>;
    expect(sample.leavers).toBe(5);
    expect(sample.rehires).toBe(1);
    expect(rows).toHaveLength(200 - 5 + 1 + 5 + sample.brokenRows);
    const urls = rows.map((r) => r["LinkedIn URL"]);
    expect(urls).toContain("https://www.linkedin.com/in/person-200");
    expect(urls).not.toContain("https://www.linkedin.com/in/person-39");
    expect(rows.filter((r) => r["Full Name"]?.startsWith("Demo Joiner"))).toHaveLength(5);
  });

  it("is deterministic", () => {
    expect(buildSampleRoster(people(50, 1)).csv).toBe(buildSampleRoster(people(50, 1)).csv);
  });
});
