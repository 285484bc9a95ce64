import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonRecordScanner } from "../../src/roster/json-records.js";
import { JsonScanError, parseRecordsPath } from "../../src/roster/json-scan-types.js";

function scan(text: string, size: number, options: { max?: number; records?: string } = {}) {
  const scanner = new JsonRecordScanner({
    maxRecordBytes: options.max ?? 1 << 20,
    ...(options.records === undefined ? {} : { records: parseRecordsPath(options.records) }),
  });
  const records: unknown[] = [];
  const lines: number[] = [];
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) {
    scanner.push(bytes.subarray(i, i + size), (record, _n, line) => {
      records.push(JSON.parse(record));
      lines.push(line);
    });
  }
  return { records, lines, end: scanner.end() };
}

describe("JsonRecordScanner", () => {
  it("finds the records of an array, or of the first wrapper array of an object, in any chunking", () => {
    const people = [{ a: 'x]}\\"[{', b: [1, { c: "}" }] }, "text", 12, null, { "": "" }];
    for (const size of [1, 2, 3, 7, 1000]) {
      expect(scan(JSON.stringify(people), size).records, `array ${size}`).toEqual(people);
      const wrapped = JSON.stringify({ count: 5, note: "[not records]", Report_Entry: people, data: [9] });
      expect(scan(wrapped, size).records, `wrapped ${size}`).toEqual(people);
      expect(scan(wrapped, size).end).toMatchObject({ records: 5, top: "object", recordsAt: "Report_Entry" });
    }
  });

  it("finds records one level down under a wrapper or d (OData's d.results), and skips other arrays", () => {
    const people = [{ id: 1 }, { id: 2 }];
    const odata = JSON.stringify({ d: { __count: "2", results: people } });
    expect(scan(odata, 5).end).toMatchObject({ records: 2, recordsAt: "d.results" });
    const kombo = JSON.stringify({ status: "success", data: { next: null, results: people } });
    expect(scan(kombo, 3).records).toEqual(people);
    const bamboo = JSON.stringify({ title: "Report", fields: [{ id: "x" }], employees: people });
    expect(scan(bamboo, 4).end).toMatchObject({ records: 2, recordsAt: "employees" });
    expect(scan(JSON.stringify({ x: { employees: people } }), 4).end.recordsAt).toBeUndefined();
  });

  it("follows roster.records through arrays (*) to arrays or single objects", () => {
    const finch = {
      responses: [
        { code: 200, body: { id: "a" } },
        { code: 200, body: { id: "b" } },
      ],
    };
    const found = scan(JSON.stringify(finch), 3, { records: "responses.*.body" });
    expect(found.records).toEqual([{ id: "a" }, { id: "b" }]);
    expect(found.end.recordsAt).toBe("responses.*.body");
    const adp = {
      events: [
        { data: { output: { workers: [{ id: 1 }, { id: 2 }] } } },
        { data: { output: { workers: [{ id: 3 }] } } },
      ],
    };
    expect(scan(JSON.stringify(adp), 7, { records: "events.*.data.output.workers" }).records).toEqual([
      { id: 1 },
      { id: 2 },
      { id: 3 },
    ]);
    expect(scan(JSON.stringify(adp), 7, { records: "events.*.nothing" }).end.recordsAt).toBeUndefined();
    expect(scan(JSON.stringify({ D: { Results: [{ id: 1 }] } }), 2, { records: "d.results" }).records).toEqual([
      { id: 1 },
    ]);
  });

  it("notes the structure it saw: keys and array lengths", () => {
    const doc = {
      paging: { count: 3 },
      responses: [
        { code: 200, body: { id: "a" } },
        { code: 200, body: {} },
      ],
    };
    const { structure } = scan(JSON.stringify(doc), 4).end;
    expect(structure.find((e) => e.path === "")?.keys).toEqual(["paging", "responses"]);
    expect(structure.find((e) => e.path === "responses")).toMatchObject({ kind: "array", elements: 2 });
    expect(structure.find((e) => e.path === "responses.*")?.keys).toEqual(["code", "body"]);
  });

  it("gives the line each record starts on", () => {
    const text = JSON.stringify({ employees: [{ a: 1 }, { a: 2 }, { a: 3 }] }, null, 2);
    expect(scan(text, 5).lines).toEqual([3, 6, 9]);
  });

  it("says what a file holds when it is not a list of records", () => {
    expect(scan('"just text"', 4).end).toMatchObject({ records: 0, top: "a string" });
    expect(scan("42", 4).end).toMatchObject({ records: 0, top: "a number" });
    expect(scan('{"x": {"employees": []}}', 4).end).toMatchObject({ records: 0, top: "object", recordsAt: undefined });
    expect(() => scan('[{"a": 1}', 4)).toThrow(JsonScanError);
    expect(() => scan('[{"a": 1}] extra', 4)).toThrow(/after the end/);
    expect(() => scan(`[{"a": "${"x".repeat(300)}"}]`, 16, { max: 100 })).toThrow(/record 1 is longer than/);
  });

  it("hands over every record of any JSON array or wrapped array, whatever the chunk size", () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 10 }),
        fc.integer({ min: 1, max: 64 }),
        fc.boolean(),
        fc.constantFrom(undefined, "results", "d"),
        (values, size, pretty, wrapper) => {
          const doc =
            wrapper === undefined ? values : wrapper === "d" ? { d: { results: values } } : { results: values };
          const text = pretty ? JSON.stringify(doc, null, 2) : JSON.stringify(doc);
          const { records, end } = scan(text, size);
          expect(records).toEqual(JSON.parse(JSON.stringify(values)));
          expect(end.records).toBe(values.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
