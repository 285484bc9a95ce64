/**
 * Finds the records of a JSON roster as it streams by: the elements of a top-level array, or of
 * the first array under a wrapper key of a top-level object (`employees`, Workday RaaS's
 * `Report_Entry`, ...). Each element's bytes are handed to `JSON.parse` alone, so memory holds one
 * chunk and one record (at most `maxRecordBytes`), never the file. Syntax outside the records is
 * checked only as far as finding them needs: what is inside a record is checked by `JSON.parse`.
 */

/** Why the scanner gave up; the reader turns it into a RosterFileError naming the file. */
export class JsonScanError extends Error {
  constructor(
    readonly problem: "too-long" | "not-json" | "no-records" | "truncated",
    message: string,
    /** The record (1-based) it happened in, when known. */
    readonly record?: number,
  ) {
    super(message);
    this.name = "JsonScanError";
  }
}

const WRAPPERS = new Set(["employees", "workers", "people", "data", "records", "reportentry"]);
/** Wrapper keys compare like headers: `Report_Entry`, `reportEntry` and `report-entry` are one. */
const wrapperKey = (key: string) => key.toLowerCase().replace(/[\s_-]+/g, "");
const MAX_KEY_BYTES = 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** What the top-level value is, for a refusal: "a string", "an object without a list of people". */
export type TopKind = "array" | "object" | "a string" | "a number" | "true, false or null" | undefined;

export class JsonRecordScanner {
  private depth = 0;
  private inString = false;
  private escape = false;
  private top: TopKind;
  /** Depth of the records' own values: 1 for a top-level array, 2 under a wrapper key. */
  private recordsDepth = -1;
  private recordsClosed = false;
  private topClosed = false;
  /** At depth 1 of a top-level object: the next string is a member name. */
  private expectKey = false;
  private key: Buffer[] | undefined;
  private keyBytes = 0;
  private lastKey = "";
  /** The record being captured: pieces from earlier chunks, and where it starts in this one. */
  private pieces: Buffer[] = [];
  private pieceBytes = 0;
  private start = -1;
  private scalar = false;
  private records = 0;
  private offset = 0;

  constructor(private readonly maxRecordBytes: number) {}

