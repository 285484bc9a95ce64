/**
 * A corpus of broken HRIS exports, each built from the same staff list so that a file the reader
 * wrongly let through would show up as people archived. Big files are written (sparse where they
 * can be) into the test's temp folder by `write`; nothing here is committed.
 */
import { open, writeFile } from "node:fs/promises";
import { canonicalUrl, type HrisPerson, makePeople, toCsv, toJson, toNdjson } from "../../helpers/roster-files.js";

/** The roster the corpus starts from: 60 people, `staff-59` leaves in the precondition. */
export const STAFF: readonly HrisPerson[] = makePeople(60, { prefix: "staff" });
/** Who stays: the base of every bad file. */
export const STAYING: readonly HrisPerson[] = STAFF.slice(0, 59);
export const HEADER_CELLS = 8;

export function staying(index: number): HrisPerson {
  const person = STAYING[index];
  if (!person) throw new Error(`corpus: no staying person ${index}`);
  return person;
}

/** CSV line of the i-th staying person (header is line 1). */
export const lineOf = (index: number): number => index + 2;

export type ExpectedProblem = readonly [line: number, reason: string];

export interface CorpusCase {
  readonly name: string;
  readonly file: string;
  /** The content, or a writer for files too big to build in memory. */
  readonly content: string | Buffer | ((path: string) => Promise<void>);
  /** 2: the file is refused as a whole; 3: read, with row problems; 0: read cleanly (with a notice). */
  readonly code: 0 | 2 | 3;
  /** What the error or the report must say (what is wrong and what to do). */
  readonly says: RegExp;
  /** Row problems the JSON report must list (line, reason), exactly those with a row-error reason. */
  readonly problems?: readonly ExpectedProblem[];
  /** Run with --dry-run (a case whose plan adds someone, so the shared roster stays as it is). */
  readonly dryRun?: boolean;
}

const good = (): string => toCsv(STAYING);
const HEADER = good().split("\n", 1)[0] ?? "";
const MIB = 1024 * 1024;

/** Deterministic bytes (xorshift): the same "random" file on every run. */
function noise(length: number, seed: number): Buffer {
  let x = seed;
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** One line of `size` bytes with no line break, written in 1 MiB pieces. */
function hugeLine(prefix: string, size: number): (path: string) => Promise<void> {
  return async (path) => {
    const handle = await open(path, "w");
    try {
      await handle.write(prefix);
      const piece = Buffer.alloc(MIB, "a");
      for (let written = 0; written < size; written += MIB) await handle.write(piece);
    } finally {
      await handle.close();
    }
  };
}

/** A JSON file of `size` bytes whose first 128 KiB are real JSON and the rest a sparse hole. */
function sparseJson(size: number): (path: string) => Promise<void> {
  return async (path) => {
    const body = `[${STAYING.map((p) => JSON.stringify({ networkUrl: canonicalUrl(p.slug), name: p.name })).join(",\n")}`;
    const padded = body + " ".repeat(128 * 1024);
    await writeFile(path, padded);
    const handle = await open(path, "r+");
    try {
      await handle.truncate(size);
    } finally {
      await handle.close();
    }
  };
}

function cutInside(text: string, marker: string, keep: number): string {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`corpus: marker ${marker} not found`);
  return text.slice(0, at + keep);
}

