/**
 * A streaming CSV record splitter for HRIS exports, in the dialect `csv-parse` read them with
 * before (`relax_quotes`, `relax_column_count`, BOM skipped, record delimiter taken from the first
 * line break): quoted cells with `""` escapes and line breaks inside, a quote inside an unquoted
 * cell is text, a quoted cell followed by more text is read as text, quotes included.
 *
 * Why not csv-parse: it turns every cell of every row into a string, through an intermediate
 * buffer, and was half of the CPU time of reading a 1,000,000-row export. This one works on the
 * bytes, takes the fast way for a row without a quote at a cell start (nearly all of them), and
 * makes strings only for the columns the roster reads (`keepOnly`). Memory is bounded: one chunk
 * plus one unfinished record, at most `maxRecordBytes`.
 */

export type CsvProblem = "quote-not-closed" | "record-too-long";

/** A file that is not CSV this reader can split; `line` is where the record starts (1-based). */
export class CsvSyntaxError extends Error {
  constructor(
    readonly problem: CsvProblem,
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = "CsvSyntaxError";
  }
}

/** One record: its first line, its cells (undefined for a column not kept) and how many cells it has. */
export type CsvSink = (line: number, cells: Array<string | undefined>, count: number) => void;

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** The record delimiter of a file, from its first line break outside quotes: `\r\n`, `\n` or `\r`. */
export function recordBreak(head: Buffer): "lf" | "cr" {
  let quoted = false;
  for (let i = 0; i < head.length; i += 1) {
    const byte = head[i];
    if (byte === QUOTE) quoted = !quoted;
    else if (!quoted && byte === LF) return "lf";
    else if (!quoted && byte === CR) return head[i + 1] === LF || i + 1 === head.length ? "lf" : "cr";
  }
  return "lf";
}

interface Options {
  /** The delimiter character (one byte: `,` `;` tab `|`). */
  readonly delimiter: string;
  readonly maxRecordBytes: number;
  /** `lf` splits at `\n` (a `\r` before it is dropped), `cr` at a lone `\r`. */
  readonly lineBreak?: "lf" | "cr";
}

export class CsvRecordReader {
  private readonly delimiter: number;
  private readonly maxRecordBytes: number;
  private readonly breakByte: number;
  private rest: Buffer | undefined;
  private line = 1;
  private started = false;
  /** Columns to make strings for; undefined: all. */
  private keep: boolean[] | undefined;

  constructor(options: Options) {
    if (Buffer.byteLength(options.delimiter) !== 1) throw new Error("the delimiter must be one byte");
    this.delimiter = options.delimiter.charCodeAt(0);
    this.maxRecordBytes = options.maxRecordBytes;
    this.breakByte = options.lineBreak === "cr" ? CR : LF;
  }

  /** From now on only these columns become strings (the others are counted, left undefined). */
  keepOnly(columns: readonly number[]): void {
    const keep: boolean[] = [];
    for (const column of columns) keep[column] = true;
    this.keep = keep;
  }

