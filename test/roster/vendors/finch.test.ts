import { describe, expect, it } from "vitest";
import { expectSorted, readAs, readFixture } from "./vendor-fixture.js";

// test/fixtures/hris/finch/: the employment answer (`POST /employer/employment`), the same with
// LinkedIn in a custom field named otherwise, and the directory (`GET /employer/directory`).
const EMPLOYMENT = {
  // Sofia is on leave; Daniel has neither employment_status nor subtype, only type "employee".
  inScope: ["Elena Rossi", "Marcus Reed", "Sofia Alvarez", "Daniel Cho"],
  // Hannah by employment_status terminated; Victor has no employment_status and is_active false;
  // Aisha has neither, and her end_date has passed.
  terminated: ["Hannah Weiss", "Victor Lindgren", "Aisha Bello"],
  // Tom is an individual_contractor, Zoe an intern.
  outOfScope: ["Tom Becker", "Zoe Tran"],
  // Chris has no LinkedIn custom field; Lucia's holds a company page.
  problems: ["missing-url: Chris Ng", "invalid-url: Lucia Moreno"],
};

// `responses.*.body` is no wrapper that mapping auto looks into: roster.records says where the
// records are, or naming the preset uses its `records`.
const RECORDS = { records: "responses.*.body" };

describe("Finch employment (POST /employer/employment)", () => {
  it("is recognised by mapping auto once roster.records points at responses.*.body", async () => {
    expect((await readFixture("finch", "employment.json", RECORDS)).mapping.preset).toBe("finch");
  });

  it("sorts people in scope, terminated, out of scope and broken LinkedIn values", async () => {
    expectSorted(await readFixture("finch", "employment.json", RECORDS), EMPLOYMENT);
  });

  it("finds the records itself when the preset is named", async () => {
    expectSorted(await readAs("finch", "employment.json", { mapping: "finch" }), EMPLOYMENT);
  });

  it("is refused with neither roster.records nor the preset named: its records are not found", async () => {
    await expect(readFixture("finch", "employment.json")).rejects.toThrow(/records/);
  });

  it("reads title, department and the Finch id", async () => {
    const file = await readFixture("finch", "employment.json", RECORDS);
    const elena = file.people.find((p) => p.name === "Elena Rossi");
    expect(elena).toMatchObject({
      profileUrl: expect.stringContaining("linkedin.com/in/elena-rossi"),
      title: "Staff Engineer",
      department: "Engineering",
      employeeId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });
});

describe("Finch with LinkedIn in a custom field of the employer's own name", () => {
  it("finds no LinkedIn value under the usual custom-field names, and refuses the file", async () => {
    await expect(readFixture("finch", "employment-social-profile.json", RECORDS)).rejects.toThrow(
      /nobody was archived/,
    );
  });

  it("reads it once the mapping names the field", async () => {
    const file = await readAs("finch", "employment-social-profile.json", {
      mapping: { preset: "finch", profileUrl: ["custom_fields[name=Social Profile].value"] },
    });
    expectSorted(file, EMPLOYMENT);
  });
});

describe("Finch directory (GET /employer/directory)", () => {
  it("is recognised, then refused as a whole: the directory carries no custom fields, so no LinkedIn", async () => {
    await expect(readFixture("finch", "directory.json")).rejects.toThrow(/has no profile URL column.*mapping finch/);
  });
});
