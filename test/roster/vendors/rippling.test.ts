import { describe, expect, it } from "vitest";
import { expectSorted, readAs, readFixture } from "./vendor-fixture.js";

const FILE = "employees-include-terminated.json";
const EMPLOYEES = {
  // SALARIED_FT, HOURLY_PT, SALARIED_PT, HOURLY_FT (Daniel's end date is still to come).
  inScope: ["Alice Moreau", "Brian Osei", "Carmen Diaz", "Daniel Cho"],
  // roleState TERMINATED; ACTIVE with an end date passed.
  terminated: ["Eva Lindgren", "Frank Miller"],
  // A CONTRACTOR, and an ACCEPTED offer not started yet.
  outOfScope: ["Gina Russo", "Hugo Laurent"],
  problems: ["missing-url: Ines Sousa", "invalid-url: Jack Wilson"],
};

describe("rippling preset: platform API GET /employees/include_terminated", () => {
  it("reads the top-level array, LinkedIn in a custom field keyed by its title", async () => {
    const file = await readAs("rippling", FILE);
    expectSorted(file, EMPLOYEES);
    expect(file.people.find((p) => p.name === "Brian Osei")).toMatchObject({
      employeeId: "102",
      email: "brian.osei@example.com",
      department: "Customer Success",
      title: "Support Specialist",
      profileUrl: "https://www.linkedin.com/in/brian-osei-demo",
    });
  });

  it("takes the LinkedIn path from roster.mapping over the named preset", async () => {
    const file = await readAs("rippling", FILE, {
      mapping: { preset: "rippling", profileUrl: ["customFields.LinkedIn Profile"] },
    });
    expectSorted(file, EMPLOYEES);
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
