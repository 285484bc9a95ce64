import { describe, expect, it } from "vitest";
import { expectSorted, readAs, readFixture } from "./vendor-fixture.js";

// test/fixtures/hris/adp/: a Workers API v2 answer (`GET /hr/v2/workers`), the same workers as a
// worker.read event answer, and the same workers with LinkedIn in a custom field named otherwise.
const WORKERS = {
  inScope: ["Okafor, Amara", "Ferreira, Diego", "Sato, Hana", "Nowak, Tomasz"],
  // Ruth by workerStatus Terminated; Samuel is still Active but his workerDates.terminationDate passed.
  terminated: ["Mensah, Ruth", "Idowu, Samuel"],
  // Lena's primary position has the worker type "Contractor - 1099".
  outOfScope: ["Vogel, Lena"],
  // Kofi's LinkedIn custom field is there without a value; Priya's holds a company page.
  problems: ["missing-url: Asante, Kofi", "invalid-url: Raman, Priya"],
};

describe("ADP Workforce Now workers (GET /hr/v2/workers)", () => {
  it("is recognised by mapping auto", async () => {
    expect((await readFixture("adp", "workers.json")).mapping.preset).toBe("adp");
  });

  it("sorts people in scope, terminated, out of scope and broken LinkedIn values", async () => {
    expectSorted(await readFixture("adp", "workers.json"), WORKERS);
  });

  it("reads the primary position even when a secondary one comes first", async () => {
    const file = await readFixture("adp", "workers.json");
    const diego = file.people.find((p) => p.name === "Ferreira, Diego");
    expect(diego).toMatchObject({
      profileUrl: expect.stringContaining("linkedin.com/in/diego-ferreira"),
      employeeId: "BDK4RZ8N1",
      email: "diego.ferreira@example.com",
      title: "Product Designer",
      department: "Design",
    });
  });

  it("keeps a worker on leave (workerStatus Inactive) and one whose termination date is still ahead", async () => {
    const file = await readFixture("adp", "workers.json");
    const hana = file.people.find((p) => p.name === "Sato, Hana");
    const tomasz = file.people.find((p) => p.name === "Nowak, Tomasz");
    expect(hana?.profileUrl).toContain("linkedin.com/in/hana-sato");
    expect(tomasz?.profileUrl).toContain("linkedin.com/in/tomasz-nowak-42");
  });
});

describe("ADP Workforce Now worker.read event answer", () => {
  it("reads the workers at events.*.data.output.workers when roster.records says so", async () => {
    expectSorted(await readAs("adp", "worker-read-event.json", { records: "events.*.data.output.workers" }), WORKERS);
  });
});

describe("ADP Workforce Now with LinkedIn in a custom field of the company's own name", () => {
  it("finds no LinkedIn value under the usual custom-field names, and refuses the file", async () => {
    await expect(readFixture("adp", "workers-social-profile.json")).rejects.toThrow(/nobody was archived/);
  });

  it("reads it once the mapping names the field", async () => {
    const file = await readAs("adp", "workers-social-profile.json", {
      mapping: {
        preset: "adp",
        profileUrl: ["person.customFieldGroup.stringFields[nameCode.codeValue=Social Profile].stringValue"],
      },
    });
    expectSorted(file, WORKERS);
  });
});
