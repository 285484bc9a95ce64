import { readFile } from "node:fs/promises";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RosterFileError } from "../../../src/errors.js";
import { JsonRecordScanner } from "../../../src/roster/json-records.js";
import { parseRecordsPath } from "../../../src/roster/json-scan-types.js";
import { evaluatePath, normalizeName, parsePath, type Segment } from "../../../src/roster/mapping/field-path.js";
import { PRESETS } from "../../../src/roster/presets/index.js";
import type { PresetName } from "../../../src/roster/presets/names.js";
import { rosterDir } from "../../helpers/roster-files.js";
import { fixturePath, type RosterSettings, readFixture } from "./vendor-fixture.js";

/**
 * The rule to hold: no terminated person is ever planned as a joiner. For every vendor fixture,
 * take a person the preset reads as in scope, make the status field it reads (or the left flag, or
 * the termination date) say "left" in one of that vendor's words, and read the file again with
 * `mapping: auto`: the person must not be in scope (or the file must be refused).
 */
const FIXTURES: ReadonlyArray<{ preset: PresetName; file: string; settings?: RosterSettings }> = [
  { preset: "bamboohr", file: "custom-report.json" },
  { preset: "bamboohr", file: "dataset-employee.json" },
  { preset: "workday", file: "raas-workers.json" },
  { preset: "hibob", file: "people-search.json" },
  { preset: "hibob", file: "people-search-replace.json" },
  {
    preset: "personio",
    file: "company-employees.json",
    settings: { mapping: { preset: "auto", profileUrl: ["attributes.dynamic_1146790.value"] } },
  },
  { preset: "successfactors", file: "user.json", settings: { mapping: { preset: "auto", profileUrl: ["custom07"] } } },
  {
    preset: "successfactors",
    file: "per-person.json",
    settings: { mapping: { preset: "auto", profileUrl: ["socialAccountNav.results[domain=LinkedIn].url"] } },
  },
  { preset: "adp", file: "workers.json" },
  { preset: "adp", file: "worker-read-event.json", settings: { records: "events.*.data.output.workers" } },
  { preset: "gusto", file: "employees.json" },
  { preset: "merge", file: "employees.json" },
  { preset: "merge", file: "employees-expanded.json" },
  { preset: "kombo", file: "employees.json" },
  { preset: "finch", file: "employment.json", settings: { records: "responses.*.body" } },
  { preset: "rippling", file: "employees-include-terminated.json" },
];

type Json = Record<string, unknown>;
type LeftField = "status" | "employmentStatus" | "left" | "terminationDate";

const LEFT_WORDS = ["Terminated", "TERMINATED", "terminated", "Inactive", "INACTIVE", "Separated", "Resigned"];
const PAST_DATES = [
  "2020-01-31",
  "2020-01-31-08:00",
  "2020-01-31T17:00:00Z",
  "/Date(1580428800000)/",
  "31.01.2020",
  "01/31/2020",
];
const LEFT_VALUES: Record<LeftField, readonly unknown[]> = {
  status: [...LEFT_WORDS, false, "false", "0", "no"],
  employmentStatus: LEFT_WORDS,
  left: [true, "true", 1, "1", "yes"],
  terminationDate: PAST_DATES,
};

const LEFT_WORD = /terminat|inactive|separat|resign|former|deceased|retired|dismiss|^left$|^ended$/i;

/** The vendor's own codes that its preset reads as a left word (ADP's `T`, HiBob's garden leave). */
function vendorLeftCodes(preset: PresetName): string[] {
  return Object.entries(PRESETS[preset].values ?? {})
    .filter(([, word]) => LEFT_WORD.test(word))
    .map(([code]) => code);
}

/**
 * The generic left words, less those the vendor documents to mean something else (ADP's
 * "Inactive" is a worker on leave).
 */
function leftValues(preset: PresetName, field: LeftField): unknown[] {
  const values = new Map(
    Object.entries(PRESETS[preset].values ?? {}).map(([code, word]) => [normalizeName(code), word]),
  );
  const generic = LEFT_VALUES[field].filter((v) => {
    const word = values.get(normalizeName(String(v)));
    return word === undefined || LEFT_WORD.test(word) || /^(0|false|no|n)$/i.test(word);
  });
  return field === "left" || field === "terminationDate" ? generic : [...generic, ...vendorLeftCodes(preset)];
}

interface Loaded {
  readonly preset: PresetName;
  readonly file: string;
  readonly settings: RosterSettings;
  readonly document: unknown;
  /** Each record's object inside `document`, in record order (mutating one changes the document). */
  readonly records: Json[];
  /** Record numbers (1-based) of the people read as in scope. */
  readonly inScope: number[];
  readonly urlOf: Map<number, string>;
}

/** The records of a document in the order the reader numbers them, as objects of the parsed document. */
function recordsOf(text: string, records: string | undefined): Json[] {
  const scanner = new JsonRecordScanner({
    maxRecordBytes: 1 << 20,
    ...(records === undefined ? {} : { records: parseRecordsPath(records) }),
  });
  const found: Json[] = [];
  scanner.push(Buffer.from(text), (record) => found.push(JSON.parse(record) as Json));
  scanner.end();
  return found;
}

