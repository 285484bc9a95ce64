import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PageEnvelopeError, readPageEnvelope } from "../../../src/roster/sources/page-envelope.js";

const page = (text: string) => Buffer.from(text);

function problem(text: string, key = "results"): PageEnvelopeError {
  try {
    readPageEnvelope(page(text), key);
  } catch (error) {
    if (error instanceof PageEnvelopeError) return error;
    throw error;
  }
  throw new Error("the page was read");
}

describe("readPageEnvelope", () => {
  it("parses the members outside the list and keeps the list's bytes as they came", () => {
    const people = '{"id": "a", "name": "Zoë \\"Z\\" [x]", "tags": [{"k": "}"}]},\n  {"id": "b"}';
    const read = readPageEnvelope(page(`{"next": "c2", "previous": null, "results": [${people}], "n": 2}`), "results");
    expect(read.members).toEqual({ next: "c2", previous: null, n: 2 });
    expect(read.list).not.toBeNull();
    expect(read.list?.count).toBe(2);
    expect(read.list?.inner.toString()).toBe(people);
    expect(JSON.parse(read.list?.first ?? "")).toEqual({ id: "a", name: 'Zoë "Z" [x]', tags: [{ k: "}" }] });
    // The bytes between the brackets are the records of a JSON list, byte for byte.
    expect(JSON.parse(`[${read.list?.inner.toString()}]`)).toHaveLength(2);
  });

  it("an empty list, a null list and a page without one", () => {
    const empty = readPageEnvelope(page('{"results": [ ], "next": null}'), "results");
    expect(empty.list?.count).toBe(0);
    expect(empty.list?.first).toBeUndefined();
    expect(readPageEnvelope(page('{"results": null}'), "results").list).toBeNull();
    expect(readPageEnvelope(page('{"data": []}'), "results").list).toBeUndefined();
  });

  it("unwraps each record's member of a name when it is an object", () => {
    const body = '{"data": [{"fields": {"a": 1}}, {"id": 7, "fields": {"a": 2}}, {"a": 3}], "links": {}}';
    const read = readPageEnvelope(page(body), "data", { unwrap: "fields" });
    expect(read.list?.count).toBe(3);
    expect(JSON.parse(`[${read.list?.inner.toString()}]`)).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(read.list?.first).toBe('{"a": 1}');
  });

  it.each([
    ["<html>maintenance</html>", "syntax"],
    ["", "syntax"],
    ['{"next": nul, "results": []}', "syntax"],
    ['{"results": [{"a": 1}', "syntax"],
    ['{"results": [{"a": "cut', "syntax"],
    ['{"results": [{"a": [1}]}', "syntax"],
    ['{"results": [{"a": 1} {"b": 2}]}', "syntax"],
    ['{"results": []} {}', "syntax"],
    ['[{"a": 1}]', "shape"],
    ['"text"', "shape"],
    ['{"results": [1, 2]}', "shape"],
    ['{"results": {"a": 1}}', "shape"],
    ['{"results": [], "results": []}', "shape"],
  ] as const)("refuses %j (%s)", (text, kind) => {
    expect(problem(text).problem).toBe(kind);
  });

  it("reads a member named __proto__ as a member", () => {
    const read = readPageEnvelope(page('{"__proto__": {"x": 1}, "results": []}'), "results");
    expect(Object.getPrototypeOf(read.members)).toBeNull();
    expect(Object.getOwnPropertyDescriptor(read.members, "__proto__")?.value).toEqual({ x: 1 });
  });
});

describe("readPageEnvelope on any JSON page", () => {
  // Strings short and long, with quotes and backslashes anywhere: the walk steps through short
  // strings byte by byte and hands long ones to indexOf, and must end each one where JSON does.
  const text = fc.string({ unit: fc.constantFrom("a", '"', "\\", "é", "]", "}", " "), maxLength: 200 });
  const record = fc.dictionary(text, fc.oneof(text, fc.integer(), fc.array(text, { maxLength: 3 })), { maxKeys: 4 });

  it("finds every record and keeps them byte for byte, whatever their strings hold", () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 8 }), text, (records, cursor) => {
        const body = JSON.stringify({ next: cursor, results: records, count: records.length });
        const read = readPageEnvelope(page(body), "results");
        expect(read.members).toEqual({ next: cursor, count: records.length });
        expect(read.list?.count).toBe(records.length);
        expect(JSON.parse(`[${read.list?.inner.toString() ?? ""}]`)).toEqual(records);
      }),
    );
  });

  it("refuses the page cut anywhere", () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 4 }), fc.nat(), (records, at) => {
        const body = JSON.stringify({ results: records, next: null });
        const cut = at % body.length;
        expect(() => readPageEnvelope(page(body.slice(0, cut)), "results")).toThrow(PageEnvelopeError);
      }),
    );
  });
});
