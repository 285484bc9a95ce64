import { normalizeName, parsePath, type Segment } from "./mapping/field-path.js";

/**
 * The vocabulary of `JsonRecordScanner` (json-records.ts): its error, the frames it keeps per
 * nesting level, what it reports, and the byte tests it makes. Apart so the scanner's file holds
 * only the scanning.
 */

/** Why the scanner gave up; the reader turns it into a RosterFileError naming the file. */
export class JsonScanError extends Error {
  constructor(
    readonly problem: "too-long" | "not-json" | "truncated",
    message: string,
    /** The record (1-based) it happened in, when known. */
    readonly record?: number,
  ) {
    super(message);
    this.name = "JsonScanError";
  }
}

export const WRAPPER_KEYS = [
  "Report_Entry",
  "employees",
  "workers",
  "people",
  "data",
  "records",
  "results",
  "individuals",
  "items",
  "value",
] as const;

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const NEWLINE = 0x0a;

export function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === NEWLINE || byte === 0x0d || byte === 0x09;
}

/** What the top-level value is, for a refusal: "a string", "an object". */
export type TopKind = "array" | "object" | "a string" | "a number" | "true, false or null" | undefined;

/** What one path of the document holds (paths with `*` for array elements). */
export interface StructureEntry {
  readonly path: string;
  readonly kind: "object" | "array" | "scalar";
  /** Objects: the first keys, in order. */
  readonly keys: string[];
  /** Arrays: elements in all, and of which kinds. */
  elements: number;
  readonly elementKinds: Set<"object" | "array" | "scalar">;
}

export interface ScanResult {
  readonly records: number;
  readonly top: TopKind;
  /** Where the records were: `Report_Entry`, `d.results`, `responses.*.body`, "" for a top-level array. */
  readonly recordsAt: string | undefined;
  readonly structure: readonly StructureEntry[];
}

/** How a value is read: a record, an array of records, a container to look into, or skipped. */
export type Role = "record" | "records" | "descend" | "skip";

export interface Frame {
  readonly type: "object" | "array";
  readonly role: Role;
  /** Keys and indexes from the top (`*` for every element in `shape`). */
  readonly path: readonly string[];
  readonly shape: string;
  key: string | undefined;
  index: number;
  expectKey: boolean;
  /** Member names are read here: to follow a path, or to note the structure. */
  readonly readKeys: boolean;
}

export interface ScannerOptions {
  readonly maxRecordBytes: number;
  /** `roster.records`, parsed; undefined finds the records. */
  readonly records?: readonly Segment[];
}

export function parseRecordsPath(path: string): Segment[] {
  return parsePath(path, { allowAny: true });
}

export function segmentMatches(segment: Segment | undefined, step: string, parent: Frame): boolean {
  if (segment === undefined) return false;
  if (segment.kind === "any") return true;
  if (segment.kind !== "key") return false;
  return parent.type === "array" ? segment.name === step : normalizeName(step) === segment.norm;
}

/** The frame pushed for nesting inside a record: nothing in it is looked at. */
export const INNER: Frame = {
  type: "array",
  role: "skip",
  path: [],
  shape: "",
  key: undefined,
  index: 0,
  expectKey: false,
  readKeys: false,
};

export function scalarKind(byte: number): TopKind {
  return byte === 0x74 || byte === 0x66 || byte === 0x6e ? "true, false or null" : "a number";
}

export function joinShape(parent: string, step: string): string {
  return parent === "" ? step : `${parent}.${step}`;
}
