import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConfigInput, configSchema } from "../../src/config/schema.js";
import { RosterFileError } from "../../src/errors.js";
import { type RosterFile, readRoster, rosterReadOptions } from "../../src/roster/read-roster.js";
import { problemPlace } from "../../src/roster/roster-rows.js";
import { rosterDir } from "../helpers/roster-files.js";

const now = new Date("2026-11-23T10:00:00Z");
let files: Awaited<ReturnType<typeof rosterDir>>;
beforeAll(async () => {
  files = await rosterDir();
});
afterAll(async () => {
  await files.cleanup();
});

type Roster = NonNullable<ConfigInput["roster"]>;

async function read(name: string, content: unknown, roster: Roster = {}): Promise<RosterFile> {
  const text = typeof content === "string" ? content : JSON.stringify(content, null, 2);
  const file = await files.write(name, text);
  const rules = configSchema.parse({ roster: { ...roster, file } }).roster;
  return readRoster(rosterReadOptions(rules, file, now));
}

async function refusal(name: string, content: unknown, roster: Roster = {}): Promise<string> {
  const error = await read(name, content, roster).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RosterFileError);
  return (error as Error).message;
}

const url = (slug: string) => `https://www.linkedin.com/in/${slug}`;
const names = (file: RosterFile) => file.people.map((p) => p.name);
const why = (file: RosterFile) => file.problems.map((p) => `${p.name}: ${p.reason}: ${p.message}`);

describe("nested JSON: paths in mappings", () => {
  it("reads fields through paths, selectors and indexes; the first entry holding a value wins", async () => {
    const doc = {
      data: [
        {
          attributes: { name: { value: "Ada" }, dept: { value: { attributes: { name: "Ops" } } } },
          custom_fields: [
            { name: "Badge", value: "7" },
            { name: "LinkedIn URL", value: url("ada") },
          ],
          emails: [
            { type: "home", address: "ada@home.example" },
            { type: "work", address: "ada@example.com" },
          ],
        },
        {
          attributes: { name: { value: "Bob" }, dept: null },
          linkedin: null,
          custom_fields: [{ name: "LinkedIn URL", value: url("bob-k") }],
          emails: [],
        },
      ],
    };
    const file = await read("paths.json", doc, {
      mapping: {
        profileUrl: ["linkedin", "custom_fields[name=LinkedIn URL].value"],
        name: ["attributes.name.value"],
        department: ["attributes.dept.value.attributes.name"],
        email: ["emails[type=work].address"],
      },
    });
    expect(file.people.map((p) => [p.name, p.profileUrl, p.department, p.email])).toEqual([
      ["Ada", url("ada"), "Ops", "ada@example.com"],
      ["Bob", url("bob-k"), undefined, undefined],
    ]);
    expect(file.mapping).toMatchObject({ preset: "explicit" });
  });

  it('unwraps rows given as {"fields": {...}}', async () => {
    const doc = {
      data: [{ fields: { linkedin: url("ada"), name: "Ada" } }, { fields: { linkedin: url("bo-k"), name: "Bo" } }],
    };
    expect(names(await read("wrapped.json", doc))).toEqual(["Ada", "Bo"]);
  });

  it("says where a broken JSON record is: record number and line", async () => {
    const doc = {
      employees: [
        { linkedin: url("ada"), name: "Ada" },
        { linkedin: "not a url", name: "Bo" },
      ],
    };
    const file = await read("where.json", doc);
    const problem = file.problems.find((p) => p.reason === "invalid-url");
    expect(problem && problemPlace(problem)).toBe("record 2 (line 7)");
  });
});

describe("nested JSON: where the records are", () => {
  it("follows roster.records through lists", async () => {
    const finch = {
      responses: [
        { individual_id: "a", code: 200, body: { first_name: "Ada", linkedin: url("ada") } },
        { individual_id: "b", code: 200, body: { first_name: "Bo", linkedin: url("bo-k") } },
      ],
    };
    const file = await read("finch.json", finch, { records: "responses.*.body" });
    expect(names(file)).toEqual(["Ada", "Bo"]);
  });

  it("refuses a document whose records are not found, with its structure and the setting that fixes it", async () => {
    const finch = { responses: [{ individual_id: "a", code: 200, body: { first_name: "Ada", last_name: "L" } }] };
    const message = await refusal("envelope.json", finch);
    expect(message).toContain("holds no list of people");
    expect(message).toContain("top level: an object with keys responses");
    expect(message).toContain('set roster.records: "responses.*.body"');
    const elsewhere = await refusal("elsewhere.json", finch, { records: "results" });
    expect(elsewhere).toContain('nothing at roster.records "results"');
  });

  it("refuses bad paths in the config, naming them", () => {
    for (const roster of [
      { records: "a..b" },
      { mapping: { profileUrl: ["custom_fields[name=LinkedIn"] } },
      { mapping: { profileUrl: ["a[b]"] } },
      { mapping: { name: ["Name"] } },
    ]) {
      expect(configSchema.safeParse({ roster }).success, JSON.stringify(roster)).toBe(false);
    }
    expect(configSchema.safeParse({ roster: { mapping: { preset: "auto", name: ["Name"] } } }).success).toBe(true);
    // A CSV header that is no path is still a name.
    expect(configSchema.safeParse({ roster: { mapping: { profileUrl: ["LinkedIn No."] } } }).success).toBe(true);
  });
});

