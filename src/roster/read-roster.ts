import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, readFile, stat } from "node:fs/promises";
import { extname } from "node:path";
import { CsvError, parse } from "csv-parse";
import type { ColumnMapping, Config } from "../config/schema.js";
import { RosterFileError } from "../errors.js";
import { type IncludeRules, RosterRowCollector, type RosterRows } from "./collect-roster-rows.js";
import { mappingFor, normalizeHeader, type ResolvedColumns, resolveColumns } from "./roster-columns.js";

export type RosterFormat = "csv" | "json" | "ndjson";

export interface ReadRosterOptions {
  readonly file: string;
  readonly format?: Config["roster"]["format"];
  readonly mapping?: "generic" | "bamboohr" | "workday" | ColumnMapping;
  readonly include: IncludeRules;
  readonly now: Date;
}

/** A parsed HRIS export: people in scope, exclusions, row problems, and what identifies this file version. */
export interface RosterFile extends RosterRows {
  readonly file: string;
  readonly format: RosterFormat;
  /** sha256 of the bytes plus modification time: a re-run of the same export is not a new file. */
  readonly fingerprint: string;
  /** Things the operator should know that did not stop the run (e.g. a semicolon-separated file). */
  readonly notices: readonly string[];
}

const HEAD_BYTES = 64 * 1024;
const DELIMITERS = [",", ";", "\t", "|"] as const;
const DELIMITER_NAMES: Record<string, string> = { ";": "semicolon", "\t": "tab", "|": "pipe" };
const JSON_WRAPPERS = ["employees", "workers", "people", "data", "records"] as const;

/** Reads and maps an HRIS export; structural problems throw RosterFileError (and so archive nobody). */
export async function readRoster(options: ReadRosterOptions): Promise<RosterFile> {
  const { file } = options;
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    const hint = error.code === "ENOENT" ? "it does not exist; check roster.file / HRIS_ROSTER_FILE" : error.message;
    throw new RosterFileError(file, `cannot be read: ${hint}`, { cause: error });
  });
  if (!info.isFile()) throw new RosterFileError(file, "is not a regular file; point roster.file at the export itself");
  if (info.size === 0)
    throw new RosterFileError(file, "is empty; refusing to treat an empty export as everyone leaving");
  const head = await readHead(file);
  checkBinary(file, head);
  const format = pickFormat(file, options.format ?? "auto", head);
  const mapping = mappingFor(options.mapping ?? "generic");
  const hash = createHash("sha256");
  const parsed =
    format === "csv"
      ? await readCsv(file, head, mapping, options, hash)
      : await readJson(file, format, mapping, options, hash);
  if (parsed.rows.rowCount === 0) {
    throw new RosterFileError(file, "has a header but no rows; refusing to treat an empty export as everyone leaving");
  }
  const fingerprint = `${hash.digest("hex")}:${info.size}:${Math.trunc(info.mtimeMs)}`;
  return { ...parsed.rows, file, format, fingerprint, notices: parsed.notices };
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

function checkBinary(file: string, head: Buffer): void {
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) {
    throw new RosterFileError(file, "is UTF-16 encoded; export it as UTF-8 (CSV UTF-8 in Excel)");
  }
  if (head.includes(0) || head.subarray(0, 4).toString("latin1") === "PK\u0003\u0004") {
    throw new RosterFileError(file, "is binary (a spreadsheet or archive?); export the roster as CSV or JSON");
  }
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

function requireProfileColumn(file: string, headers: readonly string[], mapping: ColumnMapping): ResolvedColumns {
  const columns = resolveColumns(headers, mapping);
  if (columns.profileUrl === undefined) {
    const found = headers.map((h) => `"${h}"`).join(", ");
    throw new RosterFileError(
      file,
      `has no profile URL column. Found columns: ${found}. Expected one of: ${mapping.profileUrl.join(", ")}. ` +
        'Rename the column or set roster.mapping (a built-in name or { profileUrl: ["Your Column"] }).',
    );
  }
  return columns;
}

interface Parsed {
  readonly rows: RosterRows;
  readonly notices: string[];
}