/** Finds the parsed records inside the document by identity of content, so they can be changed in place. */
function locate(document: unknown, wanted: Json[]): Json[] {
  const byText = new Map(wanted.map((w, i) => [JSON.stringify(w), i]));
  const out: Json[] = new Array(wanted.length);
  const walk = (value: unknown) => {
    if (value === null || typeof value !== "object") return;
    const at = byText.get(JSON.stringify(value));
    if (at !== undefined && out[at] === undefined && !Array.isArray(value)) out[at] = value as Json;
    for (const inner of Object.values(value)) walk(inner);
  };
  walk(document);
  return out;
}

async function load(entry: (typeof FIXTURES)[number]): Promise<Loaded> {
  const settings = entry.settings ?? {};
  const read = await readFixture(entry.preset, entry.file, settings);
  expect(read.mapping.preset, `${entry.preset}/${entry.file} is recognised`).toBe(entry.preset);
  const text = await readFile(fixturePath(entry.preset, entry.file), "utf8");
  const document = JSON.parse(text) as unknown;
  const records = locate(document, recordsOf(text, settings.records));
  const urlOf = new Map(read.people.map((p) => [p.line, p.profileUrl]));
  return { ...entry, settings, document, records, inScope: read.people.map((p) => p.line), urlOf };
}

/** The entry of a field that this record's value comes from: the first holding a value, else the first. */
function readingEntry(record: Json, entries: readonly string[]): Segment[] | undefined {
  const paths = entries.flatMap((entry) => {
    try {
      return [parsePath(entry, { allowAny: false })];
    } catch {
      return [];
    }
  });
  const holds = (path: Segment[]) => {
    const value = evaluatePath(record, path);
    return value !== undefined && value !== null && value !== "";
  };
  return paths.find(holds) ?? paths[0];
}

/**
 * Sets a value at a path, making the objects, lists and selected elements it passes through; false
 * where the record's shape has no room for it (a list of ids where the path expects objects).
 */
function setPath(record: Json, path: readonly Segment[], value: unknown): boolean {
  let current: unknown = record;
  for (const [i, segment] of path.entries()) {
    if (current === null || typeof current !== "object") return false;
    const last = i === path.length - 1;
    const next = path[i + 1];
    const fresh = () => (next?.kind === "select" || (next?.kind === "key" && /^\d+$/.test(next.name)) ? [] : {});
    if (segment.kind === "select") {
      if (!Array.isArray(current)) return false;
      const list = current as unknown[];
      let element = list.find(
        (e) =>
          e !== null &&
          typeof e === "object" &&
          String(evaluatePath(e, segment.path) ?? "").toLowerCase() === segment.value,
      ) as Json | undefined;
      if (element === undefined) {
        element = {};
        setPath(element, segment.path, segment.value);
        list.push(element);
      }
      current = element;
      continue;
    }
    if (segment.kind !== "key") return false;
    if (Array.isArray(current)) {
      const index = Number(segment.name);
      if (last) current[index] = value;
      else {
        current[index] ??= fresh();
        current = current[index];
      }
      continue;
    }
    const object = current as Json;
    const key = Object.keys(object).find((k) => normalizeName(k) === segment.norm) ?? segment.name;
    if (last) object[key] = value;
    else {
      if (object[key] === null || typeof object[key] !== "object") object[key] = fresh();
      current = object[key];
    }
  }
  return true;
}

let loaded: Loaded[] = [];
let files: Awaited<ReturnType<typeof rosterDir>>;
beforeAll(async () => {
  files = await rosterDir();
  loaded = await Promise.all(FIXTURES.map(load));
});
afterAll(async () => {
  await files.cleanup();
});

describe("vendor statuses: a person whose vendor status says they left is never in scope", () => {
  it("holds for every preset's fields and vocabulary, on every vendor fixture", async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.nat(),
        fc.constantFrom<LeftField>("status", "employmentStatus", "left", "terminationDate"),
        fc.nat(),
        async (which, person, field, valueChoice) => {
          const fixture = loaded[which % loaded.length] as Loaded;
          const entries = PRESETS[fixture.preset].fields[field] ?? [];
          if (entries.length === 0 || fixture.inScope.length === 0) return;
          const recordNumber = fixture.inScope[person % fixture.inScope.length] as number;
          const document = structuredClone(fixture.document);
          const records = locate(document, fixture.records);
          const record = records[recordNumber - 1];
          if (record === undefined) throw new Error(`record ${recordNumber} of ${fixture.file} not found`);
          const path = readingEntry(record, entries);
          if (path === undefined) return;
          const values = leftValues(fixture.preset, field);
          const value = values[valueChoice % values.length];
          if (!setPath(record, path, value)) return;
          const name = `${fixture.preset}-${checked}.json`;
          const file = await files.write(name, JSON.stringify(document));
          const url = fixture.urlOf.get(recordNumber);
          const { readRoster, rosterReadOptions } = await import("../../../src/roster/read-roster.js");
          const { configSchema } = await import("../../../src/config/schema.js");
          const rules = configSchema.parse({ roster: { ...fixture.settings, file } }).roster;
          const outcome = await readRoster(rosterReadOptions(rules, file, new Date("2026-11-26T12:00:00Z"))).then(
            (roster) => roster,
            (error: unknown) => {
              if (error instanceof RosterFileError) return undefined;
              throw error;
            },
          );
          checked += 1;
          const stillIn = outcome?.people.some((p) => p.profileUrl === url) ?? false;
          expect(
            stillIn,
            `${fixture.preset}/${fixture.file} record ${recordNumber}: ${field} = ${JSON.stringify(value)}`,
          ).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
    expect(checked).toBeGreaterThan(100);
  });
});
