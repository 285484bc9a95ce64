import { describe, expect, it } from "vitest";
import { expectSorted, readAs, readFixture } from "./vendor-fixture.js";

/** The people of employees-expanded.json, whichever Field Mapping target LinkedIn is read from. */
const EXPANDED = {
  inScope: ["Kara Lindqvist", "Liam O'Brien", "Maya Patel", "Noah Becker"],
  terminated: ["Olivia Rossi", "Pavel Novak"],
  // CONTRACTOR and INTERN employments.
  outOfScope: ["Quinn Adler", "Rosa Jimenez"],
  problems: ["missing-url: Sam Okafor", "invalid-url: Tara Singh"],
};

describe("merge preset: GET /hris/v1/employees", () => {
  it("reads the default page (relations as ids), LinkedIn in an organisation-wide Field Mapping target", async () => {
    expectSorted(await readAs("merge", "employees.json"), {
      inScope: ["Ava Thompson", "Ben Carter", "Chloe Nguyen", "Diego Ramirez"],
      // INACTIVE; ACTIVE with a termination date passed; deleted in the HRIS (remote_was_deleted).
      terminated: ["Emma Fischer", "Farid Haddad", "Grace Kim"],
      // PENDING: hired, not started yet.
      outOfScope: ["Hiro Tanaka"],
      problems: ["missing-url: Isla Murphy", "invalid-url: Jonah Weiss"],
    });
  });

  it("reads ids and emails; department, title and manager stay empty when not expanded", async () => {
    const file = await readFixture("merge", "employees.json");
    const ben = file.people.find((p) => p.name === "Ben Carter");
    expect(ben).toMatchObject({
      employeeId: "4102",
      email: "ben.carter@example.com",
      profileUrl: "https://www.linkedin.com/in/ben-carter-demo",
    });
    expect(ben?.department).toBeUndefined();
    expect(ben?.title).toBeUndefined();
    expect(ben?.managerEmail).toBeUndefined();
  });

  it("reads an expanded page: employment type, department group and manager", async () => {
    const file = await readAs("merge", "employees-expanded.json");
    expectSorted(file, EXPANDED);
    expect(file.people.find((p) => p.name === "Kara Lindqvist")).toMatchObject({
      department: "Engineering",
      title: "Staff Engineer",
      managerEmail: "liam.obrien@example.com",
    });
  });

  it("takes the LinkedIn path from roster.mapping over the named preset", async () => {
    // Only the linked-account target is read: the organisation-wide one is not looked at.
    const settings = {
      mapping: { preset: "merge" as const, profileUrl: ["field_mappings.linked_account_defined_targets.linkedin"] },
    };
    expectSorted(await readAs("merge", "employees-expanded.json", settings), EXPANDED);

    // The default page holds its LinkedIn under the organisation-wide target only.
    await expect(readFixture("merge", "employees.json", settings)).rejects.toThrow(
      /none of its \d+ rows has a usable profile URL/,
    );
  });
});