async function readCsv(
  file: string,
  head: Buffer,
  mapping: ColumnMapping,
  options: ReadRosterOptions,
  hash: ReturnType<typeof createHash>,
): Promise<Parsed> {
  const notices: string[] = [];
  const delimiter = sniffDelimiter(head);
  if (delimiter !== ",")
    notices.push(`the file is ${DELIMITER_NAMES[delimiter]}-separated, not comma-separated; read it as such`);
  const source = createReadStream(file, { highWaterMark: 1 << 20 });
  source.on("data", (chunk) => hash.update(chunk));
  // Line numbers are counted here rather than with csv-parse's `info`, which halves parsing speed:
  // a record spans one line plus the newlines inside its quoted cells; blank lines arrive as [""].
  const parser = source.pipe(parse({ bom: true, delimiter, relax_column_count: true, skip_empty_lines: false }));
  let collector: RosterRowCollector | undefined;
  let nextLine = 1;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      const line = nextLine;
      nextLine += 1;
      for (const value of record) if (value.includes("\n")) nextLine += value.split("\n").length - 1;
      if (record.length === 1 && record[0]?.trim() === "") continue;
      if (!collector) {
        if (record.every((h) => normalizeHeader(h) === "")) throw new RosterFileError(file, "has no header row");
        if (record.some((h) => /linkedin\.com\/|^https?:\/\//i.test(h.trim()))) {
          throw new RosterFileError(file, "starts with data, not a header row; add a header line naming the columns");
        }
        collector = new RosterRowCollector(requireProfileColumn(file, record, mapping), options.include, options.now);
        continue;
      }
      collector.add(line, record);
    }
  } catch (error) {
    source.destroy();
    if (error instanceof RosterFileError) throw error;
    if (error instanceof CsvError) {
      const cut =
        error.code === "CSV_QUOTE_NOT_CLOSED" ? " (an unclosed quote usually means the file was cut off)" : "";
      throw new RosterFileError(file, `is not valid CSV near line ${nextLine}: ${error.message}${cut}`, {
        cause: error,
      });
    }
    throw new RosterFileError(file, `cannot be read: ${(error as Error).message}`, { cause: error });
  }
  if (!collector) throw new RosterFileError(file, "has no header row");
  return { rows: collector.finish(), notices };
}

function cellText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

async function readJson(
  file: string,
  format: "json" | "ndjson",
  mapping: ColumnMapping,
  options: ReadRosterOptions,
  hash: ReturnType<typeof createHash>,
): Promise<Parsed> {
  const bytes = await readFile(file);
  hash.update(bytes);
  const text = bytes.toString("utf8").replace(/^\uFEFF/, "");
  const records: Array<{ line: number; value: unknown }> = [];
  if (format === "ndjson") {
    text.split(/\r?\n/).forEach((raw, i) => {
      if (raw.trim() === "") return;
      try {
        records.push({ line: i + 1, value: JSON.parse(raw) });
      } catch (error) {
        throw new RosterFileError(file, `line ${i + 1} is not valid JSON (truncated or corrupt file?)`, {
          cause: error,
        });
      }
    });
  } else {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new RosterFileError(file, `is not valid JSON (truncated or corrupt?): ${(error as Error).message}`, {
        cause: error,
      });
    }
    const list = Array.isArray(parsed) ? parsed : unwrap(parsed);
    if (!list) {
      throw new RosterFileError(file, `must hold an array of people, or an object with an "employees" array`);
    }
    list.forEach((value, i) => {
      records.push({ line: i + 1, value });
    });
  }
  const headers: string[] = [];
  const seen = new Set<string>();
  for (const { value } of records) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) continue;
    for (const key of Object.keys(value)) {
      if (!seen.has(key)) {
        seen.add(key);
        headers.push(key);
      }
    }
  }
  if (records.length > 0 && headers.length === 0) throw new RosterFileError(file, "holds no objects with fields");
  const collector = new RosterRowCollector(
    records.length === 0 ? {} : requireProfileColumn(file, headers, mapping),
    options.include,
    options.now,
  );
  for (const { line, value } of records) {
    const object = value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
    collector.add(
      line,
      headers.map((h) => cellText(object[h])),
    );
  }
  return { rows: collector.finish(), notices: [] };
}

function unwrap(parsed: unknown): unknown[] | undefined {
  if (parsed === null || typeof parsed !== "object") return undefined;
  const object = parsed as Record<string, unknown>;
  for (const key of JSON_WRAPPERS) {
    const value = object[key];
    if (Array.isArray(value)) return value;
  }
  return undefined;
}
