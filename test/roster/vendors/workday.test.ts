import { describe, expect, it } from "vitest";
import { expectSorted, readAs, readFixture, summarize } from "./vendor-fixture.js";

const VENDOR = "workday";

/** The same custom report in each fixture. */
const REPORT = {
  inScope: ["Ana Lima", "Ben Okafor", "Chloé Martin", "Dev Patel"],
  // Eva: Active_Status "0". Farid: Active_Status still "1", but Termination_Date
  // "2026-10-31-07:00" has passed.
  terminated: ["Eva Novak", "Farid Haddad"],
  // Grace: Worker_Type "Contingent Worker" (no Employee_Type). Hugo: an Employee whose
  // Employee_Type is Intern.
  outOfScope: ["Grace Kim", "Hugo Silva"],
  problems: ["missing-url: Iris Berg", "invalid-url: Jonas Weber"],
};

describe("Workday RaaS custom report (JSON)", () => {
  it("reads Report_Entry by the report's aliases and names people from Name", async () => {
    expectSorted(await readAs(VENDOR, "raas-workers.json"), REPORT);
  });

  it("keeps a worker whose termination date (2026-12-31-08:00) is still ahead", async () => {
    const summary = summarize(await readFixture(VENDOR, "raas-workers.json"));
    expect(summary.inScope).toContain("Chloé Martin");
  });

  it("reads LinkedIn from a calculated field named explicitly, with the preset named", async () => {
    const file = await readAs(VENDOR, "raas-calculated-linkedin.json", {
      mapping: { preset: "workday", profileUrl: ["CF_LinkedIn"] },
    });
    expectSorted(file, REPORT);
  });
});

describe("Workday custom report (CSV)", () => {
  // A field listed under several columns falls back per row, as JSON paths do: the contingent
  // worker's empty "Employee Type" falls back to "Worker Type".
  it("reads the same report by its column names, falling back per row", async () => {
    expectSorted(await readAs(VENDOR, "raas-workers.csv"), REPORT);
  });
});
