import { describe, expect, it } from "vitest";
import { readFixture, summarize } from "./vendor-fixture.js";

/** Every name the summary shows: none may be "(no name)". */
function allNames(summary: ReturnType<typeof summarize>): string[] {
  return [...summary.inScope, ...summary.terminated, ...summary.outOfScope, ...summary.problems];
}

describe("rippling preset: platform API GET /employees/include_terminated", () => {
  it("reads the top-level array, LinkedIn in a custom field keyed by its title", async () => {
    const file = await readFixture("rippling", "employees-include-terminated.json");
    expect(file.mapping.preset).toBe("rippling");
    const summary = summarize(file);
    // SALARIED_FT, HOURLY_PT, SALARIED_PT, HOURLY_FT (Daniel's end date is still to come).
    expect(summary.inScope).toEqual(["Alice Moreau", "Brian Osei", "Carmen Diaz", "Daniel Cho"]);
    // roleState TERMINATED; ACTIVE with an end date passed.
    expect(summary.terminated).toEqual(["Eva Lindgren", "Frank Miller"]);
    // A CONTRACTOR, and an ACCEPTED offer not started yet.
    expect(summary.outOfScope).toEqual(["Gina Russo", "Hugo Laurent"]);
    expect(summary.problems).toEqual(["missing-url: Ines Sousa", "invalid-url: Jack Wilson"]);
    expect(allNames(summary).join("|")).not.toContain("(no name)");
    expect(file.people.find((p) => p.name === "Brian Osei")).toMatchObject({
      employeeId: "102",
      email: "brian.osei@example.com",
      department: "Customer Success",
      title: "Support Specialist",
      profileUrl: "https://www.linkedin.com/in/brian-osei-demo",
    });
  });

  it("takes the LinkedIn path from roster.mapping over the named preset", async () => {
    const file = await readFixture("rippling", "employees-include-terminated.json", {
      mapping: { preset: "rippling", profileUrl: ["customFields.LinkedIn Profile"] },
    });
    expect(file.mapping.preset).toBe("rippling");
    const summary = summarize(file);
    expect(summary.inScope).toEqual(["Alice Moreau", "Brian Osei", "Carmen Diaz", "Daniel Cho"]);
    expect(summary.terminated).toEqual(["Eva Lindgren", "Frank Miller"]);
    expect(summary.outOfScope).toEqual(["Gina Russo", "Hugo Laurent"]);
    expect(summary.problems).toEqual(["missing-url: Ines Sousa", "invalid-url: Jack Wilson"]);
  });
});

describe("rippling preset: REST API GET /workers", () => {
  it("recognises the workers page, and stops for want of a LinkedIn path (custom_fields is not documented)", async () => {
    // Every status-like key of the page is read or known (the unread-status guard passes): the
    // file is refused only because no LinkedIn path is named.
    await expect(readFixture("rippling", "workers.json")).rejects.toThrow(
      /has no profile URL column.*\(mapping rippling\)/s,
    );
  });
});
