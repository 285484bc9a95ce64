import { describe, expect, it } from "vitest";
import { readFixture, summarize } from "./vendor-fixture.js";

// test/fixtures/hris/personio/company-employees.json: a `GET /v1/company/employees` answer. LinkedIn
// is the custom attribute dynamic_1146790 (labelled "LinkedIn" by the company): Personio has no
// standard LinkedIn attribute, so the mapping names it.
const FILE = "company-employees.json";
const LINKEDIN = ["attributes.dynamic_1146790.value"];
const IN_SCOPE = ["Lena Fischer", "Tobias Wagner", "Sofia Marino", "Jan Kowalski"];
const TERMINATED = ["Anna Weber", "Lukas Hoffmann"];
const OUT_OF_SCOPE = ["Clara Neumann", "Max Braun"];
const PROBLEMS = ["missing-url: Mia Schneider", "invalid-url: Paul Becker"];

describe("Personio employees (GET /v1/company/employees)", () => {
  it("is recognised by mapping auto, with the LinkedIn attribute named over it", async () => {
    const file = await readFixture("personio", FILE, { mapping: { preset: "auto", profileUrl: LINKEDIN } });
    expect(file.mapping.preset).toBe("personio");
  });

  it("sorts people in scope, terminated, out of scope and broken LinkedIn values", async () => {
    const file = await readFixture("personio", FILE, { mapping: { preset: "personio", profileUrl: LINKEDIN } });
    expect(file.mapping.preset).toBe("personio");
    const summary = summarize(file);
    expect(summary.inScope).toEqual(IN_SCOPE);
    // Anna's status is inactive (no termination date entered); Lukas is still active but his
    // termination date passed.
    expect(summary.terminated).toEqual(TERMINATED);
    // Clara is onboarding (hire date ahead); Max's employment type is external.
    expect(summary.outOfScope).toEqual(OUT_OF_SCOPE);
    // Mia's LinkedIn attribute is null; Paul's is not a URL.
    expect(summary.problems).toEqual(PROBLEMS);
    const everyone = [...summary.inScope, ...summary.terminated, ...summary.outOfScope, ...summary.problems];
    expect(everyone.join("\n")).not.toContain("(no name)");
  });

  it("reads the label/value attributes, department, office and the supervisor's email", async () => {
    const file = await readFixture("personio", FILE, { mapping: { preset: "personio", profileUrl: LINKEDIN } });
    const lena = file.people.find((p) => p.name === "Lena Fischer");
    expect(lena).toMatchObject({
      profileUrl: expect.stringContaining("linkedin.com/in/lena-fischer-example"),
      employeeId: "4101",
      email: "lena.fischer@example.com",
      department: "Engineering",
      title: "Backend Developer",
      managerEmail: "katrin.vogel@example.com",
    });
  });

  it("reads the office as the location", async () => {
    const file = await readFixture("personio", FILE, {
      mapping: { preset: "personio", profileUrl: LINKEDIN },
      include: { locations: ["Munich"] },
    });
    expect(file.people.map((p) => p.name)).toEqual(["Lena Fischer", "Sofia Marino"]);
  });

  it("finds no LinkedIn value without the custom attribute named", async () => {
    await expect(readFixture("personio", FILE)).rejects.toThrow(/profile URL/i);
  });
});
