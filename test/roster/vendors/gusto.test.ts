import { describe, expect, it } from "vitest";
import { expectSorted, readAs, readFixture } from "./vendor-fixture.js";

// test/fixtures/hris/gusto/: `GET /v1/companies/{company_id}/employees` with
// `include=custom_fields,current_home_address,portal_invitations`, a top-level array of employees;
// and the same employees with LinkedIn in a custom field named otherwise.
const EMPLOYEES = {
  // Jonas is part_time_twenty_plus_hours; Leo has a termination scheduled for 2027 (not yet terminated).
  inScope: ["Maya Chen", "Jonas Berg", "Fatima Zahra", "Leo Martins"],
  // Both have `terminated: true`, Gusto's flag.
  terminated: ["Grace Kim", "Omar Haddad"],
  // Nina is a seasonal employee; Ben is still self-onboarding (invited).
  outOfScope: ["Nina Petrova", "Ben Adler"],
  // Ivy's LinkedIn custom field is empty; Raj's holds "not a url".
  problems: ["missing-url: Ivy Brooks", "invalid-url: Raj Patel"],
};

describe("Gusto employees (GET /v1/companies/{company_id}/employees)", () => {
  it("is recognised by mapping auto", async () => {
    expect((await readFixture("gusto", "employees.json")).mapping.preset).toBe("gusto");
  });

  it("sorts people in scope, terminated, out of scope and broken LinkedIn values", async () => {
    expectSorted(await readFixture("gusto", "employees.json"), EMPLOYEES);
  });

  it("reads the work email and the primary job's title", async () => {
    const file = await readFixture("gusto", "employees.json");
    const fatima = file.people.find((p) => p.name === "Fatima Zahra");
    expect(fatima).toMatchObject({
      profileUrl: expect.stringContaining("linkedin.com/in/fatima-zahra"),
      email: "fatima.zahra@example.com",
      department: "Marketing",
      title: "Marketing Manager",
    });
  });
});

describe("Gusto with LinkedIn in a custom field of the company's own name", () => {
  it("finds no LinkedIn value under the usual custom-field names, and refuses the file", async () => {
    await expect(readFixture("gusto", "employees-social-profile.json")).rejects.toThrow(/nobody was archived/);
  });

  it("reads it once the mapping names the field", async () => {
    const file = await readAs("gusto", "employees-social-profile.json", {
      mapping: { preset: "gusto", profileUrl: ["custom_fields[name=social_profile].value"] },
    });
    expectSorted(file, EMPLOYEES);
  });
});