/** Files refused as a whole: exit 2, nothing read, nothing changed. */
export function structuralCases(): CorpusCase[] {
  const quoted = toCsv(STAYING.map((p) => ({ ...p, name: `${p.name}, Jr.` })));
  const semicolonRows = [
    HEADER,
    ...good()
      .trimEnd()
      .split("\n")
      .slice(1)
      .map((l) => l.replaceAll(",", ";")),
  ];
  const ndjsonLines = toNdjson(STAYING).split("\n");
  ndjsonLines[29] = ndjsonLines[29]?.slice(0, 40) ?? "";
  const nulFile = Buffer.from(
    toCsv(STAYING.map((p, i) => (i === 0 ? { ...p, title: "x".repeat(70 * 1024) } : p))).replace(
      "staff 40",
      "staff\u000040",
    ),
  );
  return [
    { name: "a 0-byte file", file: "empty.csv", content: "", code: 2, says: /is empty/ },
    { name: "blank lines only", file: "blank.csv", content: " \n\n\t \r\n", code: 2, says: /only blank lines/ },
    { name: "a byte-order mark only", file: "bom.csv", content: "\uFEFF", code: 2, says: /only blank lines/ },
    { name: "a header only", file: "header.csv", content: `${HEADER}\n`, code: 2, says: /header but no rows/ },
    {
      name: "a file cut mid-row (unquoted, no line break at the end)",
      file: "cut-row.csv",
      content: cutInside(good(), "staff 40", 3),
      code: 2,
      says: new RegExp(`line ${lineOf(40)} has 3 of ${HEADER_CELLS} columns.*cut off.*export it again`),
    },
    {
      name: "a file cut inside a quoted field",
      file: "cut-quote.csv",
      content: cutInside(quoted, '"staff 30,', 6),
      code: 2,
      says: /not valid CSV near line \d+.*cut off/,
    },
    {
      name: "a comma header over semicolon rows (no row usable)",
      file: "mixed-delimiters.csv",
      content: `${semicolonRows.join("\n")}\n`,
      code: 2,
      says: /none of its 59 rows has a usable profile URL.*delimiter.*comma-separated/,
    },
    {
      name: "a file where no row has a usable URL",
      file: "no-usable-url.csv",
      content: toCsv(STAYING.map((p) => ({ ...p, url: "n/a" }))),
      code: 2,
      says: /none of its 59 rows has a usable profile URL \(line 2: .*linkedin\.com\/in\/<name>/,
    },
    {
      name: "an empty profile URL column",
      file: "empty-url-column.csv",
      content: toCsv(STAYING.map((p) => ({ ...p, url: "" }))),
      code: 2,
      says: /none of its 59 rows has a usable profile URL/,
    },
    {
      name: "a file where nobody is in scope",
      file: "nobody-in-scope.csv",
      content: toCsv(STAYING.map((p) => ({ ...p, status: "Contractor" }))),
      code: 2,
      says: /none of its 59 rows is in scope.*roster\.include/,
    },
    {
      name: "an Excel workbook (zip)",
      file: "roster.csv",
      content: Buffer.concat([Buffer.from("PK\u0003\u0004\u0014\u0000\u0006\u0000", "latin1"), noise(2048, 7)]),
      code: 2,
      says: /Excel workbook.*export it again as CSV/,
    },
    {
      name: "a PDF",
      file: "roster-pdf.csv",
      content: "%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n1 0 obj << /Type /Catalog >> endobj\n",
      code: 2,
      says: /PDF document/,
    },
    { name: "random bytes", file: "noise.csv", content: noise(4096, 42), code: 2, says: /is binary/ },
    {
      name: "NUL bytes only after the first 64 KiB",
      file: "late-nul.csv",
      content: nulFile,
      code: 2,
      says: /NUL byte at byte \d{5,}.*binary or corrupt/,
    },
    {
      name: "UTF-16 with a byte-order mark",
      file: "utf16.csv",
      content: Buffer.from(`\uFEFF${good()}`, "utf16le"),
      code: 2,
      says: /UTF-16.*export it as UTF-8/,
    },
    {
      name: "UTF-16 without a byte-order mark",
      file: "utf16-nobom.csv",
      content: Buffer.from(good(), "utf16le"),
      code: 2,
      says: /UTF-16/,
    },
    {
      name: "a 40 MB line without a line break",
      file: "huge-line.csv",
      content: hugeLine(`${HEADER}\n`, 40 * MIB),
      code: 2,
      says: /line 2 is longer than 1 MiB/,
    },
    {
      name: "a 40 MB header line",
      file: "huge-header.csv",
      content: hugeLine("LinkedIn URL,", 40 * MIB),
      code: 2,
      says: /line 1 is longer than 1 MiB/,
    },
    {
      name: "a 150 MB JSON file cut by a hole of NUL bytes (streamed: refused where the hole starts)",
      file: "huge.json",
      content: sparseJson(150 * MIB),
      code: 2,
      says: /NUL byte at byte \d{6,}.*binary or corrupt/,
    },
    {
      name: "an NDJSON line of 40 MB",
      file: "huge.ndjson",
      content: hugeLine(`${JSON.stringify({ networkUrl: canonicalUrl("staff-0") })}\n{"name":"`, 40 * MIB),
      code: 2,
      says: /line 2 is longer than 1 MiB/,
    },
    {
      name: "truncated JSON",
      file: "cut.json",
      content: toJson(STAYING).slice(0, 3000),
      code: 2,
      says: /not valid JSON/,
    },
    {
      name: "JSON that is not an array",
      file: "string.json",
      content: '"hello"',
      code: 2,
      says: /list of people.*a string/,
    },
    { name: "an empty JSON array", file: "nobody.json", content: "[]", code: 2, says: /holds no people/ },
    {
      name: "JSON nested 100,000 levels deep",
      file: "deep.json",
      content: `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
      code: 2,
      says: /no objects with fields \(record 1 is a list\)/,
    },
    {
      name: "NDJSON with one bad line",
      file: "bad-line.ndjson",
      content: ndjsonLines.join("\n"),
      code: 2,
      says: /line 30 is not valid JSON/,
    },
  ];
}
