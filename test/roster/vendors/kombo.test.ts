import { describe, expect, it } from "vitest";
import { expectSorted, readAs, readFixture } from "./vendor-fixture.js";

/** The people of employees-integration-fields.json, LinkedIn in a passthrough integration field. */
const INTEGRATION_FIELDS = {
  inScope: ["Mira Kowalski", "Nils Eriksen", "Oskar Brandt", "Paula Weber"],
  terminated: ["Rafael Silva", "Sofia Marino"],
  outOfScope: ["Theo Klein"],
  problems: ["missing-url: Ute Hoffmann", "invalid-url: Viktor Lange"],
};

describe("kombo preset: GET /hris/employees", () => {
  it("reads data.results, LinkedIn in a Kombo custom field", async () => {
    expectSorted(await readAs("kombo", "employees.json"), {
      // LEAVE is still employed; David's termination date is still to come.
      inScope: ["Anna Schmidt", "Bruno Costa", "Clara Jansen", "David Levi"],
      // INACTIVE; deleted in the HRIS (remote_deleted_at); ACTIVE with a termination date passed.
      terminated: ["Elena Petrova", "Felix Wagner", "Greta Lund"],
      // PENDING (not started) and a CONTRACT employment type.
      outOfScope: ["Hanna Berg", "Ivan Horvat"],
      problems: ["missing-url: Karl Braun", "invalid-url: Lena Vogel"],
    });
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
    expectSorted(await readAs("kombo", "employees-integration-fields.json"), INTEGRATION_FIELDS);
  });

  it("takes the LinkedIn path from roster.mapping over the named preset", async () => {
    const settings = {
      mapping: { preset: "kombo" as const, profileUrl: ["integration_fields[key=dynamic_4711].value"] },
    };
    expectSorted(await readAs("kombo", "employees-integration-fields.json", settings), INTEGRATION_FIELDS);
    // The custom field the preset would read first is not looked at: that export has no such path.
    await expect(readFixture("kombo", "employees.json", settings)).rejects.toThrow(
      /none of its \d+ rows has a usable profile URL/,
    );
  });
});
