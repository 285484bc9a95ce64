import { createHash, type Hash } from "node:crypto";
import { open, stat } from "node:fs/promises";
import { extname } from "node:path";
import type { Config } from "../config/schema.js";
import { RosterFileError } from "../errors.js";
import { RosterRowCollector } from "./collect-roster-rows.js";
import { CsvRecordReader, CsvSyntaxError, recordBreak } from "./csv-records.js";
import { chunksOf, EXPORT_AGAIN } from "./file-chunks.js";
import { chooseMapping, type MappingChoice, presetTitle } from "./mapping/choose-mapping.js";
import { KeyCover, looksLikeStatus, unreadStatusHint } from "./mapping/status-guard.js";
import { nobodyInScope } from "./nobody-in-scope.js";
import { MAX_RECORD_BYTES, megabytes, readJsonRoster, readNdjsonRoster } from "./read-json-roster.js";
import type { RosterReadOptions } from "./read-options.js";
import { noProfileColumn, normalizeHeader, type ResolvedColumns, resolveColumns } from "./roster-columns.js";
import type { RosterRows } from "./roster-rows.js";

export { MAX_RECORD_BYTES } from "./read-json-roster.js";

export type RosterFormat = "csv" | "json" | "ndjson";

/**
 * How the configured roster rules read `file`: made once, then handed unchanged to every reader
 * and to the RosterRowCollector, so that no reader forgets a rule.
 */
export function rosterReadOptions(rules: Config["roster"], file: string, now: Date): RosterReadOptions {
  return {
    file,
    format: rules.format,
    mapping: rules.mapping,
    ...(rules.records === undefined ? {} : { records: rules.records }),
    ignoreColumns: rules.ignoreColumns,
    include: rules.include,
    untrackedDepartments: rules.untrackedDepartments,
    maxRows: rules.maxRows,
    now,
  };
}

/** A parsed HRIS export: people in scope, exclusions, row problems, and what identifies this file version. */
export interface RosterFile extends RosterRows {
  readonly file: string;
  readonly format: RosterFormat;
  /**
   * sha256 of the bytes, size and modification time: one export. Re-running the same file is not
   * a new export; a fresh export (a new modification time), even with the same content, is.
   */
  readonly fingerprint: string;
  /** The file's modification time (ISO): when the HRIS wrote this export, as far as the file says. */
  readonly modifiedAt: string;
  /** Things the operator should know that did not stop the run (e.g. a semicolon-separated file). */
  readonly notices: readonly string[];
  /** The mapping the file was read with, and how it was chosen (`mapping: auto` says what it recognised). */
  readonly mapping: { readonly preset: string; readonly title: string; readonly how: string };
}

const HEAD_BYTES = 64 * 1024;
const DELIMITERS = [",", ";", "\t", "|"] as const;
const DELIMITER_NAMES: Record<string, string> = { ",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe" };
const NO_HEADER = "has no header row: the first line must name the columns (e.g. networkUrl,name,department)";

/** Reads and maps an HRIS export; structural problems throw RosterFileError (and so archive nobody). */
export async function readRoster(options: RosterReadOptions): Promise<RosterFile> {
  const { file } = options;
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    const hint = error.code === "ENOENT" ? "it does not exist; check roster.file / HRIS_ROSTER_FILE" : error.message;
    throw new RosterFileError(file, `cannot be read: ${hint}`, { cause: error });
  });
  if (!info.isFile()) throw new RosterFileError(file, "is not a regular file; point roster.file at the export itself");
  if (info.size === 0)
    throw new RosterFileError(file, "is empty; refusing to treat an empty export as everyone leaving");
  const head = await readHead(file);
  checkHead(file, head);
  const format = pickFormat(file, options.format, head);
  const hash = createHash("sha256");
  let parsed: Parsed;
  // Every format is streamed: memory holds one chunk and one record, plus the people kept.
  if (format === "csv") parsed = await readCsv(options, head, hash);
  else {
    const read = format === "ndjson" ? await readNdjsonRoster(options, hash) : await readJsonRoster(options, hash);
    const notices = read.mapping?.hint === undefined ? [] : [read.mapping.hint];
    parsed = { rows: read.rows, notices, ...(read.mapping ? { mapping: read.mapping } : {}) };
  }
  if (parsed.rows.rowCount === 0) {
    const what = format === "csv" ? "has a header but no rows" : "holds no people";
    throw new RosterFileError(file, `${what}; refusing to treat an empty export as everyone leaving`);
  }
  const nobody = nobodyInScope(parsed.rows);
  if (nobody !== undefined) {
    throw new RosterFileError(file, `${nobody}${parsed.hint ?? ""}. Nothing was changed, nobody was archived.`);
  }
  const fingerprint = `${hash.digest("hex")}:${info.size}:${Math.trunc(info.mtimeMs)}`;
  const mapping = parsed.mapping ?? { preset: "generic", how: "no record to choose by" };
  return {
    ...parsed.rows,
    file,
    format,
    fingerprint,
    modifiedAt: new Date(info.mtimeMs).toISOString(),
    notices: parsed.notices,
    mapping: { preset: mapping.preset, title: presetTitle(mapping.preset), how: mapping.how },
  };
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, "r").catch((error: Error) => {
    throw new RosterFileError(file, `cannot be opened: ${error.message}`, { cause: error });
  });
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

