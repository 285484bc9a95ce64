import { describe, expect, it } from "vitest";
import { readFixture, summarize } from "./vendor-fixture.js";

// test/fixtures/hris/hibob/people-search.json: a `POST /v1/people/search` answer (showInactive true,
// humanReadable APPEND): each field under its slash key and in the nested category objects, list
// fields as item ids, display values in the `humanReadable` node. people-search-replace.json: the
// same people with humanReadable REPLACE (display values in place, no humanReadable node).
// LinkedIn is Bob's About > Social data > LinkedIn field; the same URLs are also in a custom Work
// field (work.custom.field_1699876543210), where Elena's is filled in too.
const FILE = "people-search.json";
const REPLACE_FILE = "people-search-replace.json";
const IN_SCOPE = ["Amelia Hart", "Bruno Alves", "Chiara Rossi", "Dmitri Volkov"];
const TERMINATED = ["Grace Okafor", "Henrik Larsen", "Isabel Cruz"];
const OUT_OF_SCOPE = ["Jonah Weiss"];
const PROBLEMS = ["missing-url: Elena Park", "invalid-url: Farid Haddad"];

describe("HiBob People API search", () => {
  it("is recognised by mapping auto", async () => {
    const file = await readFixture("hibob", FILE);
    expect(file.mapping.preset).toBe("hibob");
  });

  it("sorts people in scope, terminated, out of scope and broken LinkedIn values", async () => {
    const summary = summarize(await readFixture("hibob", FILE));
    expect(summary.inScope).toEqual(IN_SCOPE);
    // Grace's lifecycle is Terminated; Henrik is still Employed but his termination date passed;
    // Isabel is on garden leave, which Bob counts as terminated.
    expect(summary.terminated).toEqual(TERMINATED);
    // Jonah is Hired: his start date is still ahead.
    expect(summary.outOfScope).toEqual(OUT_OF_SCOPE);
    // Elena's LinkedIn field is null; Farid's holds a company page.
    expect(summary.problems).toEqual(PROBLEMS);
    const everyone = [...summary.inScope, ...summary.terminated, ...summary.outOfScope, ...summary.problems];
    expect(everyone.join("\n")).not.toContain("(no name)");
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
    const file = await readFixture("hibob", REPLACE_FILE);
    expect(file.mapping.preset).toBe("hibob");
    const summary = summarize(file);
    expect(summary.inScope).toEqual(IN_SCOPE);
    expect(summary.terminated).toEqual(TERMINATED);
    expect(summary.outOfScope).toEqual(OUT_OF_SCOPE);
    expect(summary.problems).toEqual(PROBLEMS);
    expect(file.people.find((p) => p.name === "Amelia Hart")?.department).toBe("Engineering");
  });

  it("reads LinkedIn from a custom field once the mapping names its path", async () => {
    const file = await readFixture("hibob", FILE, {
      mapping: { preset: "hibob", profileUrl: ["work.custom.field_1699876543210"] },
    });
    expect(file.mapping.preset).toBe("hibob");
    const summary = summarize(file);
    expect(summary.inScope).toEqual(["Amelia Hart", "Bruno Alves", "Chiara Rossi", "Dmitri Volkov", "Elena Park"]);
    expect(summary.terminated).toEqual(TERMINATED);
    expect(summary.outOfScope).toEqual(OUT_OF_SCOPE);
    expect(summary.problems).toEqual(["invalid-url: Farid Haddad"]);
  });
});
