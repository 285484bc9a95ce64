import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluatePath, FieldPathError, parsePath } from "../../src/roster/mapping/field-path.js";

const read = (value: unknown, path: string) => evaluatePath(value, parsePath(path, { allowAny: false }));

describe("mapping paths", () => {
  it("reads keys, array indexes and [key=value] selectors, as the vendors nest them", () => {
    const personio = { attributes: { first_name: { label: "First name", value: "Ada" } } };
    expect(read(personio, "attributes.first_name.value")).toBe("Ada");
    const sf = { personalInfoNav: { results: [{ firstName: "Grace" }] } };
    expect(read(sf, "personalInfoNav.results.0.firstName")).toBe("Grace");
    expect(read(sf, "personalInfoNav.results[0].firstName")).toBe("Grace");
    const gusto = {
      custom_fields: [
        { name: "Shoe size", value: "9" },
        { name: "LinkedIn URL", value: "x" },
      ],
    };
    expect(read(gusto, "custom_fields[name=LinkedIn URL].value")).toBe("x");
    expect(read(gusto, "custom_fields[name= linkedin url ].value")).toBe("x");
    const adp = {
      customFieldGroup: {
        stringFields: [
          { nameCode: { codeValue: "Badge" }, stringValue: "1" },
          { nameCode: { codeValue: "LinkedIn URL" }, stringValue: "y" },
        ],
      },
    };
    expect(read(adp, "customFieldGroup.stringFields[nameCode.codeValue=LinkedIn URL].stringValue")).toBe("y");
  });

  it("compares keys like headers, an exact key first", () => {
    expect(read({ Work: { Department: "Ops" } }, "work.department")).toBe("Ops");
    expect(read({ "first-name": "A", firstName: "B" }, "firstName")).toBe("B");
    expect(read({ "first-name": "A" }, "First_Name")).toBe("A");
  });

  it("finds nothing where a step does not fit, and never throws on odd values", () => {
    const doc = { a: [1, null, "x", { k: "v" }, [2]], b: null, c: "text" };
    expect(read(doc, "a.7")).toBeUndefined();
    expect(read(doc, "a.k")).toBeUndefined();
    expect(read(doc, "b.x")).toBeUndefined();
    expect(read(doc, "c.0")).toBeUndefined();
    expect(read(doc, "a[k=v].k")).toBe("v");
    expect(read(doc, "a[k=w].k")).toBeUndefined();
    expect(read(doc, "b[k=v]")).toBeUndefined();
    expect(
      read(
        {
          a: [
            { k: "v", n: 1 },
            { k: "v", n: 2 },
          ],
        },
        "a[k=v].n",
      ),
    ).toBe(1);
    expect(read({ a: [{ n: 1 }, { k: null }, { k: "V", n: 3 }] }, "a[k=v].n")).toBe(3);
  });

  it("refuses malformed paths with what is wrong", () => {
    for (const bad of ["", "a..b", ".a", "a.", "a[b=c", "a]b", "a[b]", "a[=c]", "a[b=c]x", "a.*.b", "[k=v].a"]) {
      expect(() => parsePath(bad, { allowAny: false }), bad).toThrow(FieldPathError);
    }
    expect(parsePath("responses.*.body", { allowAny: true })).toHaveLength(3);
  });

  it("reads what a plain lookup reads, for any path into any generated document", () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.array(fc.nat(), { maxLength: 6 }), (doc, choices) => {
        // Walk the document, choosing a member or an element at each step, noting the path.
        const steps: string[] = [];
        let current: unknown = doc;
        for (const choice of choices) {
          if (Array.isArray(current) && current.length > 0) {
            const i = choice % current.length;
            steps.push(String(i));
            current = current[i];
          } else if (current !== null && typeof current === "object" && Object.keys(current).length > 0) {
            const keys = Object.keys(current).filter((k) => /^[A-Za-z0-9]+$/.test(k));
            const k = keys[choice % Math.max(keys.length, 1)];
            if (k === undefined) break;
            steps.push(k);
            current = (current as Record<string, unknown>)[k];
          } else break;
        }
        if (steps.length === 0) return;
        expect(read(doc, steps.join("."))).toEqual(current);
      }),
      { numRuns: 400 },
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(fc.record({ name: fc.oneof(key, fc.constant(null)), value: fc.jsonValue() }), fc.jsonValue()),
          {
            maxLength: 8,
          },
        ),
        key,
        (list, wanted) => {
          const first = list.find(
            (e) =>
              e !== null && typeof e === "object" && !Array.isArray(e) && (e as { name?: unknown }).name === wanted,
          ) as { value?: unknown } | undefined;
          expect(read({ list }, `list[name=${wanted}].value`)).toEqual(first?.value);
        },
      ),
      { numRuns: 400 },
    );
  });
});
