import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonRecordScanner, JsonScanError } from "../../src/roster/json-records.js";

function scan(text: string, size: number, max = 1 << 20) {
  const scanner = new JsonRecordScanner(max);
  const records: unknown[] = [];
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) {
    scanner.push(bytes.subarray(i, i + size), (record) => records.push(JSON.parse(record)));
  }
  return { records, end: scanner.end() };
}

describe("JsonRecordScanner", () => {
  it("finds the records of an array, or of the first wrapper array of an object, in any chunking", () => {
    const people = [{ a: 'x]}\\"[{', b: [1, { c: "}" }] }, "text", 12, null, { "": "" }];
    for (const size of [1, 2, 3, 7, 1000]) {
      expect(scan(JSON.stringify(people), size).records, `array ${size}`).toEqual(people);
      const wrapped = JSON.stringify({ count: 5, note: "[not records]", Report_Entry: people, data: [9] });
      expect(scan(wrapped, size).records, `wrapped ${size}`).toEqual(people);
      expect(scan(wrapped, size).end).toEqual({ records: 5, top: "object", wrapped: true });
    }
  });

  it("says what a file holds when it is not a list of records", () => {
    expect(scan('"just text"', 4).end).toMatchObject({ records: 0, top: "a string" });
    expect(scan("42", 4).end).toMatchObject({ records: 0, top: "a number" });
    expect(scan('{"x": {"employees": []}}', 4).end).toMatchObject({ records: 0, top: "object", wrapped: false });
    expect(() => scan('[{"a": 1}', 4)).toThrow(JsonScanError);
    expect(() => scan('[{"a": 1}] extra', 4)).toThrow(/after the end/);
    expect(() => scan(`[{"a": "${"x".repeat(300)}"}]`, 16, 100)).toThrow(/record 1 is longer than/);
  });

  it("hands over every record of any JSON array, whatever the chunk size", () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 10 }),
        fc.integer({ min: 1, max: 64 }),
        fc.boolean(),
        (values, size, pretty) => {
          const text = pretty ? JSON.stringify(values, null, 2) : JSON.stringify(values);
          const { records, end } = scan(text, size);
          expect(records).toEqual(JSON.parse(text));
          expect(end.records).toBe(values.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