const MAGIC: ReadonlyArray<readonly [string, string]> = [
  ["PK\u0003\u0004", "a ZIP archive or an Excel workbook (.xlsx)"],
  ["\u00d0\u00cf\u0011\u00e0", "an old Excel or Office document (.xls)"],
  ["%PDF-", "a PDF document"],
  ["\u001f\u008b", "gzip-compressed"],
];

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL_CHARS = /[\u0001-\u0008\u000E-\u001F\u007F]/g;

/** Refuses what is not a text export at all, naming what it looks like. */
function checkHead(file: string, head: Buffer): void {
  const latin = head.subarray(0, 8).toString("latin1");
  for (const [magic, what] of MAGIC) {
    if (latin.startsWith(magic))
      throw new RosterFileError(file, `is binary: ${what}, not a roster export; ${EXPORT_AGAIN}`);
  }
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff) || looksUtf16(head)) {
    throw new RosterFileError(file, "is UTF-16 encoded; export it as UTF-8 (CSV UTF-8 in Excel)");
  }
  const text = head.toString("utf8");
  // Control characters never occur in an export; undecodable bytes do, sparsely, in a Windows-1252 one.
  const controls = text.match(CONTROL_CHARS)?.length ?? 0;
  const undecodable = text.match(/\uFFFD/g)?.length ?? 0;
  if (head.includes(0) || controls > Math.max(8, text.length / 100) || undecodable > text.length / 10) {
    throw new RosterFileError(file, `is binary (not UTF-8 text); ${EXPORT_AGAIN}`);
  }
  if (head.length < HEAD_BYTES && text.replace(/^\uFEFF/, "").trim() === "") {
    throw new RosterFileError(file, "holds only blank lines; refusing to treat an empty export as everyone leaving");
  }
}

/** UTF-16 without a byte-order mark: every other byte of plain text is zero. */
function looksUtf16(head: Buffer): boolean {
  const sample = head.subarray(0, 64);
  if (sample.length < 8) return false;
  let evenZero = 0;
  let oddZero = 0;
  sample.forEach((byte, i) => {
    if (byte === 0) {
      if (i % 2 === 0) evenZero += 1;
      else oddZero += 1;
    }
  });
  const half = sample.length / 2;
  return (oddZero > half * 0.8 && evenZero === 0) || (evenZero > half * 0.8 && oddZero === 0);
}

function pickFormat(file: string, setting: Config["roster"]["format"], head: Buffer): RosterFormat {
  if (setting !== "auto") return setting;
  const ext = extname(file).toLowerCase();
  if (ext === ".csv" || ext === ".tsv" || ext === ".txt") return "csv";
  if (ext === ".json") return "json";
  if (ext === ".ndjson" || ext === ".jsonl") return "ndjson";
  const text = head
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart();
  if (text.startsWith("[")) return "json";
  if (text.startsWith("{")) {
    const firstLine = text.split("\n", 1)[0] ?? "";
    try {
      JSON.parse(firstLine);
      return "ndjson";
    } catch {
      return "json";
    }
  }
  return "csv";
}

/** Picks the delimiter that splits the header line most (outside quotes); commas win ties. */
function sniffDelimiter(head: Buffer): string {
  const text = head.toString("utf8");
  const counts = new Map<string, number>();
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === "\n" || ch === "\r")) break;
    else if (!quoted && (DELIMITERS as readonly string[]).includes(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  }
  let best = ",";
  for (const d of DELIMITERS) if ((counts.get(d) ?? 0) > (counts.get(best) ?? 0)) best = d;
  return best;
}

interface Parsed {
  readonly rows: RosterRows;
  readonly notices: string[];
  readonly mapping?: MappingChoice;
  /** Appended to the refusal of a file with nobody in scope (e.g. the rows use another delimiter). */
  readonly hint?: string;
}

