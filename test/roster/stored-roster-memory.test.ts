import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EMPTY_MEMORY, type RosterMemory } from "../../src/roster/diff-roster.js";
import { parseStoredMemory, storedMemory } from "../../src/roster/stored-roster-memory.js";

const url = fc.stringMatching(/^https:\/\/www\.linkedin\.com\/in\/[a-z0-9-]{3,12}$/);
const identity = fc.record(
  {
    employeeId: fc.string({ minLength: 1, maxLength: 8 }),
    email: fc.emailAddress(),
    name: fc.string({ minLength: 1, maxLength: 20 }),
    department: fc.string({ minLength: 1, maxLength: 10 }),
  },
  { requiredKeys: [] },
);
const isoTime = fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
const memory: fc.Arbitrary<RosterMemory> = fc
  .record({
    lastFingerprint: fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
    exportSeenAt: fc.option(isoTime, { nil: undefined }),
    seen: fc.uniqueArray(url, { maxLength: 20 }),
    missing: fc.array(fc.tuple(url, fc.nat(50)), { maxLength: 10 }),
    missingSince: fc.array(fc.tuple(url, isoTime), { maxLength: 10 }),
    archivedAt: fc.array(
      fc.tuple(
        url,
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      ),
      {
        maxLength: 10,
      },
    ),
    identities: fc.array(fc.tuple(url, identity), { maxLength: 10 }),
  })
  .map(({ lastFingerprint, exportSeenAt, seen, missing, missingSince, archivedAt, identities }) => ({
    ...(lastFingerprint === undefined ? {} : { lastFingerprint }),
    ...(exportSeenAt === undefined ? {} : { exportSeenAt }),
    seen: new Set(seen),
    missing: new Map(missing),
    missingSince: new Map(missingSince),
    archivedAt: new Map(archivedAt),
    identities: new Map(identities),
  }));

function parsed(value: unknown): RosterMemory {
  const result = parseStoredMemory(value);
  if (!result.ok) throw new Error(result.problem);
  return result.memory;
}

describe("stored roster memory", () => {
  it("reads back what it stores (JSON text), for any memory", () => {
    fc.assert(
      fc.property(memory, (m) => {
        expect(parsed(storedMemory(m))).toEqual(m);
      }),
    );
  });

  it("takes a memory without a version (never written by a release) as damaged", () => {
    const unversioned = { lastFingerprint: "f", seen: { u: true }, missing: {}, archivedAt: {} };
    expect(parseStoredMemory(unversioned)).toMatchObject({ ok: false, problem: expect.stringMatching(/^version:/) });
  });

  it("is the empty memory when nothing is stored yet", () => {
    expect(parsed(undefined)).toBe(EMPTY_MEMORY);
  });

  it("names where a damaged value is wrong", () => {
    const columns = { profileUrl: [], employeeId: [], email: [] };
    const damaged: Array<[unknown, RegExp]> = [
      [{ version: 2, seen: "everyone", missing: [], archivedAt: [], identities: columns }, /^seen:/],
      [{ version: 2, seen: [], missing: [["u", -1]], archivedAt: [], identities: columns }, /^missing\.0\.1:/],
      [
        { version: 2, seen: [], missing: [], archivedAt: [], identities: { ...columns, email: [null] } },
        /^identities: the identity columns differ/,
      ],
      [{ version: 3, seen: [] }, /^version:/],
      ["{ cut off", /^\(top level\): not JSON/],
      [42, /^\(top level\):/],
      [JSON.stringify({ version: 2, seen: [1] }), /^seen\.0:/],
    ];
    for (const [value, where] of damaged) {
      const result = parseStoredMemory(value);
      expect(result.ok, JSON.stringify(value)).toBe(false);
      if (!result.ok) expect(result.problem).toMatch(where);
    }
  });
});
