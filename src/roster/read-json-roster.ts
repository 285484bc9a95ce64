import type { Hash } from "node:crypto";
import { RosterFileError } from "../errors.js";
import { RosterRowCollector } from "./collect-roster-rows.js";
import { chunksOf, EXPORT_AGAIN } from "./file-chunks.js";
import { JsonRecordScanner } from "./json-records.js";
import { JsonScanError, parseRecordsPath, type StructureEntry, WRAPPER_KEYS } from "./json-scan-types.js";
import {
  chooseMapping,
  type MappingChoice,
  type MappingSetting,
  presetRecords,
  presetTitle,
} from "./mapping/choose-mapping.js";
import { describeStructure, suggestRecords } from "./mapping/describe-structure.js";
import { evaluatePath, parsePath, type Segment } from "./mapping/field-path.js";
import { KeyCover, statusLikeKeys, unreadStatusHint } from "./mapping/status-guard.js";
import type { RosterReadOptions } from "./read-options.js";
import { noProfileColumn, normalizeHeader, type ResolvedColumns, ROSTER_FIELDS } from "./roster-columns.js";
import type { RosterRows } from "./roster-rows.js";
import type { NonText } from "./row-cells.js";

/** Longest CSV record, NDJSON line or JSON record: an HRIS row is a few hundred bytes; more is a broken or hostile file. */
export const MAX_RECORD_BYTES = 1024 * 1024;

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
const FIELD_COLUMNS: ResolvedColumns = Object.fromEntries(ROSTER_FIELDS.map((field, i) => [field, [i]]));
const MAX_SHOWN_KEYS = 200;
/** Records whose status-like keys are all looked at; after them, only records of a new shape. */
const GUARD_RECORDS = 1000;

/** A mapping entry compiled: the whole entry as one key (it may hold dots), else a path. */
interface Candidate {
  readonly whole: string;
  readonly segments: readonly Segment[];
}

/** How one candidate reads records of the current shape: a top-level key, then the rest of the path. */
interface Reader {
  readonly key: string;
  readonly rest: readonly Segment[];
}

function compile(entries: readonly string[]): Candidate[] {
  return entries.map((entry) => ({ whole: normalizeHeader(entry), segments: segmentsOf(entry) }));
}

