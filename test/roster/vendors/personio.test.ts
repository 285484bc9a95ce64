import { describe, expect, it } from "vitest";
import { expectSorted, readAs, readFixture } from "./vendor-fixture.js";

// test/fixtures/hris/personio/company-employees.json: a `GET /v1/company/employees` answer. LinkedIn
// is the custom attribute dynamic_1146790 (labelled "LinkedIn" by the company): Personio has no
// standard LinkedIn attribute, so the mapping names it.
const FILE = "company-employees.json";
const LINKEDIN = ["attributes.dynamic_1146790.value"];
const SETTINGS = { mapping: { preset: "personio" as const, profileUrl: LINKEDIN } };

describe("Personio employees (GET /v1/company/employees)", () => {
  it("is recognised by mapping auto, with the LinkedIn attribute named over it", async () => {
    const file = await readFixture("personio", FILE, { mapping: { preset: "auto", profileUrl: LINKEDIN } });
    expect(file.mapping.preset).toBe("personio");
  });

  it("sorts people in scope, terminated, out of scope and broken LinkedIn values", async () => {
    expectSorted(await readAs("personio", FILE, SETTINGS), {
      inScope: ["Lena Fischer", "Tobias Wagner", "Sofia Marino", "Jan Kowalski"],
      // Anna's status is inactive (no termination date entered); Lukas is still active but his
      // termination date passed.
      terminated: ["Anna Weber", "Lukas Hoffmann"],
      // Clara is onboarding (hire date ahead); Max's employment type is external.
      outOfScope: ["Clara Neumann", "Max Braun"],
      // Mia's LinkedIn attribute is null; Paul's is not a URL.
      problems: ["missing-url: Mia Schneider", "invalid-url: Paul Becker"],
    });
  });

  it("reads the label/value attributes, department, office and the supervisor's email", async () => {
    const file = await readFixture("personio", FILE, SETTINGS);
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
    const file = await readFixture("personio", FILE, { ...SETTINGS, include: { locations: ["Munich"] } });
    expect(file.people.map((p) => p.name)).toEqual(["Lena Fischer", "Sofia Marino"]);
  });

  it("finds no LinkedIn value without the custom attribute named", async () => {
    await expect(readFixture("personio", FILE)).rejects.toThrow(/profile URL/i);
  });
});
