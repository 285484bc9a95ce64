import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { RosterFileError } from "../../src/errors.js";
import { readRoster } from "../../src/roster/read-roster.js";
import { canonicalUrl, makePeople, rosterDir, toCsv, toJson, toNdjson } from "../helpers/roster-files.js";

const include = configSchema.parse({}).roster.include;
const now = new Date("2026-11-23T10:00:00Z");
let files: Awaited<ReturnType<typeof rosterDir>>;

beforeAll(async () => {
  files = await rosterDir();
});
afterAll(async () => {
  await files.cleanup();
});

async function read(name: string, content: string | Buffer, extra: Partial<Parameters<typeof readRoster>[0]> = {}) {
  const file = await files.write(name, content);
  return readRoster({ file, include, now, ...extra });
}

async function structural(name: string, content: string | Buffer, pattern: RegExp, extra = {}) {
  const error = await read(name, content, extra).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RosterFileError);
  expect((error as RosterFileError).message).toMatch(pattern);
  expect((error as RosterFileError).message).toContain(name);
}

describe("readRoster: CSV", () => {
  it("reads a BOM, CRLF export with quoted commas, quotes and newlines", async () => {
    const people = makePeople(3).map((p, i) =>
      i === 1 ? { ...p, name: 'Doe, "JJ"\nJunior', department: "R&D, Labs" } : p,
    );
    const roster = await read("bom.csv", toCsv(people, { bom: true, crlf: true }));
    expect(roster.format).toBe("csv");
    expect(roster.people.map((p) => p.profileUrl)).toEqual(people.map((p) => canonicalUrl(p.slug)));
    expect(roster.people[1]).toMatchObject({ name: 'Doe, "JJ"\nJunior', department: "R&D, Labs", line: 3 });
    expect(roster.people[2]?.line).toBe(5);
    expect(roster.problems).toEqual([]);
    expect(roster.notices).toEqual([]);
  });

  it("reads a semicolon-separated file and says so", async () => {
    const roster = await read("semi.csv", toCsv(makePeople(2), { delimiter: ";" }));
    expect(roster.people).toHaveLength(2);
    expect(roster.notices.join(" ")).toMatch(/semicolon/);
  });

  it("reads a tab-separated file and says so", async () => {
    const roster = await read("tabs.tsv", toCsv(makePeople(2), { delimiter: "\t" }));
    expect(roster.people).toHaveLength(2);
    expect(roster.notices.join(" ")).toMatch(/tab/);
  });

  it("matches generic headers ignoring case, spaces, _ and -, and joins first and last names", async () => {
    const csv = "LINKEDIN_url,first-name,Last Name,dept\nlinkedin.com/in/ada-l,Ada,Lovelace,x\n";
    const roster = await read("generic.csv", csv);
    expect(roster.people[0]).toMatchObject({ profileUrl: canonicalUrl("ada-l"), name: "Ada Lovelace", line: 2 });
  });

  it("reads BambooHR and Workday style headers with their built-in mappings", async () => {
    const bamboo =
      "Employee #,First Name,Last Name,Department,Job Title,Employment Status,LinkedIn\n7,Ada,L,Eng,CTO,Active,https://uk.linkedin.com/in/ada-b/\n";
    const b = await read("bamboo.csv", bamboo, { mapping: "bamboohr" });
    expect(b.people[0]).toMatchObject({
      employeeId: "7",
      name: "Ada L",
      department: "Eng",
      title: "CTO",
      profileUrl: canonicalUrl("ada-b"),
    });
    const workday =
      "Employee ID,Worker,Business Title,Supervisory Organization,Worker Status,LinkedIn Profile URL\nW1,Ada W,CTO,Eng,Terminated,linkedin.com/in/ada-w\nW2,Bob W,Dev,Eng,Active,linkedin.com/in/bob-w\n";
    const w = await read("workday.csv", workday, { mapping: "workday" });
    expect(w.people.map((p) => p.employeeId)).toEqual(["W2"]);
    expect(w.problems).toEqual([expect.objectContaining({ line: 2, reason: "terminated", employeeId: "W1" })]);
  });

  it("uses an explicit mapping", async () => {
    const mapping = configSchema.parse({ roster: { mapping: { profileUrl: ["Social"], department: ["Team"] } } }).roster
      .mapping;
    const roster = await read("explicit.csv", "Social,Team\nlinkedin.com/in/zed-x,Ops\n", { mapping });
    expect(roster.people[0]).toMatchObject({ profileUrl: canonicalUrl("zed-x"), department: "Ops" });
  });

  it("collects row problems with line numbers and never stops", async () => {
    const people = makePeople(9);
    const rows = people.map((p, i) => {
      switch (i) {
        case 1:
          return { ...p, url: "" };
        case 2:
          return { ...p, url: "https://example.com/in/nope" };
        case 3:
          return { ...p, url: "https://www.linkedin.com/in/ACoAABcdEfGhIjKlMnOpQrStUvWxYz012" };
        case 4:
          return { ...p, url: "http://linkedin.com/in/PERSON-0/" };
        case 5:
          return { ...p, status: "Terminated" };
        case 6:
          return { ...p, status: "Contractor" };
        case 7:
          return { ...p, url: '=HYPERLINK("https://www.linkedin.com/in/x-y-z")' };
        default:
          return p;
      }
    });
    const roster = await read("problems.csv", toCsv(rows));
    expect(roster.rowCount).toBe(9);
    expect(roster.people.map((p) => p.employeeId)).toEqual(["E000000", "E000008"]);
    expect(roster.excluded.map((p) => p.employeeId)).toEqual(["E000005", "E000006"]);
    expect(roster.problems.map((p) => [p.line, p.reason])).toEqual([
      [3, "missing-url"],
      [4, "invalid-url"],
      [5, "opaque-id-url"],
      [6, "duplicate"],
      [7, "terminated"],
      [8, "out-of-scope"],
      [9, "formula-cell"],
    ]);
    expect(roster.problems.find((p) => p.reason === "duplicate")?.message).toMatch(/line 2/);
  });

  it("applies department and location filters and past termination dates", async () => {
    const csv =
      "networkUrl,department,location,terminationDate\nlinkedin.com/in/aaa-1,Eng,Berlin,\nlinkedin.com/in/aaa-2,Sales,Berlin,\nlinkedin.com/in/aaa-3,Eng,Paris,\nlinkedin.com/in/aaa-4,Eng,Berlin,2026-01-31\nlinkedin.com/in/aaa-5,eng,berlin,2027-01-31\n";
    const roster = await read("scope.csv", csv, {
      include: { ...include, departments: ["Eng"], locations: ["Berlin"] },
    });
    expect(roster.people.map((p) => p.profileUrl)).toEqual([canonicalUrl("aaa-1"), canonicalUrl("aaa-5")]);
    expect(roster.problems.map((p) => p.reason)).toEqual(["out-of-scope", "out-of-scope", "terminated"]);
  });

  it("parses 100,000 rows", async () => {
    const roster = await read("big.csv", toCsv(makePeople(100_000)));
    expect(roster.people).toHaveLength(100_000);
    expect(roster.people[99_999]?.line).toBe(100_001);
  });

  it("gives a different fingerprint to a re-export of the same content", async () => {
    const csv = toCsv(makePeople(2));
    const a = await read("same.csv", csv);
    const b = await read("same.csv", csv);
    expect(a.fingerprint).not.toBe(b.fingerprint);
    expect(a.fingerprint.split(":")[0]).toBe(b.fingerprint.split(":")[0]);
  });
});

