/**
 * Finds the records of a JSON roster as it streams by, and hands each record's bytes to
 * `JSON.parse` alone, so memory holds one chunk and one record (at most `maxRecordBytes`), never
 * the file. Where the records are:
 * - `roster.records` set: the values at that path (`d.results`, `responses.*.body`); an array there
 *   holds records, an object there is one;
 * - else found: a top-level array, or the first array under a wrapper key (`employees`,
 *   `Report_Entry`, `results`, ...) at the top level or one level down under a wrapper or `d`.
 * Syntax outside the records is checked only as far as finding them needs; inside a record
 * `JSON.parse` checks it. The shallow structure is noted as it goes, so a file whose records are
 * not found is refused with what it holds and a suggested `roster.records`.
 */

import {
  BACKSLASH,
  type Frame,
  INNER,
  isSpace,
  JsonScanError,
  joinShape,
  NEWLINE,
  QUOTE,
  type Role,
  type ScannerOptions,
  type ScanResult,
  type StructureEntry,
  scalarKind,
  segmentMatches,
  type TopKind,
  WRAPPER_KEYS,
} from "./json-scan-types.js";
import { normalizeName } from "./mapping/field-path.js";

const WRAPPERS = new Set<string>(WRAPPER_KEYS.map(normalizeName));
/** Keys that may hold a wrapper one level down: `d.results` (OData v2), `data.results`. */
const OUTER_WRAPPERS = new Set<string>([...WRAPPERS, "d"]);
const MAX_KEY_BYTES = 1024;
/** Structure noted for a refusal: this deep, this many paths, this many keys each. */
const STRUCTURE_DEPTH = 4;
const STRUCTURE_PATHS = 60;
const STRUCTURE_KEYS = 12;

export class JsonRecordScanner {
  private readonly frames: Frame[] = [];
  private inString = false;
  private escape = false;
  private top: TopKind;
  private topClosed = false;
  private key: Buffer[] | undefined;
  private keyBytes = 0;
  /** The record being captured: pieces from earlier chunks, and where it starts in this one. */
  private pieces: Buffer[] = [];
  private pieceBytes = 0;
  private start = -1;
  /** Depth (frames open) at which the record being captured started. */
  private recordDepth = -1;
  private scalar = false;
  private stringRecord = false;
  private recordLine = 0;
  private records = 0;
  private offset = 0;
  private line = 1;
  private recordsAt: string | undefined;
  private readonly structure = new Map<string, StructureEntry>();

  constructor(private readonly options: ScannerOptions) {}

