import { describe, expect, it } from "vitest";
import { readFixture, summarize } from "./vendor-fixture.js";

/** Every name the summary shows: none may be "(no name)". */
function allNames(summary: ReturnType<typeof summarize>): string[] {
  return [...summary.inScope, ...summary.terminated, ...summary.outOfScope, ...summary.problems];
}

describe("kombo preset: GET /hris/employees", () => {
  it("reads data.results, LinkedIn in a Kombo custom field", async () => {
    const file = await readFixture("kombo", "employees.json");
    expect(file.mapping.preset).toBe("kombo");
    const summary = summarize(file);
    // LEAVE is still employed; David's termination date is still to come.
    expect(summary.inScope).toEqual(["Anna Schmidt", "Bruno Costa", "Clara Jansen", "David Levi"]);
    // INACTIVE; deleted in the HRIS (remote_deleted_at); ACTIVE with a termination date passed.
    expect(summary.terminated).toEqual(["Elena Petrova", "Felix Wagner", "Greta Lund"]);
    // PENDING (not started) and a CONTRACT employment type.
    expect(summary.outOfScope).toEqual(["Hanna Berg", "Ivan Horvat"]);
    expect(summary.problems).toEqual(["missing-url: Karl Braun", "invalid-url: Lena Vogel"]);
    expect(allNames(summary).join("|")).not.toContain("(no name)");
  });

  it("reads the employee number, job title, department group and embedded manager", async () => {
    const file = await readFixture("kombo", "employees.json");
    expect(file.people.find((p) => p.name === "Bruno Costa")).toMatchObject({
      employeeId: "E-302",
      email: "bruno.costa@example.com",
      title: "Frontend Engineer",
      department: "Engineering",
      managerEmail: "anna.schmidt@example.com",
      profileUrl: "https://www.linkedin.com/in/bruno-costa-demo",
    });
  });

  it("reads LinkedIn from a passthrough integration field by its label", async () => {
    const file = await readFixture("kombo", "employees-integration-fields.json");
    expect(file.mapping.preset).toBe("kombo");
    const summary = summarize(file);
    expect(summary.inScope).toEqual(["Mira Kowalski", "Nils Eriksen", "Oskar Brandt", "Paula Weber"]);
    expect(summary.terminated).toEqual(["Rafael Silva", "Sofia Marino"]);
    expect(summary.outOfScope).toEqual(["Theo Klein"]);
    expect(summary.problems).toEqual(["missing-url: Ute Hoffmann", "invalid-url: Viktor Lange"]);
    expect(allNames(summary).join("|")).not.toContain("(no name)");
  });

  it("takes the LinkedIn path from roster.mapping over the named preset", async () => {
    const settings = {
      mapping: { preset: "kombo" as const, profileUrl: ["integration_fields[key=dynamic_4711].value"] },
    };
    const file = await readFixture("kombo", "employees-integration-fields.json", settings);
    expect(file.mapping.preset).toBe("kombo");
    const summary = summarize(file);
    expect(summary.inScope).toEqual(["Mira Kowalski", "Nils Eriksen", "Oskar Brandt", "Paula Weber"]);
    expect(summary.terminated).toEqual(["Rafael Silva", "Sofia Marino"]);
    expect(summary.outOfScope).toEqual(["Theo Klein"]);
    expect(summary.problems).toEqual(["missing-url: Ute Hoffmann", "invalid-url: Viktor Lange"]);
    // The custom field the preset would read first is not looked at: that export has no such path.
    await expect(readFixture("kombo", "employees.json", settings)).rejects.toThrow(
      /none of its \d+ rows has a usable profile URL/,
    );
  });
});