/** An entry that is no path ("Employee No.", a CSV header) is read as a whole key only. */
function segmentsOf(entry: string): readonly Segment[] {
  try {
    return parsePath(entry, { allowAny: false });
  } catch {
    return [];
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** BambooHR's datasets rows come as `{"fields": {...}}`: the person is inside. */
function unwrapped(object: Record<string, unknown>): Record<string, unknown> {
  const inner = object.fields;
  if (isObject(inner)) {
    const keys = Object.keys(object);
    if (keys.length === 1 || (keys.length === 2 && keys.includes("id"))) return inner;
  }
  return object;
}

export interface JsonMappingContext {
  readonly setting: MappingSetting;
  readonly ignoreColumns: readonly string[];
  /** Where the scanner found the records (asked at the first record). */
  readonly recordsAt: () => string | undefined;
}

/**
 * Maps JSON records onto the collector one at a time. The mapping is chosen at the first record
 * (a named preset, or `auto` recognising the vendor). Each field is read from the first of its
 * entries that holds a value; the top-level key each entry starts with is worked out once per
 * shape of record (records of one export share their keys), the rest of a path per record.
 */
export class JsonRecordMapper {
  private collector: RosterRowCollector | undefined;
  private choice: MappingChoice | undefined;
  private candidates: Candidate[][] = [];
  private cover: KeyCover | undefined;
  private readonly judged = new Set<string>();
  private lastKeys: string[] = [];
  private lastReaders: Reader[][] = [];
  private readonly keysSeen = new Set<string>();
  private withFields = 0;
  private withProfileKey = 0;
  private records = 0;
  private firstKind: string | undefined;
  private readonly rejected: Array<{ line: number; message: string; sourceLine: number | undefined }> = [];

  constructor(
    private readonly options: RosterReadOptions,
    private readonly unit: "line" | "record",
    private readonly context: JsonMappingContext,
  ) {}

  add(line: number, value: unknown, sourceLine?: number): void {
    this.records += 1;
    this.firstKind ??= kindOf(value);
    if (!isObject(value)) {
      const message = `${this.unit} ${line} is ${kindOf(value)}, not an object with fields`;
      if (this.collector === undefined) this.rejected.push({ line, message, sourceLine });
      else this.collector.reject(line, message, sourceLine);
      return;
    }
    const object = unwrapped(value);
    const collector = this.collector ?? this.start(object);
    if (this.records <= GUARD_RECORDS) this.guard(object, line);
    const readers = this.readersFor(object, line);
    if (readers[0]?.length) this.withProfileKey += 1;
    // Only the mapped fields are read: a record with thousands of keys costs no more than any other.
    const cells: Array<string | NonText | undefined> = [];
    for (let i = 0; i < readers.length; i += 1) {
      const list = readers[i] as Reader[];
      for (const reader of list) {
        const found = reader.rest.length === 0 ? object[reader.key] : evaluatePath(object[reader.key], reader.rest);
        if (found !== undefined && found !== null && found !== "") {
          cells[i] = cellOf(found);
          break;
        }
      }
    }
    collector.add(line, cells, sourceLine);
  }

  /** The mapping chosen, once a record was read. */
  get mapping(): MappingChoice | undefined {
    return this.choice;
  }

  finish(): RosterRows {
    const { file } = this.options;
    if (this.records > 0 && this.withFields === 0) {
      throw new RosterFileError(
        file,
        `holds no objects with fields (${this.unit} 1 is ${this.firstKind ?? "empty"}); each person must be an object such as {"networkUrl": "https://www.linkedin.com/in/<name>", "name": "..."}`,
      );
    }
    const choice = this.choice;
    // No record names a profile URL field: refused with the fields it does have.
    if (choice !== undefined && this.records > 0 && this.withProfileKey === 0) {
      throw noProfileColumn(file, [...this.keysSeen], choice.fields, choice.preset);
    }
    return (this.collector ?? new RosterRowCollector(FIELD_COLUMNS, this.options)).finish();
  }

  private start(first: Record<string, unknown>): RosterRowCollector {
    const shape = { kind: "json" as const, recordsAt: this.context.recordsAt(), record: first };
    const choice = chooseMapping(this.context.setting, shape, this.context.ignoreColumns);
    this.choice = choice;
    this.candidates = ROSTER_FIELDS.map((field) => compile(choice.fields[field]));
    this.cover = new KeyCover([...ROSTER_FIELDS.flatMap((field) => choice.fields[field]), ...choice.ignore]);
    const collector = new RosterRowCollector(FIELD_COLUMNS, this.options, choice.values);
    for (const { line, message, sourceLine } of this.rejected) collector.reject(line, message, sourceLine);
    this.collector = collector;
    return collector;
  }

  /** Refuses the file at the first status-like key the mapping does not read (status-guard). */
  private guard(object: Record<string, unknown>, line: number): void {
    for (const key of statusLikeKeys(object)) {
      const id = key.shape.join(".");
      if (this.judged.has(id)) continue;
      this.judged.add(id);
      if (this.cover?.covers(key.shape)) continue;
      const suggestion = this.suggestion();
      throw new RosterFileError(
        this.options.file,
        `${unreadStatusHint(key.shown, "key")} (${this.unit} ${line}; read with ${presetTitle(this.choice?.preset ?? "explicit")})${suggestion}`,
      );
    }
  }

  private suggestion(): string {
    const hint = this.choice?.hint;
    return hint === undefined ? "" : `. Note: ${hint}`;
  }

  private readersFor(object: Record<string, unknown>, line: number): Reader[][] {
    const keys = Object.keys(object);
    const last = this.lastKeys;
    let same = keys.length === last.length;
    for (let i = 0; same && i < keys.length; i += 1) same = keys[i] === last[i];
    if (same) return this.lastReaders;
    if (keys.length > 0) this.withFields += 1;
    if (this.records > GUARD_RECORDS) this.guard(object, line);
    const byName = new Map<string, string>();
    for (const key of keys) {
      const name = normalizeHeader(key);
      if (name !== "" && !byName.has(name)) byName.set(name, key);
      if (this.keysSeen.size < MAX_SHOWN_KEYS) this.keysSeen.add(key);
    }
    this.lastKeys = keys;
    this.lastReaders = this.candidates.map((list) => {
      const readers: Reader[] = [];
      for (const candidate of list) {
        const whole = byName.get(candidate.whole);
        const first = candidate.segments[0];
        if (whole !== undefined) readers.push({ key: whole, rest: [] });
        else if (first?.kind === "key" && candidate.segments.length > 1) {
          const key = byName.get(first.norm);
          if (key !== undefined) readers.push({ key, rest: candidate.segments.slice(1) });
        }
      }
      return readers;
    });
    return this.lastReaders;
  }
}

/** What a JSON reader returns: the rows, and the mapping they were read with. */
export interface JsonRosterRead {
  readonly rows: RosterRows;
  readonly mapping: MappingChoice | undefined;
}

function recordsPath(options: RosterReadOptions): string | undefined {
  return options.records ?? presetRecords(options.mapping);
}

const FOUND_WHERE = `a top-level list, or a list under ${WRAPPER_KEYS.join(", ")} (at the top level or one level down)`;

/** The refusal of a document whose records were not found, with what it holds and the fix. */
function recordsNotFound(
  file: string,
  records: string | undefined,
  structure: readonly StructureEntry[],
): RosterFileError {
  const where =
    records === undefined ? `no list of people (looked for ${FOUND_WHERE})` : `nothing at roster.records "${records}"`;
  const suggested = suggestRecords(structure);
  const fix =
    suggested === undefined
      ? "Export the people as a JSON list, or set roster.records to the path of the list."
      : `If the people are the objects at ${suggested}, set roster.records: "${suggested}" (a * stands for every element of a list).`;
  return new RosterFileError(file, `holds ${where}. It holds: ${describeStructure(structure)}. ${fix}`);
}

/**
 * A JSON document of people, streamed record by record: a list, a list under a wrapper key, or
 * the values at `roster.records`.
 */
export async function readJsonRoster(options: RosterReadOptions, hash: Hash): Promise<JsonRosterRead> {
  const { file } = options;
  const records = recordsPath(options);
  const scanner = new JsonRecordScanner({
    maxRecordBytes: MAX_RECORD_BYTES,
    ...(records === undefined ? {} : { records: parseRecordsPath(records) }),
  });
  let recordsAt: string | undefined;
  const mapper = new JsonRecordMapper(options, "record", {
    setting: options.mapping,
    ignoreColumns: options.ignoreColumns,
    recordsAt: () => recordsAt,
  });
  const onRecord = (text: string, record: number, line: number) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new RosterFileError(
        file,
        `is not valid JSON (truncated or corrupt?): record ${record} (line ${line}): ${(error as Error).message}`,
        { cause: error },
      );
    }
    recordsAt ??= scanner.recordsFound;
    mapper.add(record, value, line);
  };
  try {
    for await (const chunk of chunksOf(file, hash)) scanner.push(chunk, onRecord);
    const end = scanner.end();
    if (end.top !== "array" && end.top !== "object") {
      throw new RosterFileError(file, `must hold a list of people, or an object with one (it holds ${end.top})`);
    }
    if (end.recordsAt === undefined) throw recordsNotFound(file, records, end.structure);
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
  return { rows: mapper.finish(), mapping: mapper.mapping };
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
export async function readNdjsonRoster(options: RosterReadOptions, hash: Hash): Promise<JsonRosterRead> {
  const { file } = options;
  const mapper = new JsonRecordMapper(options, "line", {
    setting: options.mapping,
    ignoreColumns: options.ignoreColumns,
    recordsAt: () => undefined,
  });
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
  return { rows: mapper.finish(), mapping: mapper.mapping };
}
