import { describe, expect, it } from "vitest";
import { expectSorted, readAs, readFixture, summarize } from "./vendor-fixture.js";

const VENDOR = "bamboohr";

/** The custom report's people, as the JSON and CSV forms of the same report read them. */
const REPORT = {
  inScope: ["Ana Lima", "Ben Okafor", "Chloé Martin", "Dev Patel"],
  // Eva: status Inactive, employment status Terminated. Farid: still Active/Full-Time, but his
  // termination date (2026-10-31) has passed.
  terminated: ["Eva Novak", "Farid Haddad"],
  // Read from `employmentHistoryStatus` ("Employment Status"): status alone says Active for both.
  outOfScope: ["Grace Kim", "Hugo Silva"],
  problems: ["missing-url: Iris Berg", "invalid-url: Jonas Weber"],
};

describe("BambooHR custom report (JSON)", () => {
  it("reads status and employment status, and names everyone", async () => {
    expectSorted(await readAs(VENDOR, "custom-report.json"), REPORT);
  });

  it("takes 0000-00-00 as no termination date and a future one as still employed", async () => {
    const summary = summarize(await readFixture(VENDOR, "custom-report.json"));
    // Ana, Ben, Dev: 0000-00-00. Chloé: leaves on 2026-12-31, after the fixtures' today.
    expect(summary.inScope).toContain("Chloé Martin");
    expect(summary.inScope).toContain("Ana Lima");
  });

  it("refuses the report when a mapping reads status but not employmentHistoryStatus", async () => {
    // The mapping that once planned 16 terminated people and 4 contractors/interns as joiners.
    const statusOnly = { mapping: { profileUrl: ["customLinkedInURL"], name: ["displayName"], status: ["status"] } };
    await expect(readFixture(VENDOR, "custom-report.json", statusOnly)).rejects.toThrow(/employmentHistoryStatus/);
  });

  it("reads the LinkedIn custom field named explicitly, with the preset named", async () => {
    const file = await readAs(VENDOR, "custom-report.json", {
      mapping: { preset: "bamboohr", profileUrl: ["customLinkedInURL"] },
    });
    expectSorted(file, REPORT);
  });
});

describe("BambooHR custom report (CSV)", () => {
  it("reads the same report by its column labels", async () => {
    expectSorted(await readAs(VENDOR, "custom-report.csv"), REPORT);
  });
});

describe("BambooHR datasets API (v2)", () => {
  it("unwraps the rows' fields and reads the record status", async () => {
    expectSorted(await readAs(VENDOR, "dataset-employee.json"), {
      inScope: ["Ana Lima", "Ben Okafor", "Chloé Martin", "Dev Patel"],
      // Inactive: a former employee, or (per BambooHR) a future hire, who is not planned until Active.
      terminated: ["Eva Novak", "Kai Tanaka"],
      outOfScope: [],
      problems: ["missing-url: Iris Berg", "invalid-url: Jonas Weber"],
    });
  });
});

describe("BambooHR employee directory", () => {
  it("reads the standard linkedIn field; the directory lists active employees only", async () => {
    expectSorted(await readAs(VENDOR, "directory.json"), {
      inScope: ["Ana Lima", "Ben Okafor", "Chloé Martin", "Dev Patel"],
      terminated: [],
      outOfScope: [],
      problems: ["missing-url: Iris Berg", "invalid-url: Jonas Weber"],
    });
  });
});
