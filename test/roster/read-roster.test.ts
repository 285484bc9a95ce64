import { truncate } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { RosterFileError } from "../../src/errors.js";
import type { RosterReadOptions } from "../../src/roster/read-options.js";
import { readRoster, rosterReadOptions } from "../../src/roster/read-roster.js";
import { canonicalUrl, makePeople, rosterDir, toCsv, toJson, toNdjson } from "../helpers/roster-files.js";

const rules = configSchema.parse({}).roster;
const now = new Date("2026-11-23T10:00:00Z");
let files: Awaited<ReturnType<typeof rosterDir>>;

beforeAll(async () => {
  files = await rosterDir();
});
afterAll(async () => {
  await files.cleanup();
});

async function read(name: string, content: string | Buffer, extra: Partial<RosterReadOptions> = {}) {
  const file = await files.write(name, content);
  return readRoster({ ...rosterReadOptions(rules, file, now), ...extra });
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
      include: { ...rules.include, departments: ["Eng"], locations: ["Berlin"] },
    });
    expect(roster.people.map((p) => p.profileUrl)).toEqual([canonicalUrl("aaa-1"), canonicalUrl("aaa-5")]);
    expect(roster.problems.map((p) => p.reason)).toEqual(["out-of-scope", "out-of-scope", "terminated"]);
  });

  it("marks people of roster.untrackedDepartments untracked, whatever the case and spacing, in CSV and JSON", async () => {
    const csv =
      "networkUrl,department\nlinkedin.com/in/aaa-1,Eng\nlinkedin.com/in/aaa-2, Support \nlinkedin.com/in/aaa-3,SUPPORT\nlinkedin.com/in/aaa-4,\n";
    const untrackedDepartments = [" support"];
    const roster = await read("untracked.csv", csv, { untrackedDepartments });
    expect(roster.people.map((p) => [p.profileUrl, p.department, p.tracked])).toEqual([
      [canonicalUrl("aaa-1"), "Eng", true],
      [canonicalUrl("aaa-2"), "Support", false],
      [canonicalUrl("aaa-3"), "SUPPORT", false],
      [canonicalUrl("aaa-4"), undefined, true],
    ]);
    const json = JSON.stringify([{ linkedin: "linkedin.com/in/bbb-1", department: "Support" }]);
    expect((await read("untracked.json", json, { untrackedDepartments })).people[0]?.tracked).toBe(false);
    expect((await read("tracked.csv", csv)).people.every((p) => p.tracked)).toBe(true);
  });

  it("applies every roster rule from the config in CSV, JSON and NDJSON alike (one options value, rosterReadOptions)", async () => {
    const configured = configSchema.parse({
      roster: {
        mapping: { profileUrl: ["Social"], department: ["Org Unit"], status: ["State"] },
        include: { statuses: ["on"], departments: ["eng", "support"] },
        untrackedDepartments: ["Support"],
      },
    }).roster;
    const rows = [
      { Social: "linkedin.com/in/ccc-1", "Org Unit": "Eng", State: "on" },
      { Social: "linkedin.com/in/ccc-2", "Org Unit": "Support", State: "on" },
      { Social: "linkedin.com/in/ccc-3", "Org Unit": "Sales", State: "on" },
      { Social: "linkedin.com/in/ccc-4", "Org Unit": "Eng", State: "off" },
    ];
    const csv = `Social,Org Unit,State\n${rows.map((r) => Object.values(r).join(",")).join("\n")}\n`;
    const contents: Array<[string, string]> = [
      ["rules.csv", csv],
      ["rules.json", JSON.stringify(rows)],
      ["rules.ndjson", `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`],
    ];
    for (const [name, content] of contents) {
      const roster = await readRoster(rosterReadOptions(configured, await files.write(name, content), now));
      expect(
        roster.people.map((p) => [p.profileUrl, p.tracked]),
        name,
      ).toEqual([
        [canonicalUrl("ccc-1"), true],
        [canonicalUrl("ccc-2"), false],
      ]);
      expect(
        roster.problems.map((p) => [p.line, p.reason]),
        name,
      ).toEqual([
        [name.endsWith(".csv") ? 4 : 3, "out-of-scope"],
        [name.endsWith(".csv") ? 5 : 4, "out-of-scope"],
      ]);
    }
  });

  it("keeps every value of a column that stops repeating (more distinct departments than are shared)", async () => {
    const people = makePeople(25_000).map((p, i) => ({ ...p, department: `Team ${i}` }));
    const roster = await read("teams.csv", toCsv(people));
    expect(roster.people.map((p) => p.department)).toEqual(people.map((p) => p.department));
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

  it("reads BambooHR's Status (Active/Inactive) before its Employment Status: part-time staff stay in scope", async () => {
    const bamboo =
      "Employee #,First Name,Last Name,Department,Employment Status,Status,LinkedIn,Termination Date\n" +
      "1,Ada,Full,Eng,Full-Time,Active,linkedin.com/in/ada-full,\n" +
      "2,Bob,Part,Eng,Part-Time,Active,linkedin.com/in/bob-part,\n" +
      "3,Cy,Gone,Eng,Terminated,Inactive,linkedin.com/in/cy-gone,2026-10-31\n" +
      "4,Di,Leave,Eng,Full-Time,On Leave,linkedin.com/in/di-leave,\n";
    const b = await read("bamboo2.csv", bamboo, { mapping: "bamboohr" });
    expect(b.people.map((p) => p.name)).toEqual(["Ada Full", "Bob Part", "Di Leave"]);
    expect(b.problems.map((p) => [p.line, p.reason, p.message])).toEqual([
      [4, "terminated", 'terminated on "2026-10-31"'],
    ]);
    // A BambooHR export with only the Employment Status column: part-time people are in scope by default.
    const only =
      "Employee #,Employment Status,LinkedIn\n1,Part-Time,linkedin.com/in/p-t\n2,Full-Time,linkedin.com/in/f-t\n";
    expect((await read("bamboo3.csv", only, { mapping: "bamboohr" })).people).toHaveLength(2);
  });

  it("reads non-string values as text", async () => {
    const roster = await read("num.json", JSON.stringify([{ linkedin: "linkedin.com/in/num-1", id: 42 }]));
    expect(roster.people[0]?.employeeId).toBe("42");
  });
});

