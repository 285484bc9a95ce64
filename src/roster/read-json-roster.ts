import type { Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { RosterFileError } from "../errors.js";
import { type NonText, RosterRowCollector, type RosterRows } from "./collect-roster-rows.js";
import { JsonRecordScanner, JsonScanError } from "./json-records.js";
import type { RosterReadOptions } from "./read-options.js";
import {
  mappingFor,
  normalizeHeader,
  type ResolvedColumns,
  ROSTER_FIELDS,
  requireProfileColumn,
} from "./roster-columns.js";

/** Longest CSV record, NDJSON line or JSON record: an HRIS row is a few hundred bytes; more is a broken or hostile file. */
export const MAX_RECORD_BYTES = 1024 * 1024;
export const EXPORT_AGAIN = "export it again as CSV (UTF-8) or JSON";
/** Read size of the streamed readers. */
export const CHUNK_BYTES = 256 * 1024;

export function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MiB`;
}

/** One JSON value as a cell: text, a number or boolean as text, an object or list marked as not text. */
function cellOf(value: unknown): string | NonText | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return { nonText: "a list" };
  if (value !== null && typeof value === "object") return { nonText: "an object" };
  return undefined;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** JSON records reach the collector in field order: cell i is ROSTER_FIELDS[i]. */
const FIELD_COLUMNS: ResolvedColumns = Object.fromEntries(ROSTER_FIELDS.map((field, i) => [field, i]));
const MAX_SHOWN_KEYS = 200;

/**
 * Maps JSON records onto the collector one at a time. Each field is read from the first of the
 * mapping's names the record has (names compared like CSV headers); records of one export share
 * their keys, so the answer is kept per shape of record and worked out again only when it changes.
 */
class JsonRecordMapper {
  private readonly collector: RosterRowCollector;
  private readonly candidates: ReadonlyArray<readonly string[]>;
  private lastKeys: string[] = [];
  private lastFields: Array<string | undefined> = [];
  private readonly keysSeen = new Set<string>();
  private withFields = 0;
  private withProfileKey = 0;
  private records = 0;
  private firstKind: string | undefined;

  constructor(
    private readonly options: RosterReadOptions,
    private readonly unit: "line" | "record",
  ) {
    this.collector = new RosterRowCollector(FIELD_COLUMNS, options);
    const mapping = mappingFor(options.mapping);
    this.candidates = ROSTER_FIELDS.map((field) => mapping[field].map(normalizeHeader));
  }

  add(line: number, value: unknown): void {
    this.records += 1;
    this.firstKind ??= kindOf(value);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      this.collector.reject(line, `${this.unit} ${line} is ${kindOf(value)}, not an object with fields`);
      return;
    }
    const object = value as Record<string, unknown>;
    const fields = this.fieldsOf(object);
    if (fields[0] !== undefined) this.withProfileKey += 1;
    // Only the mapped fields are read: a record with thousands of keys costs no more than any other.
    const cells: Array<string | NonText | undefined> = [];
    for (let i = 0; i < fields.length; i += 1) {
      const key = fields[i];
      if (key !== undefined) cells[i] = cellOf(object[key]);
    }
    this.collector.add(line, cells);
  }

  finish(): RosterRows {
    const { file } = this.options;
    if (this.records > 0 && this.withFields === 0) {
      throw new RosterFileError(
        file,
        `holds no objects with fields (${this.unit} 1 is ${this.firstKind ?? "empty"}); each person must be an object such as {"networkUrl": "https://www.linkedin.com/in/<name>", "name": "..."}`,
      );
    }
    // No record names a profile URL field: refused with the fields it does have.
    if (this.records > 0 && this.withProfileKey === 0) requireProfileColumn(this.options, [...this.keysSeen]);
    return this.collector.finish();
  }

  private fieldsOf(object: Record<string, unknown>): Array<string | undefined> {
    const keys = Object.keys(object);
    if (keys.length > 0) this.withFields += 1;
    const last = this.lastKeys;
    let same = keys.length === last.length;
    for (let i = 0; same && i < keys.length; i += 1) same = keys[i] === last[i];
    if (same) return this.lastFields;
    const byName = new Map<string, string>();
    for (const key of keys) {
      const name = normalizeHeader(key);
      if (name !== "" && !byName.has(name)) byName.set(name, key);
      if (this.keysSeen.size < MAX_SHOWN_KEYS) this.keysSeen.add(key);
    }
    this.lastKeys = keys;
    this.lastFields = this.candidates.map((names) => {
      for (const name of names) {
        const key = byName.get(name);
        if (key !== undefined) return key;
      }
      return undefined;
    });
    return this.lastFields;
  }
}

/** Streams a file in chunks into the hash, refusing NUL bytes (a binary or corrupt file). */
async function* chunksOf(file: string, hash: Hash): AsyncGenerator<Buffer> {
  let offset = 0;
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      const nul = chunk.indexOf(0);
      if (nul >= 0) {
        throw new RosterFileError(
          file,
          `has a NUL byte at byte ${offset + nul}: it is binary or corrupt; ${EXPORT_AGAIN}`,
        );
      }
      offset += chunk.length;
      yield chunk;
    }
  } catch (error) {
    if (error instanceof RosterFileError) throw error;
    throw new RosterFileError(file, `cannot be read: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * A JSON array of people, or an object wrapping one (`employees`, `workers`, `people`, `data`,
 * `records`, or Workday RaaS's `Report_Entry`), streamed record by record.
 */
export async function readJsonRoster(options: RosterReadOptions, hash: Hash): Promise<RosterRows> {
  const { file } = options;
  const scanner = new JsonRecordScanner(MAX_RECORD_BYTES);
  const mapper = new JsonRecordMapper(options, "record");
  const onRecord = (text: string, record: number) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new RosterFileError(
        file,
        `is not valid JSON (truncated or corrupt?): record ${record}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    mapper.add(record, value);
  };
  const shape = `must hold an array of people, or an object with an "employees" (or Workday "Report_Entry") array`;
  try {
    for await (const chunk of chunksOf(file, hash)) scanner.push(chunk, onRecord);
    const { top, wrapped } = scanner.end();
    if (top !== "array" && top !== "object") throw new RosterFileError(file, `${shape} (it holds ${top})`);
    if (top === "object" && !wrapped) throw new RosterFileError(file, `${shape} (it holds an object without one)`);
  } catch (error) {
    if (!(error instanceof JsonScanError)) throw error;
    if (error.problem === "too-long") {
      throw new RosterFileError(
        file,
        `record ${error.record} is longer than ${megabytes(MAX_RECORD_BYTES)} (a person is a few hundred bytes): not a roster export; ${EXPORT_AGAIN}`,
      );
    }
    throw new RosterFileError(file, `is not valid JSON (truncated or corrupt?): ${error.message}`, { cause: error });
  }
  return mapper.finish();
}

/** NDJSON line by line, each at most MAX_RECORD_BYTES, so no line can exhaust memory. */
async function* ndjsonLines(file: string, hash: Hash): AsyncGenerator<{ line: number; text: string }> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 0;
  for await (const chunk of chunksOf(file, hash)) {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      line += 1;
      if (pendingBytes + nl - start > MAX_RECORD_BYTES) tooLong(file, line);
      pending.push(chunk.subarray(start, nl));
      yield {
        line,
        text: pending.length === 1 ? (pending[0] as Buffer).toString("utf8") : Buffer.concat(pending).toString("utf8"),
      };
      pending = [];
      pendingBytes = 0;
      start = nl + 1;
    }
    pendingBytes += chunk.length - start;
    if (pendingBytes > MAX_RECORD_BYTES) tooLong(file, line + 1);
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pendingBytes > 0) yield { line: line + 1, text: Buffer.concat(pending).toString("utf8") };
}

function tooLong(file: string, line: number): never {
  throw new RosterFileError(
    file,
    `line ${line} is longer than ${megabytes(MAX_RECORD_BYTES)}: not an NDJSON roster (one person per line); ${EXPORT_AGAIN}`,
  );
}

/** One JSON object per line, streamed. */
export async function readNdjsonRoster(options: RosterReadOptions, hash: Hash): Promise<RosterRows> {
  const { file } = options;
  const mapper = new JsonRecordMapper(options, "line");
  for await (const { line, text } of ndjsonLines(file, hash)) {
    const trimmed = text.replace(/^\uFEFF/, "").trim();
    if (trimmed === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      throw new RosterFileError(file, `line ${line} is not valid JSON (truncated or corrupt file?)`, {
        cause: error,
      });
    }
    mapper.add(line, value);
  }
  return mapper.finish();
}