/** Refuses a header with a status-like column the mapping does not read (mapping/status-guard). */
function refuseUnreadStatus(
  file: string,
  header: readonly string[],
  columns: ResolvedColumns,
  choice: MappingChoice,
): void {
  const read = new Set(Object.values(columns).flat());
  const ignored = new KeyCover(choice.ignore);
  header.forEach((name, index) => {
    if (read.has(index) || !looksLikeStatus(name) || ignored.covers([normalizeHeader(name)])) return;
    const note = choice.hint === undefined ? "" : `. Note: ${choice.hint}`;
    throw new RosterFileError(
      file,
      `${unreadStatusHint(name.trim(), "column")} (read with ${presetTitle(choice.preset)})${note}`,
    );
  });
}

function csvFailure(file: string, error: CsvSyntaxError): RosterFileError {
  if (error.problem === "record-too-long") {
    return new RosterFileError(
      file,
      `line ${error.line} is longer than ${megabytes(MAX_RECORD_BYTES)} (a row of a roster is a few hundred bytes): ` +
        `the file is not a roster export, or an unbalanced quote turned the rest of it into one cell; ${EXPORT_AGAIN}`,
      { cause: error },
    );
  }
  return new RosterFileError(
    file,
    `is not valid CSV near line ${error.line}: ${error.message} (an unclosed quote usually means the file was cut off)`,
    { cause: error },
  );
}

async function readCsv(options: RosterReadOptions, head: Buffer, hash: Hash): Promise<Parsed> {
  const { file } = options;
  const notices: string[] = [];
  const delimiter = sniffDelimiter(head);
  if (delimiter !== ",")
    notices.push(`the file is ${DELIMITER_NAMES[delimiter]}-separated, not comma-separated; read it as such`);
  const reader = new CsvRecordReader({ delimiter, maxRecordBytes: MAX_RECORD_BYTES, lineBreak: recordBreak(head) });
  let collector: RosterRowCollector | undefined;
  let choice: MappingChoice | undefined;
  let headerCells = 0;
  // The last data row, and the cell count of the row before it (the header's for the first row).
  let last: { line: number; cells: number; before: number } | undefined;
  let otherDelimiterRows = 0;
  const onRecord = (line: number, record: Array<string | undefined>, count: number) => {
    if (count === 1 && (record[0] ?? "").trim() === "") return;
    if (!collector) {
      const header = record.map((h) => h ?? "");
      if (header.every((h) => normalizeHeader(h) === "")) throw new RosterFileError(file, NO_HEADER);
      if (header.some((h) => /linkedin\.com\/|^https?:\/\//i.test(h.trim()))) {
        throw new RosterFileError(file, "starts with data, not a header row; add a header line naming the columns");
      }
      choice = chooseMapping(options.mapping, { kind: "csv", headers: header }, options.ignoreColumns);
      const columns = resolveColumns(header, choice.fields);
      if (columns.profileUrl === undefined) throw noProfileColumn(file, header, choice.fields, choice.preset);
      refuseUnreadStatus(file, header, columns, choice);
      if (choice.hint !== undefined) notices.push(choice.hint);
      collector = new RosterRowCollector(columns, options, choice.values);
      // Strings only for the mapped columns, and for the first one (a row of one cell is checked for other delimiters).
      reader.keepOnly([0, ...Object.values(columns).flat()]);
      headerCells = count;
      return;
    }
    last = { line, cells: count, before: last?.cells ?? headerCells };
    if (count === 1 && headerCells > 1 && /[,;\t|]/.test(record[0] ?? "")) otherDelimiterRows += 1;
    collector.add(line, record);
  };
  let lastByte: number | undefined;
  try {
    for await (const chunk of chunksOf(file, hash)) {
      if (chunk.length > 0) lastByte = chunk[chunk.length - 1];
      reader.push(chunk, onRecord);
    }
    reader.end(onRecord);
  } catch (error) {
    if (error instanceof RosterFileError) throw error;
    if (error instanceof CsvSyntaxError) throw csvFailure(file, error);
    throw new RosterFileError(file, `cannot be read: ${(error as Error).message}`, { cause: error });
  }
  if (!collector) throw new RosterFileError(file, NO_HEADER);
  // A cut-off export is still valid CSV: its last row has fewer cells than the one before and no
  // line break. (An exporter that always leaves trailing empty cells out writes every row short.)
  if (last && last.cells < last.before && lastByte !== 0x0a && lastByte !== 0x0d) {
    throw new RosterFileError(
      file,
      `line ${last.line} has ${last.cells} of ${headerCells} columns and the file does not end with a line break: ` +
        "it looks cut off (an interrupted export or copy); export it again. Nothing was changed, nobody was archived.",
    );
  }
  const hint =
    otherDelimiterRows > 0
      ? ` (${otherDelimiterRows} rows hold a single cell with another delimiter in it, while the header is ${DELIMITER_NAMES[delimiter]}-separated)`
      : undefined;
  return { rows: collector.finish(), notices, ...(choice ? { mapping: choice } : {}), ...(hint ? { hint } : {}) };
}
