import { describe, expect, it } from "vitest";
import { expectSorted, readAs, readFixture } from "./vendor-fixture.js";

// test/fixtures/hris/hibob/people-search.json: a `POST /v1/people/search` answer (showInactive true,
// humanReadable APPEND): each field under its slash key and in the nested category objects, list
// fields as item ids, display values in the `humanReadable` node. people-search-replace.json: the
// same people with humanReadable REPLACE (display values in place, no humanReadable node).
// LinkedIn is Bob's About > Social data > LinkedIn field; the same URLs are also in a custom Work
// field (work.custom.field_1699876543210), where Elena's is filled in too.
const FILE = "people-search.json";
const REPLACE_FILE = "people-search-replace.json";
const PEOPLE = {
  inScope: ["Amelia Hart", "Bruno Alves", "Chiara Rossi", "Dmitri Volkov"],
  // Grace's lifecycle is Terminated; Henrik is still Employed but his termination date passed;
  // Isabel is on garden leave, which Bob counts as terminated.
  terminated: ["Grace Okafor", "Henrik Larsen", "Isabel Cruz"],
  // Jonah is Hired: his start date is still ahead.
  outOfScope: ["Jonah Weiss"],
  // Elena's LinkedIn field is null; Farid's holds a company page.
  problems: ["missing-url: Elena Park", "invalid-url: Farid Haddad"],
};

describe("HiBob People API search", () => {
  it("is recognised by mapping auto", async () => {
    expect((await readFixture("hibob", FILE)).mapping.preset).toBe("hibob");
  });

  it("sorts people in scope, terminated, out of scope and broken LinkedIn values", async () => {
    expectSorted(await readFixture("hibob", FILE), PEOPLE);
  });

  it("reads display values from the humanReadable node and the manager's email", async () => {
    const file = await readFixture("hibob", FILE);
    const amelia = file.people.find((p) => p.name === "Amelia Hart");
    expect(amelia).toMatchObject({
      profileUrl: expect.stringContaining("linkedin.com/in/amelia-hart-example"),
      employeeId: "101",
      email: "amelia.hart@example.com",
      department: "Engineering",
      title: "Backend Engineer",
      managerEmail: "nora.lindqvist@example.com",
    });
  });

  it("reads the site as the location", async () => {
    const file = await readFixture("hibob", FILE, { include: { locations: ["London"] } });
    expect(file.people.map((p) => p.name)).toEqual(["Amelia Hart"]);
  });

  it("keeps people on leave and parental leave, whose Active/Inactive status says Inactive", async () => {
    const file = await readFixture("hibob", FILE);
    const names = file.people.map((p) => p.name);
    expect(names).toContain("Chiara Rossi");
    expect(names).toContain("Dmitri Volkov");
  });

  it("reads the same people from an answer with humanReadable REPLACE", async () => {
    const file = await readAs("hibob", REPLACE_FILE);
    expectSorted(file, PEOPLE);
    expect(file.people.find((p) => p.name === "Amelia Hart")?.department).toBe("Engineering");
  });

  it("reads LinkedIn from a custom field once the mapping names its path", async () => {
    const file = await readAs("hibob", FILE, {
      mapping: { preset: "hibob", profileUrl: ["work.custom.field_1699876543210"] },
    });
    expectSorted(file, {
      // The custom field holds Elena's LinkedIn too.
      inScope: ["Amelia Hart", "Bruno Alves", "Chiara Rossi", "Dmitri Volkov", "Elena Park"],
      terminated: PEOPLE.terminated,
      outOfScope: PEOPLE.outOfScope,
      problems: ["invalid-url: Farid Haddad"],
    });
  });
});