describe("readRoster: JSON and NDJSON", () => {
  it("reads an array, an { employees } object and NDJSON, by extension or sniffing", async () => {
    const people = makePeople(3);
    for (const [name, content] of [
      ["a.json", toJson(people)],
      ["b.json", toJson(people, { wrap: true })],
      ["c.ndjson", toNdjson(people)],
      ["d.export", toJson(people, { wrap: true })],
      ["e.export", toNdjson(people)],
    ] as const) {
      const roster = await read(name, content);
      expect(
        roster.people.map((p) => p.profileUrl),
        name,
      ).toEqual(people.map((p) => canonicalUrl(p.slug)));
    }
    expect((await read("f.export", toNdjson(people))).format).toBe("ndjson");
  });

  it("reads non-string values as text", async () => {
    const roster = await read("num.json", JSON.stringify([{ linkedin: "linkedin.com/in/num-1", id: 42 }]));
    expect(roster.people[0]?.employeeId).toBe("42");
  });
});

describe("readRoster: structural problems", () => {
  it("refuses a missing file", async () => {
    await expect(readRoster({ file: `${files.dir}/nope.csv`, include, now })).rejects.toThrow(/does not exist/);
  });
  it("refuses an empty file", () => structural("empty.csv", "", /empty/));
  it("refuses a header with no rows", () => structural("header.csv", "networkUrl,name\n", /no rows/));
  it("refuses a file without a profile URL column, naming the columns", () =>
    structural("nourl.csv", "email,name\na@b.c,A\n", /no profile URL column.*"email".*roster\.mapping/));
  it("refuses a file that starts with data", () =>
    structural("nohdr.csv", "https://www.linkedin.com/in/aaa-1,A\n", /header/));
  it("refuses binary content", () => structural("x.csv", Buffer.from([0x50, 0x4b, 3, 4, 0, 0, 1]), /binary/));
  it("refuses UTF-16", () => structural("u16.csv", Buffer.from("\uFEFFnetworkUrl\n", "utf16le"), /UTF-16/));
  it("refuses truncated JSON", () => structural("cut.json", toJson(makePeople(5)).slice(0, 200), /not valid JSON/));
  it("refuses a JSON object without an employee list", () => structural("obj.json", '{"x":1}', /array/));
  it("refuses a truncated NDJSON line", () =>
    structural("cut.ndjson", toNdjson(makePeople(3)).slice(0, -20), /line 3 is not valid JSON/));
  it("refuses CSV cut inside a quoted field", () =>
    structural("cut.csv", 'networkUrl,name\nlinkedin.com/in/aaa-1,"Ada\n', /not valid CSV.*cut off/));
});
