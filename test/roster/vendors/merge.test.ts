import { describe, expect, it } from "vitest";
import { readFixture, summarize } from "./vendor-fixture.js";

/** Every name the summary shows: none may be "(no name)". */
function allNames(summary: ReturnType<typeof summarize>): string[] {
  return [...summary.inScope, ...summary.terminated, ...summary.outOfScope, ...summary.problems];
}

describe("merge preset: GET /hris/v1/employees", () => {
  it("reads the default page (relations as ids), LinkedIn in an organisation-wide Field Mapping target", async () => {
    const file = await readFixture("merge", "employees.json");
    expect(file.mapping.preset).toBe("merge");
    const summary = summarize(file);
    expect(summary.inScope).toEqual(["Ava Thompson", "Ben Carter", "Chloe Nguyen", "Diego Ramirez"]);
    // INACTIVE; ACTIVE with a termination date passed; deleted in the HRIS (remote_was_deleted).
    expect(summary.terminated).toEqual(["Emma Fischer", "Farid Haddad", "Grace Kim"]);
    // PENDING: hired, not started yet.
    expect(summary.outOfScope).toEqual(["Hiro Tanaka"]);
    expect(summary.problems).toEqual(["missing-url: Isla Murphy", "invalid-url: Jonah Weiss"]);
    expect(allNames(summary).join("|")).not.toContain("(no name)");
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
    const file = await readFixture("merge", "employees-expanded.json");
    expect(file.mapping.preset).toBe("merge");
    const summary = summarize(file);
    expect(summary.inScope).toEqual(["Kara Lindqvist", "Liam O'Brien", "Maya Patel", "Noah Becker"]);
    expect(summary.terminated).toEqual(["Olivia Rossi", "Pavel Novak"]);
    // CONTRACTOR and INTERN employments.
    expect(summary.outOfScope).toEqual(["Quinn Adler", "Rosa Jimenez"]);
    expect(summary.problems).toEqual(["missing-url: Sam Okafor", "invalid-url: Tara Singh"]);
    expect(allNames(summary).join("|")).not.toContain("(no name)");
    expect(file.people.find((p) => p.name === "Kara Lindqvist")).toMatchObject({
      department: "Engineering",
      title: "Staff Engineer",
      managerEmail: "liam.obrien@example.com",
    });
  });

  it("takes the LinkedIn path from roster.mapping over the named preset", async () => {
    // Only the linked-account target is read: the organisation-wide one is not looked at.
    const file = await readFixture("merge", "employees-expanded.json", {
      mapping: { preset: "merge", profileUrl: ["field_mappings.linked_account_defined_targets.linkedin"] },
    });
    expect(file.mapping.preset).toBe("merge");
    const summary = summarize(file);
    expect(summary.inScope).toEqual(["Kara Lindqvist", "Liam O'Brien", "Maya Patel", "Noah Becker"]);
    expect(summary.problems).toEqual(["missing-url: Sam Okafor", "invalid-url: Tara Singh"]);

    // The default page holds its LinkedIn under the organisation-wide target only.
    await expect(
      readFixture("merge", "employees.json", {
        mapping: { preset: "merge", profileUrl: ["field_mappings.linked_account_defined_targets.linkedin"] },
      }),
    ).rejects.toThrow(/none of its \d+ rows has a usable profile URL/);
  });
});