describe("statuses: a person has left if any field says so; in scope only if every status is", () => {
  const person = (name: string, extra: Record<string, unknown>) => ({ linkedin: url(`p-${name}`), name, ...extra });

  it("reads the record status and the employment status together", async () => {
    const file = await read("both.json", [
      person("a", { status: "Active", employmentStatus: "Full-Time" }),
      person("b", { status: "Active", employmentStatus: "Contractor" }),
      person("c", { status: "Inactive", employmentStatus: "Full-Time" }),
      person("d", { status: "Active", employmentStatus: "Terminated" }),
      person("e", { status: false, employmentStatus: "Part-Time" }),
      person("f", { status: "1", employmentStatus: "FULL_TIME" }),
    ]);
    expect(names(file)).toEqual(["a", "f"]);
    expect(why(file)).toEqual([
      'b: out-of-scope: employment status "Contractor" is not in roster.include.statuses',
      'c: terminated: status "Inactive"',
      'd: terminated: employment status "Terminated"',
      'e: terminated: status "false" (not active)',
    ]);
  });

  it("reads a has-left flag and the dates HRIS systems write", async () => {
    const file = await read("dates.json", [
      person("flag-yes", { terminated: true }),
      person("flag-no", { terminated: false }),
      person("flag-odd", { terminated: "maybe" }),
      person("workday", { terminationDate: "2026-10-31-07:00" }),
      person("odata", { terminationDate: "/Date(1761868800000)/" }),
      person("german", { terminationDate: "31.10.2026" }),
      person("future", { terminationDate: "31.12.2099" }),
      person("bamboo-none", { terminationDate: "0000-00-00" }),
      person("unreadable", { terminationDate: "end of month" }),
    ]);
    expect(names(file)).toEqual(["flag-no", "future", "bamboo-none"]);
    expect(why(file)).toEqual([
      'flag-yes: terminated: marked as left ("true")',
      'flag-odd: out-of-scope: "has left" flag "maybe" is neither true nor false',
      'workday: terminated: terminated on "2026-10-31-07:00"',
      'odata: terminated: terminated on "/Date(1761868800000)/"',
      'german: terminated: terminated on "31.10.2026"',
      'unreadable: out-of-scope: termination date "end of month" cannot be read (expected a date such as 2026-10-31)',
    ]);
  });
});

describe("the unread-status guard: a status-like field nobody reads refuses the file", () => {
  const bamboo = {
    title: "Report",
    fields: [{ id: "employmentHistoryStatus", type: "list", name: "Employment Status" }],
    employees: [
      { id: "1", linkedIn: url("ada"), employmentHistoryStatus: "Full-Time" },
      { id: "2", linkedIn: url("bob-k"), employmentHistoryStatus: "Terminated" },
    ],
  };

  it("names the key, where it is, and both fixes (JSON)", async () => {
    const message = await refusal("guard.json", bamboo, { mapping: { profileUrl: ["linkedIn"] } });
    expect(message).toContain(
      'has a status key that the mapping does not read: "employmentHistoryStatus" looks like a status or an end date',
    );
    expect(message).toContain("record 1");
    expect(message).toContain('status: ["employmentHistoryStatus"]');
    expect(message).toContain("roster.ignoreColumns");
    const read1 = await read("guard-read.json", bamboo, {
      mapping: { profileUrl: ["linkedIn"], employmentStatus: ["employmentHistoryStatus"] },
    });
    expect(names(read1)).toEqual([undefined]);
    expect(read1.problems.map((p) => p.reason)).toEqual(["terminated"]);
    const ignored = await read("guard-ignored.json", bamboo, {
      mapping: { profileUrl: ["linkedIn"] },
      ignoreColumns: ["employmentHistoryStatus"],
    });
    expect(ignored.people).toHaveLength(2);
  });

  it("looks at nested keys, and at keys that only appear in a later record", async () => {
    const doc = {
      employees: [
        { linkedin: url("aaa-1"), internal: { status: "Active" } },
        { linkedin: url("bbb-2"), internal: { status: "Active", lifecycleStatus: "Terminated" } },
      ],
    };
    const message = await refusal("nested-guard.json", doc, {
      mapping: { profileUrl: ["linkedin"], status: ["internal.status"] },
    });
    expect(message).toContain('"internal.lifecycleStatus"');
    expect(message).toContain("record 2");
  });

  it("refuses a CSV column the mapping does not read, and takes roster.ignoreColumns", async () => {
    const csv =
      "LinkedIn,Name,Active_Status\nhttps://www.linkedin.com/in/aaa-1,A,1\nhttps://www.linkedin.com/in/bbb-2,B,0\n";
    const message = await refusal("guard.csv", csv, { mapping: { profileUrl: ["LinkedIn"], name: ["Name"] } });
    expect(message).toContain('has a status column that the mapping does not read: "Active_Status"');
    const file = await read("guard2.csv", csv, {
      mapping: { profileUrl: ["LinkedIn"], name: ["Name"], status: ["Active_Status"] },
    });
    expect(names(file)).toEqual(["A"]);
  });

  it("lets statuses that say nothing about employment pass", async () => {
    const csv =
      "networkUrl,name,Marital Status,Tax Filing Status,Active Directory ID\nhttps://www.linkedin.com/in/aaa-1,A,Single,x,y\n";
    expect(names(await read("harmless.csv", csv))).toEqual(["A"]);
  });
});