  /** Feeds the next chunk; `onRecord` gets each complete record's text and its number. */
  push(chunk: Buffer, onRecord: (text: string, record: number) => void): void {
    const n = chunk.length;
    let i = 0;
    if (this.offset === 0 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    if (this.key !== undefined) this.start = 0;
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
          const q = chunk.indexOf(QUOTE, i + 1);
          const b = chunk.indexOf(BACKSLASH, i + 1);
          const next = q === -1 ? b : b === -1 ? q : Math.min(q, b);
          i = (next === -1 ? n : next) - 1;
          continue;
        }
        this.inString = false;
        if (this.key !== undefined) this.endKey(chunk, i);
        continue;
      }
      if (isSpace(byte)) {
        if (this.scalar && this.depth === this.recordsDepth) this.endRecord(chunk, i, onRecord);
        continue;
      }
      if (this.topClosed) {
        throw new JsonScanError(
          "not-json",
          `unexpected data after the end of the JSON value (byte ${this.offset + i})`,
        );
      }
      if (this.depth === 0 && this.top !== undefined && !this.scalar) {
        throw new JsonScanError(
          "not-json",
          `unexpected data after the end of the JSON value (byte ${this.offset + i})`,
        );
      }
      if (byte === QUOTE) {
        this.inString = true;
        if (this.depth === 0) this.top = "a string";
        else if (this.depth === 1 && this.top === "object" && this.expectKey) {
          this.key = [];
          this.keyBytes = 0;
          this.start = i + 1;
        } else if (this.depth === this.recordsDepth && this.start === -1 && !this.recordsClosed)
          this.startRecord(i, true);
        continue;
      }
      if (byte === 0x7b || byte === 0x5b) {
        if (this.depth === 0) {
          this.top = byte === 0x5b ? "array" : "object";
          if (byte === 0x5b) this.recordsDepth = 1;
          else this.expectKey = true;
        } else if (this.depth === this.recordsDepth && this.start === -1 && !this.recordsClosed)
          this.startRecord(i, false);
        else if (
          this.depth === 1 &&
          this.top === "object" &&
          byte === 0x5b &&
          this.recordsDepth === -1 &&
          WRAPPERS.has(wrapperKey(this.lastKey))
        ) {
          this.recordsDepth = 2;
        }
        this.depth += 1;
        continue;
      }
      if (byte === 0x7d || byte === 0x5d) {
        if (this.scalar && this.depth === this.recordsDepth) this.endRecord(chunk, i, onRecord);
        this.depth -= 1;
        if (this.depth < 0) throw new JsonScanError("not-json", `unbalanced "${String.fromCharCode(byte)}"`);
        if (this.start !== -1 && !this.scalar && this.depth === this.recordsDepth)
          this.endRecord(chunk, i + 1, onRecord);
        else if (this.depth === this.recordsDepth - 1 && this.recordsDepth > 0) this.recordsClosed = true;
        if (this.depth === 0) this.topClosed = true;
        continue;
      }
      if (byte === 0x2c) {
        if (this.scalar && this.depth === this.recordsDepth) this.endRecord(chunk, i, onRecord);
        if (this.depth === 1 && this.top === "object") this.expectKey = true;
        continue;
      }
      if (byte === 0x3a) {
        if (this.depth === 1 && this.top === "object") this.expectKey = false;
        continue;
      }
      // A number, true, false or null.
      if (this.depth === 0 && this.top === undefined) {
        this.top = byte === 0x74 || byte === 0x66 || byte === 0x6e ? "true, false or null" : "a number";
        this.scalar = true;
      } else if (this.depth === this.recordsDepth && this.start === -1 && !this.recordsClosed)
        this.startRecord(i, true);
    }
    this.carry(chunk);
    this.offset += n;
  }

  /**
   * After the last chunk: the number of records, what the top-level value is, and whether it held
   * a list of records at all (an object without a wrapper key holds none).
   */
  end(): { records: number; top: TopKind; wrapped: boolean } {
    if (this.top === "a string" || this.top === "a number" || this.top === "true, false or null") {
      return { records: 0, top: this.top, wrapped: false };
    }
    if (this.top === undefined) throw new JsonScanError("not-json", "holds no JSON value");
    if (!this.topClosed || this.inString) {
      throw new JsonScanError("truncated", "it ends before its last record or bracket is closed", this.records + 1);
    }
    return { records: this.records, top: this.top, wrapped: this.recordsDepth !== -1 && this.recordsClosed };
  }

  private startRecord(at: number, scalar: boolean): void {
    this.start = at;
    this.scalar = scalar;
    this.pieces = [];
    this.pieceBytes = 0;
  }

  private endRecord(chunk: Buffer, end: number, onRecord: (text: string, record: number) => void): void {
    const part = chunk.subarray(this.start, end);
    const bytes = this.pieceBytes + part.length;
    if (bytes > this.maxRecordBytes) this.tooLong();
    const text =
      this.pieces.length === 0 ? part.toString("utf8") : Buffer.concat([...this.pieces, part]).toString("utf8");
    this.start = -1;
    this.scalar = false;
    this.pieces = [];
    this.pieceBytes = 0;
    this.records += 1;
    onRecord(text, this.records);
  }

  private endKey(chunk: Buffer, end: number): void {
    const parts = this.key ?? [];
    parts.push(chunk.subarray(this.start, end));
    const raw = Buffer.concat(parts).toString("utf8");
    try {
      this.lastKey = JSON.parse(`"${raw}"`) as string;
    } catch {
      this.lastKey = raw;
    }
    this.key = undefined;
    this.start = -1;
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
    if (this.pieceBytes > this.maxRecordBytes) this.tooLong();
    this.pieces.push(Buffer.from(part));
    this.start = 0;
  }

  private tooLong(): never {
    throw new JsonScanError(
      "too-long",
      `record ${this.records + 1} is longer than ${Math.round(this.maxRecordBytes / 1024 / 1024)} MiB`,
      this.records + 1,
    );
  }
}