describe("readRoster: structural problems", () => {
  it("refuses a missing file", async () => {
    await expect(readRoster(rosterReadOptions(rules, `${files.dir}/nope.csv`, now))).rejects.toThrow(/does not exist/);
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
  it("refuses a JSON object without an employee list", () =>
    structural("obj.json", '{"x":1}', /no list of people.*It holds: top level: an object with keys x/));
  it("refuses a truncated NDJSON line", () =>
    structural("cut.ndjson", toNdjson(makePeople(3)).slice(0, -20), /line 3 is not valid JSON/));
  it("refuses CSV cut inside a quoted field", () =>
    structural("cut.csv", 'networkUrl,name\nlinkedin.com/in/aaa-1,"Ada\n', /not valid CSV.*cut off/));
});

describe("readRoster: broken exports are refused before they can archive anyone", () => {
  it("refuses a CSV whose last row was cut off (fewer cells, no line break at the end)", () =>
    structural(
      "cut-row.csv",
      "networkUrl,name,department\nlinkedin.com/in/aaa-1,Ada,Eng\nlinkedin.com/in/aaa-2,Bo",
      /line 3 has 2 of 3 columns and the file does not end with a line break: it looks cut off/,
    ));

  it("reads a complete last row without a line break, and a short last row that ends with one", async () => {
    const whole = await read("no-eol.csv", "networkUrl,name,department\nlinkedin.com/in/aaa-1,Ada,Eng");
    expect(whole.people.map((p) => p.line)).toEqual([2]);
    const short = await read("short-eol.csv", "networkUrl,name,department\nlinkedin.com/in/aaa-1,Ada\n");
    expect(short.people.map((p) => p.name)).toEqual(["Ada"]);
    // An exporter that leaves trailing empty cells out writes every row short: the last is not cut.
    const allShort = await read(
      "all-short.csv",
      "networkUrl,name,department\nlinkedin.com/in/aaa-1,Ada\nlinkedin.com/in/aaa-2,Bo",
    );
    expect(allShort.people.map((p) => p.name)).toEqual(["Ada", "Bo"]);
  });

  it("refuses a record longer than 1 MiB instead of buffering it", () =>
    structural(
      "long.csv",
      `networkUrl,name\nlinkedin.com/in/aaa-1,${"a".repeat(2 * 1024 * 1024)}`,
      /line 2 is longer than 1 MiB/,
    ));

  it("refuses NUL bytes that only appear after the first 64 KiB", () =>
    structural(
      "late-nul.csv",
      `networkUrl,name\n${"linkedin.com/in/aaa-1,Ada\n".repeat(4000)}linkedin.com/in/aaa-2,B\u0000o\n`,
      /NUL byte at byte 104\d{3}: it is binary or corrupt/,
    ));

  it("refuses a file of blank lines or a lone byte-order mark", async () => {
    await structural("blank.csv", "\n \r\n\t\n", /holds only blank lines/);
    await structural("bom-only.csv", "\uFEFF", /holds only blank lines/);
  });

  it("names what a binary file is", async () => {
    await structural("doc.csv", "%PDF-1.4\n1 0 obj\n", /is binary: a PDF document/);
    await structural("gz.csv", Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3, 4]), /gzip-compressed/);
    await structural("u16.csv", Buffer.from("networkUrl,name\nlinkedin.com/in/aaa-1,A\n", "utf16le"), /UTF-16/);
  });

  it("refuses a file whose rows have no usable URL, quoting the first lines", () =>
    structural(
      "no-usable.csv",
      'networkUrl,name\nn/a,Ada\n=HYPERLINK("x"),Bo\n',
      /none of its 2 rows has a usable profile URL \(line 2: .*; line 3: the profile URL cell holds a spreadsheet formula/,
    ));

  it("refuses a file that leaves nobody in scope", () =>
    structural(
      "all-gone.csv",
      "networkUrl,status\nlinkedin.com/in/aaa-1,Terminated\nlinkedin.com/in/aaa-2,Contractor\n",
      /none of its 2 rows is in scope \(1 terminated, 1 out of scope; .*roster\.include/,
    ));

  it("says when the rows use another delimiter than the header", () =>
    structural(
      "mixed.csv",
      "networkUrl,name\nlinkedin.com/in/aaa-1;Ada\nlinkedin.com/in/aaa-2;Bo\n",
      /2 rows hold a single cell with another delimiter in it, while the header is comma-separated/,
    ));
});

describe("readRoster: cells that are formulas, duplicates of one employee, values echoed in messages", () => {
  it("ignores formula values in other columns, keeps the row, and never echoes the formula", async () => {
    const csv = [
      "networkUrl,employeeId,name,department",
      'linkedin.com/in/aaa-1,E1,"=HYPERLINK(""http://evil.example"",""x"")",Eng',
      "linkedin.com/in/aaa-2,=1+2,Bo,+cmd|' /C calc'!A0",
      "linkedin.com/in/aaa-3,E3,-,- none -",
    ].join("\n");
    const roster = await read("formula-fields.csv", `${csv}\n`);
    expect(roster.people.map((p) => p.profileUrl)).toEqual(["aaa-1", "aaa-2", "aaa-3"].map(canonicalUrl));
    // Every field of a person is present (one shape for all rows): a dropped one is undefined.
    expect(roster.people[0]?.name).toBeUndefined();
    expect(roster.people[0]?.department).toBe("Eng");
    expect(roster.people[1]?.employeeId).toBeUndefined();
    expect(roster.people[1]?.department).toBeUndefined();
    expect(roster.people[2]).toMatchObject({ name: "-", department: "- none -" });
    expect(roster.problems.map((p) => [p.line, p.reason])).toEqual([
      [2, "formula-cell"],
      [3, "formula-cell"],
    ]);
    expect(roster.problems[0]?.message).toMatch(/formula in name \(HYPERLINK\(\.\.\.\)\)/);
    expect(roster.problems[1]?.message).toMatch(/employeeId \(starting with "="\), department \(starting with "\+"\)/);
    expect(JSON.stringify(roster.problems)).not.toMatch(/evil|cmd\||=1\+2/);
  });

  it("keeps both rows of one employee id with two URLs and flags the second", async () => {
    const roster = await read(
      "same-id.csv",
      "networkUrl,employeeId\nlinkedin.com/in/aaa-1,E1\nlinkedin.com/in/aaa-9,E1\n",
    );
    expect(roster.people).toHaveLength(2);
    expect(roster.problems).toEqual([
      expect.objectContaining({ line: 3, reason: "duplicate-id", message: expect.stringMatching(/also on line 2/) }),
    ]);
  });

  it("escapes control and text-direction characters of a cell it quotes", async () => {
    const roster = await read(
      "escapes.csv",
      "networkUrl,status\nlinkedin.com/in/aaa-1,Active\nhttps://evil.example/\u001b]8;;x\u0007,Active\nlinkedin.com/in/aaa-2,Gone\u202e\n",
    );
    const text = roster.problems.map((p) => p.message).join("\n");
    expect(text).toContain("\\u001b");
    expect(text).toContain("\\u202e");
    for (const raw of ["\u001b", "\u0007", "\u202e"]) expect(text).not.toContain(raw);
  });
});

describe("readRoster: broken JSON and NDJSON", () => {
  it("reports cells that are objects, lists or numbers, and records that are not objects, by record", async () => {
    const records = [
      { networkUrl: "linkedin.com/in/aaa-1" },
      { networkUrl: { href: "linkedin.com/in/aaa-2" } },
      { networkUrl: ["linkedin.com/in/aaa-3"] },
      { networkUrl: 12345 },
      7,
      null,
    ];
    const roster = await read("cells.json", JSON.stringify(records));
    expect(roster.people).toHaveLength(1);
    expect(roster.problems.map((p) => [p.line, p.reason, p.message])).toEqual([
      [2, "invalid-url", "the profile URL field holds an object, not text"],
      [3, "invalid-url", "the profile URL field holds a list, not text"],
      [4, "invalid-url", '"12345" is not a URL'],
      [5, "malformed-row", "record 5 is a number, not an object with fields"],
      [6, "malformed-row", "record 6 is null, not an object with fields"],
    ]);
  });

  it("refuses JSON that holds no objects, naming what it holds", async () => {
    await structural("deep.json", `${"[".repeat(100_000)}${"]".repeat(100_000)}`, /record 1 is a list/);
    await structural("empty.json", "[]", /holds no people/);
  });

  it("streams a JSON array instead of reading it whole: a hole of NUL bytes past the head is named", async () => {
    const file = await files.write("huge.json", `[${'{"networkUrl":"linkedin.com/in/aaa-1"},'.repeat(3000)}`);
    await truncate(file, 101 * 1024 * 1024);
    await expect(readRoster(rosterReadOptions(rules, file, now))).rejects.toThrow(/NUL byte at byte 117001/);
  });

  it("streams a JSON array: a record over 1 MiB is refused, a truncated one named", async () => {
    await structural(
      "long.json",
      `[${JSON.stringify({ networkUrl: "linkedin.com/in/aaa-1" })},{"name":"${"a".repeat(2 * 1024 * 1024)}"}]`,
      /record 2 is longer than 1 MiB/,
    );
    await structural(
      "cut2.json",
      `[${JSON.stringify({ networkUrl: "linkedin.com/in/aaa-1" })},{"name":"A`,
      /not valid JSON/,
    );
  });

  it("reads Workday RaaS JSON (rows in Report_Entry, field aliases with _, Active_Status 1/0)", async () => {
    const raas = {
      Report_Entry: [
        {
          Employee_ID: "21001",
          Worker: "Logan McNeil",
          Supervisory_Organization: "Engineering",
          Primary_Work_Email: "lmcneil@example.com",
          Active_Status: "1",
          LinkedIn_Profile_URL: "https://www.linkedin.com/in/logan-mcneil",
        },
        {
          Employee_ID: "21002",
          Worker: "Sam Left",
          Supervisory_Organization: "Sales",
          Active_Status: "0",
          LinkedIn_Profile_URL: "https://www.linkedin.com/in/sam-left",
        },
        // Another report shape in the same file: each record is read by its own keys.
        {
          Worker_ID: "21003",
          Legal_Name_First_Name: "Kim",
          Legal_Name_Last_Name: "Lee",
          LinkedIn: "linkedin.com/in/kim-lee",
        },
      ],
    };
    const roster = await read("raas.json", JSON.stringify(raas), { mapping: "workday" });
    expect(roster.people).toEqual([
      expect.objectContaining({
        employeeId: "21001",
        name: "Logan McNeil",
        department: "Engineering",
        email: "lmcneil@example.com",
        profileUrl: canonicalUrl("logan-mcneil"),
      }),
      expect.objectContaining({ employeeId: "21003", name: "Kim Lee", profileUrl: canonicalUrl("kim-lee") }),
    ]);
    expect([...roster.exclusions.values()].map((e) => [e.person.name, e.reason, e.detail])).toEqual([
      ["Sam Left", "terminated", 'status "0" (not active)'],
    ]);
    // A wrapper key is recognised whatever its case and separators; one nested deeper is not.
    const nested = await read(
      "nested.json",
      JSON.stringify({ meta: { employees: [1] }, report_entry: raas.Report_Entry }),
      {
        mapping: "workday",
      },
    );
    expect(nested.people).toHaveLength(2);
  });

  it("refuses more rows than roster.maxRows as soon as it gets there", async () => {
    await structural("many.csv", toCsv(makePeople(30)), /more than 25 rows \(roster\.maxRows; stopped at line 27\)/, {
      maxRows: 25,
    });
    await structural("many.ndjson", toNdjson(makePeople(30)), /more than 25 rows/, { maxRows: 25 });
  });

  it("streams NDJSON: a last line without a line break is read, a line over 1 MiB is refused", async () => {
    const roster = await read("tail.ndjson", toNdjson(makePeople(2)).trimEnd());
    expect(roster.people.map((p) => p.line)).toEqual([1, 2]);
    await structural(
      "long.ndjson",
      `${toNdjson(makePeople(1))}{"name":"${"a".repeat(2 * 1024 * 1024)}"}\n`,
      /line 2 is longer than 1 MiB/,
    );
  });
});

describe("readRoster: status cells kept for the people held untracked only", () => {
  it("keeps the status and termination cells of the named profiles, and of nobody else", async () => {
    const people = makePeople(3).map((p) => ({ ...p, status: "Active" }));
    const held = canonicalUrl(people[1]?.slug ?? "");
    const roster = await read("held.csv", toCsv(people), { keepStatusOf: new Set([held]) });
    const kept = roster.byUrl.get(held);
    expect(kept?.status).toBe("Active");
    expect(kept && "terminationDate" in kept).toBe(true);
    const others = roster.people.filter((p) => p.profileUrl !== held);
    expect(others).toHaveLength(2);
    for (const other of others) expect("status" in other).toBe(false);
  });
});