  /** Splits what `chunk` completes; an unfinished record waits for the next chunk. */
  push(chunk: Buffer, sink: CsvSink): void {
    let buf = chunk;
    if (this.rest !== undefined) {
      buf = Buffer.concat([this.rest, chunk]);
      this.rest = undefined;
    }
    let pos = 0;
    if (!this.started) {
      if (buf.length < 3 && buf[0] === 0xef) {
        this.rest = buf;
        return;
      }
      this.started = true;
      if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) pos = 3;
    }
    pos = this.records(buf, pos, false, sink);
    if (pos < buf.length) {
      if (buf.length - pos > this.maxRecordBytes) this.tooLong();
      this.rest = buf.subarray(pos);
    }
  }

  /** The last record, which may lack a line break; an open quote here is a cut-off file. */
  end(sink: CsvSink): void {
    const buf = this.rest;
    this.rest = undefined;
    if (buf === undefined || buf.length === 0) return;
    let pos = 0;
    if (!this.started && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) pos = 3;
    this.started = true;
    this.records(buf, pos, true, sink);
  }

  private tooLong(): never {
    throw new CsvSyntaxError(
      "record-too-long",
      this.line,
      `record at line ${this.line} is longer than ${this.maxRecordBytes} bytes`,
    );
  }

  /** Splits the complete records of `buf` from `pos`; returns where the first unfinished one starts. */
  private records(buf: Buffer, from: number, last: boolean, sink: CsvSink): number {
    const delimiter = this.delimiter;
    const breakByte = this.breakByte;
    let pos = from;
    while (pos < buf.length) {
      let end = buf.indexOf(breakByte, pos);
      if (end === -1) {
        if (!last) return pos;
        end = buf.length;
      }
      if (end - pos > this.maxRecordBytes) this.tooLong();
      // The fast way: no quote at the start of any cell, so the record ends at this line break.
      let quoted = buf[pos] === QUOTE;
      if (!quoted) {
        for (let i = pos; i < end; i += 1) {
          if (buf[i] === delimiter && buf[i + 1] === QUOTE) {
            quoted = true;
            break;
          }
        }
      }
      if (quoted) {
        const next = this.quotedRecord(buf, pos, last, sink);
        if (next === -1) return pos;
        pos = next;
        continue;
      }
      const lineEnd = breakByte === LF && end > pos && buf[end - 1] === CR ? end - 1 : end;
      this.emit(buf, pos, lineEnd, sink);
      this.line += 1;
      pos = end + 1;
    }
    return pos;
  }

  /** A record without quoted cells, between `start` and `end` (line break excluded). */
  private emit(buf: Buffer, start: number, end: number, sink: CsvSink): void {
    const delimiter = this.delimiter;
    const keep = this.keep;
    const cells: Array<string | undefined> = [];
    let column = 0;
    let cellStart = start;
    for (let i = start; i <= end; i += 1) {
      if (i === end || buf[i] === delimiter) {
        if (keep === undefined || keep[column] === true) cells[column] = buf.toString("utf8", cellStart, i);
        column += 1;
        cellStart = i + 1;
      }
    }
    if (cells.length < column) cells.length = column;
    sink(this.line, cells, column);
  }

  /**
   * A record with at least one quoted cell, which may hold delimiters and line breaks. Returns
   * where the next record starts, or -1 when `buf` ends inside it (more data needed).
   */
  private quotedRecord(buf: Buffer, start: number, last: boolean, sink: CsvSink): number {
    const delimiter = this.delimiter;
    const breakByte = this.breakByte;
    const keep = this.keep;
    const cells: Array<string | undefined> = [];
    let breaks = 0;
    let column = 0;
    let pos = start;
    for (;;) {
      if (pos - start > this.maxRecordBytes) this.tooLong();
      let value: string | undefined;
      let after: number;
      if (buf[pos] === QUOTE) {
        // A quoted cell: up to the quote that is not doubled.
        let j = pos + 1;
        let close = -1;
        let doubled = false;
        for (;;) {
          const q = buf.indexOf(QUOTE, j);
          if (q === -1 || (q + 1 === buf.length && !last)) {
            if (!last) return -1;
            throw new CsvSyntaxError(
              "quote-not-closed",
              this.line,
              `a quoted cell opened on line ${this.line + breaks} is never closed`,
            );
          }
          if (buf[q + 1] === QUOTE) {
            doubled = true;
            j = q + 2;
            continue;
          }
          close = q;
          break;
        }
        const next = buf[close + 1];
        if (close + 1 === buf.length || next === delimiter || next === breakByte || next === CR || next === LF) {
          for (let k = pos + 1; k < close; k += 1) if (buf[k] === breakByte) breaks += 1;
          if (keep === undefined || keep[column] === true) {
            const text = buf.toString("utf8", pos + 1, close);
            value = doubled ? text.replaceAll('""', '"') : text;
          }
          after = close + 1;
        } else {
          // "abc"def: not a quoted cell after all; csv-parse (relax_quotes) reads it as text.
          after = this.plainCellEnd(buf, pos);
          if (after === -1) {
            if (!last) return -1;
            after = buf.length;
          }
          if (keep === undefined || keep[column] === true) value = buf.toString("utf8", pos, after);
        }
      } else {
        after = this.plainCellEnd(buf, pos);
        if (after === -1) {
          if (!last) return -1;
          after = buf.length;
        }
        let cellEnd = after;
        if (breakByte === LF && buf[after] === LF && cellEnd > pos && buf[cellEnd - 1] === CR) cellEnd -= 1;
        if (keep === undefined || keep[column] === true) value = buf.toString("utf8", pos, cellEnd);
      }
      cells[column] = value;
      column += 1;
      if (after >= buf.length) {
        if (!last) return -1;
        break;
      }
      const byte = buf[after];
      if (byte === delimiter) {
        pos = after + 1;
        continue;
      }
      if (byte === CR && breakByte === LF) {
        if (after + 1 === buf.length && !last) return -1;
        if (buf[after + 1] === LF) after += 1;
      }
      if (buf[after] === breakByte || buf[after] === CR || buf[after] === LF) {
        if (cells.length < column) cells.length = column;
        sink(this.line, cells, column);
        this.line += 1 + breaks;
        return after + 1;
      }
      pos = after;
    }
    if (cells.length < column) cells.length = column;
    sink(this.line, cells, column);
    this.line += 1 + breaks;
    return buf.length;
  }

  /** The end of an unquoted cell: the next delimiter or line break, or -1 if `buf` ends first. */
  private plainCellEnd(buf: Buffer, from: number): number {
    const delimiter = this.delimiter;
    const breakByte = this.breakByte;
    for (let i = from; i < buf.length; i += 1) {
      const byte = buf[i];
      if (byte === delimiter || byte === breakByte) return i;
    }
    return -1;
  }
}
