import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HrisSource } from "../../src/alerts/hris-source.js";
import { configSchema } from "../../src/config/schema.js";
import { lastPulledExport } from "../../src/roster/sources/last-pull.js";
import { captureLogs } from "../helpers/capture-logs.js";
import { canonicalUrl, type HrisPerson, makePeople, rosterDir, toCsv } from "../helpers/roster-files.js";

/** BambooHR's custom report of `people`: the document the bamboohr source keeps as its pull. */
function bambooReport(people: readonly HrisPerson[]): string {
  return JSON.stringify({
    title: "retention-sync roster",
    fields: [],
    employees: people.map((p) => ({
      id: p.employeeId,
      employeeNumber: p.employeeId,
      displayName: p.name,
      workEmail: p.email,
      department: p.department,
      jobTitle: p.title,
      status: "Active",
      employmentHistoryStatus: "Full-Time",
      customLinkedInURL: canonicalUrl(p.slug),
    })),
  });
}

describe("HrisSource with a pulled roster", () => {
  let cleanup: () => Promise<void> = async () => undefined;
  afterEach(() => cleanup());

  async function world(source: Record<string, unknown>) {
    const dir = await rosterDir();
    cleanup = dir.cleanup;
    const config = configSchema.parse({
      state: { path: join(dir.dir, "state.sqlite") },
      // A roster file is configured too: with a pull source it is not what alerts read.
      roster: { enabled: true, file: await dir.write("stale.csv", toCsv(makePeople(2, { prefix: "stale" }))), source },
    });
    const pulls = join(dir.dir, "roster-pulls");
    await mkdir(pulls, { recursive: true });
    const logs = captureLogs({ level: "info" });
    const hris = new HrisSource(config.roster, logs.logger, () => lastPulledExport(config));
    return { config, pulls, hris };
  }

  it("reads the HR fields from the last complete pull, and again once a new pull replaced it", async () => {
    const { pulls, hris } = await world({ type: "bamboohr", companyDomain: "acme" });
    const people = makePeople(3);
    const url = canonicalUrl(people[1]?.slug ?? "");
    // Before the first complete pull: no HR fields (the roster file is not read instead).
    await hris.refresh(new Date());
    expect(hris.current).toBeUndefined();

    await writeFile(join(pulls, "bamboohr.json"), bambooReport(people));
    await hris.refresh(new Date());
    expect(hris.current?.(url)).toMatchObject({ department: people[1]?.department, employeeId: people[1]?.employeeId });
    expect(hris.current?.(canonicalUrl("stale-0"))).toBeUndefined();

    const moved = people.map((p, i) => (i === 1 ? { ...p, department: "Moved Department" } : p));
    await writeFile(join(pulls, "bamboohr.json"), bambooReport(moved));
    await hris.refresh(new Date());
    expect(hris.current?.(url)?.department).toBe("Moved Department");
  });

  it("finds an https pull by the name its facts keep, in the format its source names", async () => {
    const { config, pulls, hris } = await world({ type: "https", url: "https://hris.example/report", format: "csv" });
    const people = makePeople(2);
    // A CSV kept under the name of a format the reader would not guess: the source's format says CSV.
    await writeFile(join(pulls, "https.export"), toCsv(people));
    await writeFile(
      join(pulls, "https.meta.json"),
      JSON.stringify({ url: "https://hris.example/report", name: "https.export" }),
    );
    expect(await lastPulledExport(config)).toEqual({ file: join(pulls, "https.export"), format: "csv" });
    await hris.refresh(new Date());
    expect(hris.current?.(canonicalUrl(people[0]?.slug ?? ""))?.department).toBe(people[0]?.department);
  });

  it("a kept name that is not one a pull writes is not read", async () => {
    const { config, pulls } = await world({ type: "https", url: "https://hris.example/report" });
    await writeFile(join(pulls, "https.meta.json"), JSON.stringify({ name: "../stale.csv" }));
    expect(await lastPulledExport(config)).toBeUndefined();
  });
});