  /** Feeds the next chunk; `onRecord` gets each complete record's text, its number and its first line. */
  push(chunk: Buffer, onRecord: (text: string, record: number, line: number) => void): void {
    const n = chunk.length;
    let i = 0;
    if (this.offset === 0 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    if (this.key !== undefined) this.start = 0;
    let backslash = -1;
    for (; i < n; i += 1) {
      const byte = chunk[i] as number;
      if (this.inString) {
        if (this.escape) {
          this.escape = false;
          continue;
        }
        if (byte === BACKSLASH) {
          this.escape = true;
          continue;
        }
        if (byte !== QUOTE) {
          // Skip ahead to the next quote or backslash: most bytes of a roster are inside strings.
          // The next backslash is looked for once per chunk, not once per string (it is rare, and
          // each look for one that is not there reads the rest of the chunk).
          if (backslash <= i) {
            backslash = chunk.indexOf(BACKSLASH, i + 1);
            if (backslash === -1) backslash = n;
          }
          const q = chunk.indexOf(QUOTE, i + 1);
          i = Math.min(q === -1 ? n : q, backslash) - 1;
          continue;
        }
        this.inString = false;
        if (this.key !== undefined) this.endKey(chunk, i);
        else if (this.stringRecord) this.endRecord(chunk, i + 1, onRecord);
        continue;
      }
      if (isSpace(byte)) {
        if (byte === NEWLINE) this.line += 1;
        if (this.scalar) this.endRecord(chunk, i, onRecord);
        continue;
      }
      if (this.recordDepth !== -1 && this.frames.length > this.recordDepth) {
        // Inside a record: only strings and nesting matter until it closes.
        if (byte === QUOTE) this.inString = true;
        else if (byte === 0x7b || byte === 0x5b) this.frames.push(INNER);
        else if (byte === 0x7d || byte === 0x5d) {
          this.frames.pop();
          if (this.frames.length === this.recordDepth) this.endRecord(chunk, i + 1, onRecord);
        }
        continue;
      }
      if (this.topClosed) {
        throw new JsonScanError(
          "not-json",
          `unexpected data after the end of the JSON value (byte ${this.offset + i})`,
        );
      }
      if (byte === 0x3a) {
        const frame = this.frames.at(-1);
        if (frame?.type === "object") frame.expectKey = false;
        continue;
      }
      if (byte === 0x2c) {
        if (this.scalar) this.endRecord(chunk, i, onRecord);
        const frame = this.frames.at(-1);
        if (frame?.type === "object") frame.expectKey = true;
        else if (frame) frame.index += 1;
        continue;
      }
      if (byte === 0x7d || byte === 0x5d) {
        if (this.scalar) this.endRecord(chunk, i, onRecord);
        if (this.frames.pop() === undefined) {
          throw new JsonScanError("not-json", `unbalanced "${String.fromCharCode(byte)}"`);
        }
        if (this.frames.length === 0) this.topClosed = true;
        continue;
      }
      // The rest of a number, true, false or null that is a record.
      if (this.scalar) continue;
      const frame = this.frames.at(-1);
      if (byte === QUOTE && frame?.type === "object" && frame.expectKey) {
        this.inString = true;
        if (frame.readKeys) {
          this.key = [];
          this.keyBytes = 0;
          this.start = i + 1;
        }
        continue;
      }
      // After a top-level scalar nothing matters: such a file holds no records and is refused.
      if (this.frames.length === 0 && this.top !== undefined) continue;
      this.valueStart(i, byte);
    }
    this.carry(chunk);
    this.offset += n;
  }

  /** Where the records are, once the scanner has found them. */
  get recordsFound(): string | undefined {
    return this.recordsAt;
  }

  /** After the last chunk: the records, what the top-level value is, where the records were. */
  end(): ScanResult {
    if (this.top === undefined) throw new JsonScanError("not-json", "holds no JSON value");
    const scalarTop = this.top !== "array" && this.top !== "object";
    if (!scalarTop && (!this.topClosed || this.inString)) {
      throw new JsonScanError("truncated", "it ends before its last record or bracket is closed", this.records + 1);
    }
    if (this.top === "a string" && this.inString) {
      throw new JsonScanError("truncated", "it ends inside a string", this.records + 1);
    }
    return {
      records: this.records,
      top: this.top,
      recordsAt: this.recordsAt,
      structure: [...this.structure.values()],
    };
  }

  private valueStart(at: number, byte: number): void {
    const parent = this.frames.at(-1);
    const container = byte === 0x7b ? "object" : byte === 0x5b ? "array" : undefined;
    if (parent === undefined) this.top = container ?? (byte === QUOTE ? "a string" : scalarKind(byte));
    const step = parent === undefined ? undefined : parent.type === "array" ? String(parent.index) : (parent.key ?? "");
    const path = parent === undefined || step === undefined ? [] : [...parent.path, step];
    const shape = parent === undefined ? "" : joinShape(parent.shape, parent.type === "array" ? "*" : (step ?? ""));
    if (parent !== undefined && this.frames.length <= STRUCTURE_DEPTH) this.note(parent, container);
    const role = parent === undefined ? this.rootRole(container) : this.roleOf(parent, path, container);
    if (role === "record") {
      this.startRecord(at, container, byte === QUOTE);
      if (container !== undefined) this.frames.push(INNER);
      return;
    }
    if (container === undefined) {
      if (byte === QUOTE) this.inString = true;
      return;
    }
    if (role === "records" && this.recordsAt === undefined) this.recordsAt = path.join(".");
    const depth = this.frames.length + 1;
    if (depth <= STRUCTURE_DEPTH) this.entryFor(shape, container);
    this.frames.push({
      type: container,
      role,
      path,
      shape,
      key: undefined,
      index: 0,
      expectKey: container === "object",
      readKeys: role === "descend" || depth <= STRUCTURE_DEPTH,
    });
  }

  private rootRole(container: "object" | "array" | undefined): Role {
    if (this.options.records !== undefined) return container === undefined ? "skip" : "descend";
    return container === "array" ? "records" : container === "object" ? "descend" : "skip";
  }

  private roleOf(parent: Frame, path: readonly string[], container: "object" | "array" | undefined): Role {
    if (parent.role === "records") return "record";
    if (parent.role !== "descend") return "skip";
    const pattern = this.options.records;
    if (pattern !== undefined) {
      const depth = path.length;
      if (!segmentMatches(pattern[depth - 1], path[depth - 1] ?? "", parent)) return "skip";
      if (depth < pattern.length) return container === undefined ? "skip" : "descend";
      if (this.recordsAt === undefined) this.recordsAt = this.shapeOf(parent, path);
      return container === "array" ? "records" : "record";
    }
    // Found by wrapper keys: the first array wins.
    if (this.recordsAt !== undefined || parent.type !== "object") return "skip";
    const name = normalizeName(path.at(-1) ?? "");
    if (container === "array" && WRAPPERS.has(name)) return "records";
    if (container === "object" && path.length === 1 && OUTER_WRAPPERS.has(name)) return "descend";
    return "skip";
  }

  private shapeOf(parent: Frame, path: readonly string[]): string {
    return joinShape(parent.shape, parent.type === "array" ? "*" : (path.at(-1) ?? ""));
  }

  /** Notes a value under `parent` for the structure a refusal shows. */
  private note(parent: Frame, container: "object" | "array" | undefined): void {
    const entry = this.structure.get(parent.shape);
    if (entry === undefined) return;
    const kind = container ?? "scalar";
    if (parent.type === "array") {
      entry.elements += 1;
      entry.elementKinds.add(kind);
    }
  }

  private startRecord(at: number, container: "object" | "array" | undefined, isString: boolean): void {
    this.start = at;
    this.recordLine = this.line;
    this.pieces = [];
    this.pieceBytes = 0;
    this.scalar = container === undefined && !isString;
    this.stringRecord = isString;
    if (isString) this.inString = true;
    this.recordDepth = this.frames.length;
  }

  private endRecord(chunk: Buffer, end: number, onRecord: (text: string, record: number, line: number) => void): void {
    const part = chunk.subarray(this.start, end);
    const bytes = this.pieceBytes + part.length;
    if (bytes > this.options.maxRecordBytes) this.tooLong();
    const text =
      this.pieces.length === 0 ? part.toString("utf8") : Buffer.concat([...this.pieces, part]).toString("utf8");
    this.start = -1;
    this.recordDepth = -1;
    this.scalar = false;
    this.stringRecord = false;
    this.pieces = [];
    this.pieceBytes = 0;
    this.records += 1;
    onRecord(text, this.records, this.recordLine);
  }

  private endKey(chunk: Buffer, end: number): void {
    const parts = this.key ?? [];
    parts.push(chunk.subarray(this.start, end));
    const raw = Buffer.concat(parts).toString("utf8");
    let name: string;
    try {
      name = JSON.parse(`"${raw}"`) as string;
    } catch {
      name = raw;
    }
    this.key = undefined;
    this.start = -1;
    const frame = this.frames.at(-1);
    if (frame === undefined) return;
    frame.key = name;
    this.noteKey(frame, name);
  }

  private noteKey(frame: Frame, name: string): void {
    if (this.frames.length > STRUCTURE_DEPTH) return;
    const entry = this.structure.get(frame.shape);
    if (entry !== undefined && entry.keys.length < STRUCTURE_KEYS && !entry.keys.includes(name)) entry.keys.push(name);
  }

  private entryFor(shape: string, kind: "object" | "array"): void {
    if (this.structure.has(shape) || this.structure.size >= STRUCTURE_PATHS) return;
    this.structure.set(shape, { path: shape, kind, keys: [], elements: 0, elementKinds: new Set() });
  }

  /** Keeps the unfinished record (or member name) of this chunk for the next one. */
  private carry(chunk: Buffer): void {
    if (this.start === -1) return;
    const part = chunk.subarray(this.start);
    if (this.key !== undefined) {
      this.keyBytes += part.length;
      if (this.keyBytes > MAX_KEY_BYTES) throw new JsonScanError("not-json", "a member name is over 1 KiB long");
      this.key.push(Buffer.from(part));
      this.start = -1;
      return;
    }
    this.pieceBytes += part.length;
    if (this.pieceBytes > this.options.maxRecordBytes) this.tooLong();
    this.pieces.push(Buffer.from(part));
    this.start = 0;
  }

  private tooLong(): never {
    throw new JsonScanError(
      "too-long",
      `record ${this.records + 1} is longer than ${Math.round(this.options.maxRecordBytes / 1024 / 1024)} MiB`,
      this.records + 1,
    );
  }
}
