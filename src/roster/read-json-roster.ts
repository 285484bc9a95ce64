import type { Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { RosterFileError } from "../errors.js";
import { type NonText, RosterRowCollector, type RosterRows } from "./collect-roster-rows.js";
import type { RosterReadOptions } from "./read-options.js";
import { requireProfileColumn } from "./roster-columns.js";

/** Longest CSV record or NDJSON line: an HRIS row is a few hundred bytes; more is a broken or hostile file. */
export const MAX_RECORD_BYTES = 1024 * 1024;
/** A JSON array is parsed whole (about 5x its size in memory); bigger rosters go to CSV or NDJSON, read row by row. */
export const MAX_JSON_BYTES = 100 * 1024 * 1024;
export const EXPORT_AGAIN = "export it again as CSV (UTF-8) or JSON";
const JSON_WRAPPERS = ["employees", "workers", "people", "data", "records"] as const;

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

/** Maps JSON records onto the collector: one header from the union of keys, one row per object. */
function collectRecords(
  options: RosterReadOptions,
  records: ReadonlyArray<{ line: number; value: unknown }>,
  unit: "line" | "record",
): RosterRows {
  const { file } = options;
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
  if (records.length > 0 && headers.length === 0) {
    const first = records[0]?.value;
    throw new RosterFileError(
      file,
      `holds no objects with fields (${unit} 1 is ${kindOf(first)}); each person must be an object such as {"networkUrl": "https://www.linkedin.com/in/<name>", "name": "..."}`,
    );
  }
  const columns = records.length === 0 ? {} : requireProfileColumn(options, headers);
  const used = Object.values(columns);
  const collector = new RosterRowCollector(columns, options);
  for (const { line, value } of records) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      collector.reject(line, `${unit} ${line} is ${kindOf(value)}, not an object with fields`);
      continue;
    }
    const object = value as Record<string, unknown>;
    // Only the mapped columns are filled: a record with thousands of keys costs no more than any other.
    const cells: Array<string | NonText | undefined> = [];
    for (const index of used) {
      const key = headers[index];
      if (key !== undefined) cells[index] = cellOf(object[key]);
    }
    collector.add(line, cells);
  }
  return collector.finish();
}

/** A JSON array of people (or an object wrapping one), read whole: the caller has checked its size. */
export async function readJsonRoster(options: RosterReadOptions, hash: Hash): Promise<RosterRows> {
  const { file } = options;
  const bytes = await readFile(file);
  hash.update(bytes);
  const text = bytes.toString("utf8").replace(/^\uFEFF/, "");
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
    throw new RosterFileError(
      file,
      `must hold an array of people, or an object with an "employees" array (it holds ${kindOf(parsed)})`,
    );
  }
  const records = list.map((value, i) => ({ line: i + 1, value }));
  return collectRecords(options, records, "record");
}

/** NDJSON line by line, each at most MAX_RECORD_BYTES, so no line can exhaust memory. */
async function* ndjsonLines(file: string, hash: Hash): AsyncGenerator<{ line: number; text: string }> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      pending.push(chunk.subarray(start, nl));
      line += 1;
      yield { line, text: Buffer.concat(pending).toString("utf8") };
      pending = [];
      pendingBytes = 0;
      start = nl + 1;
    }
    pendingBytes += chunk.length - start;
    if (pendingBytes > MAX_RECORD_BYTES) {
      throw new RosterFileError(
        file,
        `line ${line + 1} is longer than ${megabytes(MAX_RECORD_BYTES)}: not an NDJSON roster (one person per line); ${EXPORT_AGAIN}`,
      );
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pendingBytes > 0) yield { line: line + 1, text: Buffer.concat(pending).toString("utf8") };
}

/** One JSON object per line, streamed. */
export async function readNdjsonRoster(options: RosterReadOptions, hash: Hash): Promise<RosterRows> {
  const { file } = options;
  const records: Array<{ line: number; value: unknown }> = [];
  try {
    for await (const { line, text } of ndjsonLines(file, hash)) {
      const trimmed = text.replace(/^\uFEFF/, "").trim();
      if (trimmed === "") continue;
      try {
        records.push({ line, value: JSON.parse(trimmed) });
      } catch (error) {
        throw new RosterFileError(file, `line ${line} is not valid JSON (truncated or corrupt file?)`, {
          cause: error,
        });
      }
    }
  } catch (error) {
    if (error instanceof RosterFileError) throw error;
    throw new RosterFileError(file, `cannot be read: ${(error as Error).message}`, { cause: error });
  }
  return collectRecords(options, records, "line");
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
