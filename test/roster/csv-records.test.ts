import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CsvRecordReader, CsvSyntaxError, recordBreak } from "../../src/roster/csv-records.js";

/** Splits `text` with the reader, fed in chunks of `size` bytes; returns [line, cells] per record. */
function split(text: string | Buffer, size = 1 << 16, options: { keep?: number[]; delimiter?: string } = {}) {
  const bytes = typeof text === "string" ? Buffer.from(text) : text;
  const reader = new CsvRecordReader({
    delimiter: options.delimiter ?? ",",
    maxRecordBytes: 1024,
    lineBreak: recordBreak(bytes.subarray(0, 4096)),
  });
  if (options.keep) reader.keepOnly(options.keep);
  const out: Array<[number, Array<string | undefined>, number]> = [];
  const sink = (line: number, cells: Array<string | undefined>, count: number) => out.push([line, cells, count]);
  for (let i = 0; i < bytes.length; i += size) reader.push(bytes.subarray(i, i + size), sink);
  reader.end(sink);
  return out;
}

const cellsOf = (records: ReturnType<typeof split>) => records.map(([, cells]) => cells);

describe("CsvRecordReader", () => {
  it("reads the dialect HRIS exports use, as csv-parse (relax_quotes) read it", () => {
    // Each expectation is what csv-parse with the old options returned for the same input.
    expect(cellsOf(split('a,"abc"def,x\n'))).toEqual([["a", '"abc"def', "x"]]);
    expect(cellsOf(split('a, "abc" ,x\n'))).toEqual([["a", ' "abc" ', "x"]]);
    expect(cellsOf(split('a,b"c,d\n'))).toEqual([["a", 'b"c', "d"]]);
    expect(cellsOf(split('a,"b\nc",d\ne,f\n'))).toEqual([
      ["a", "b\nc", "d"],
      ["e", "f"],
    ]);
    expect(cellsOf(split("x\r\ny\r\n"))).toEqual([["x"], ["y"]]);
    expect(cellsOf(split("x\ry\r"))).toEqual([["x"], ["y"]]);
    expect(cellsOf(split("a,b\n\nc,d\n"))).toEqual([["a", "b"], [""], ["c", "d"]]);
    expect(cellsOf(split('a,"b""c",d\n'))).toEqual([["a", 'b"c', "d"]]);
    expect(cellsOf(split('a,"",b\n'))).toEqual([["a", "", "b"]]);
    expect(cellsOf(split('"a"\r\n"b"'))).toEqual([["a"], ["b"]]);
    expect(cellsOf(split("\uFEFFh1,h2\nv1,v2"))).toEqual([
      ["h1", "h2"],
      ["v1", "v2"],
    ]);
  });

  it("counts lines across line breaks inside quoted cells", () => {
    const records = split('h\n"one\ntwo\nthree"\nnext\n');
    expect(records.map(([line]) => line)).toEqual([1, 2, 5]);
  });

  it("makes strings only for the columns kept, and still counts the others", () => {
    const records = split("a,b,c,d\n", 64, { keep: [1, 3] });
    expect(records).toEqual([[1, [undefined, "b", undefined, "d"], 4]]);
  });

  it("refuses an unclosed quote at the end and a record over the limit, naming the line", () => {
    const open = (() => {
      try {
        split('h\nx,"never closed\n');
      } catch (error) {
        return error;
      }
    })();
    expect(open).toBeInstanceOf(CsvSyntaxError);
    expect(open).toMatchObject({ problem: "quote-not-closed", line: 2 });
    expect(() => split(`h\n${"x".repeat(5000)}\n`, 512)).toThrow(/line 2 is longer than 1024 bytes/);
    expect(() => split(`h\n"${"x".repeat(5000)}`, 512)).toThrow(/longer than 1024 bytes/);
  });

  it("reads back any table written as CSV, whatever the chunk size (split UTF-8, BOM and CRLF included)", () => {
    const cell = fc.oneof(
      fc.string({ unit: fc.constantFrom("a", "é", "😀", " ", ",", '"', "\n", "\r\n", ";"), maxLength: 12 }),
      fc.string({ maxLength: 8 }),
    );
    const table = fc.array(fc.array(cell, { minLength: 2, maxLength: 4 }), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(table, fc.integer({ min: 1, max: 40 }), fc.boolean(), fc.boolean(), (rows, size, crlf, bom) => {
        const quote = (v: string) => (/[",\r\n]/.test(v) || v === "" ? `"${v.replace(/"/g, '""')}"` : v);
        const eol = crlf ? "\r\n" : "\n";
        const text = (bom ? "\uFEFF" : "") + rows.map((r) => r.map(quote).join(",")).join(eol) + eol;
        expect(cellsOf(split(text, size))).toEqual(rows);
      }),
      { numRuns: 300 },
    );
  });
});
