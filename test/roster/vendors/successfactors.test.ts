import { describe, expect, it } from "vitest";
import { expectSorted, readAs, readFixture } from "./vendor-fixture.js";

// test/fixtures/hris/successfactors/user.json: `GET /odata/v2/User?$filter=status in 't','f','e'
// &$expand=manager&$format=json` with LinkedIn in the company's custom07 field.
// test/fixtures/hris/successfactors/per-person.json: `GET /odata/v2/PerPerson?$expand=personalInfoNav,
// emailNav,socialAccountNav,employmentNav,employmentNav/jobInfoNav&$format=json`, LinkedIn in the
// person's social accounts.
const USER_LINKEDIN = ["custom07"];
const PERSON_LINKEDIN = ["socialAccountNav.results[domain=LinkedIn].url"];

describe("SuccessFactors OData v2 User", () => {
  const settings = { mapping: { preset: "successfactors" as const, profileUrl: USER_LINKEDIN } };

  it("is recognised by mapping auto, with the LinkedIn custom field named over it", async () => {
    const file = await readFixture("successfactors", "user.json", {
      mapping: { preset: "auto", profileUrl: USER_LINKEDIN },
    });
    expect(file.mapping.preset).toBe("successfactors");
  });

  it("sorts people in scope, terminated, out of scope and broken LinkedIn values", async () => {
    expectSorted(await readAs("successfactors", "user.json", settings), {
      inScope: ["Priya Nair", "Owen Brooks", "Hannah Schmidt", "Kenji Tanaka"],
      // Sven and Tomas have status f (inactive): the User entity has no termination date.
      terminated: ["Sven Olsen", "Tomas Novak"],
      // Nina has status e: an onboarding user, not an employee yet.
      outOfScope: ["Nina Petrova"],
      // Laura's custom07 is null; Marc's holds a company page.
      problems: ["missing-url: Laura Gomez", "invalid-url: Marc Dubois"],
    });
  });

  it("reads the user's fields and the expanded manager's email", async () => {
    const file = await readFixture("successfactors", "user.json", settings);
    const priya = file.people.find((p) => p.name === "Priya Nair");
    expect(priya).toMatchObject({
      profileUrl: expect.stringContaining("linkedin.com/in/priya-nair-example"),
      employeeId: "100101",
      email: "priya.nair@example.com",
      department: "Engineering",
      title: "Software Engineer",
      managerEmail: "rachel.moore@example.com",
    });
  });

  it("reads the location", async () => {
    const file = await readFixture("successfactors", "user.json", { ...settings, include: { locations: ["Boston"] } });
    expect(file.people.map((p) => p.name)).toEqual(["Priya Nair", "Hannah Schmidt"]);
  });

  it("finds no LinkedIn value without the custom field named", async () => {
    await expect(readFixture("successfactors", "user.json")).rejects.toThrow(/profile URL/i);
  });
});

describe("SuccessFactors OData v2 PerPerson with expanded navigations", () => {
  const settings = { mapping: { preset: "successfactors" as const, profileUrl: PERSON_LINKEDIN } };

  it("is recognised by mapping auto, with the social account named over it", async () => {
    const file = await readFixture("successfactors", "per-person.json", {
      mapping: { preset: "auto", profileUrl: PERSON_LINKEDIN },
    });
    expect(file.mapping.preset).toBe("successfactors");
  });

  it("sorts people in scope, terminated, out of scope and broken LinkedIn values", async () => {
    expectSorted(await readFixture("successfactors", "per-person.json", settings), {
      // Rafael's employment ends 2027-02-28, still ahead.
      inScope: ["Aisha Bello", "Lucas Moreau", "Ingrid Berg", "Rafael Souza"],
      // Julia's and Peter's employment end dates (/Date(ms)/) have passed.
      terminated: ["Julia Novak", "Peter Walsh"],
      // Zoe is a contingent worker.
      outOfScope: ["Zoe Laurent"],
      // Mei has no social account; Omar's is a company page.
      problems: ["missing-url: Mei Chen", "invalid-url: Omar Farouk"],
    });
  });

  it("reads the personal, email and job information navigations", async () => {
    const file = await readFixture("successfactors", "per-person.json", settings);
    const aisha = file.people.find((p) => p.name === "Aisha Bello");
    expect(aisha).toMatchObject({
      profileUrl: expect.stringContaining("linkedin.com/in/aisha-bello-example"),
      employeeId: "200101",
      email: "aisha.bello@example.com",
      department: "PRODUCT",
      title: "Product Manager",
    });
    const inLondon = await readFixture("successfactors", "per-person.json", {
      ...settings,
      include: { locations: ["LON"] },
    });
    expect(inLondon.people.map((p) => p.name)).toEqual(["Aisha Bello"]);
  });
});
