import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PeopleByUrl, PositionIndex } from "../../src/roster/position-index.js";

describe("PositionIndex and PeopleByUrl", () => {
  it("answer like a Map of the first position of each key, through every growth", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 6 }), { maxLength: 3000 }), (keys) => {
        const index = new PositionIndex((position) => keys[position]);
        const reference = new Map<string, number>();
        keys.forEach((key, position) => {
          if (index.find(key) === -1) index.add(key, position);
          if (!reference.has(key)) reference.set(key, position);
        });
        expect(index.size).toBe(reference.size);
        for (const key of [...keys, "absent", ""]) expect(index.find(key)).toBe(reference.get(key) ?? -1);
      }),
      { numRuns: 50 },
    );
  });

  it("is a read-only Map of people by URL over the list itself", () => {
    const people: Array<{ profileUrl: string; n: number }> = [];
    const byUrl = new PeopleByUrl(people);
    for (let n = 0; n < 5000; n += 1) {
      people.push({ profileUrl: `https://www.linkedin.com/in/p-${n}`, n });
      byUrl.add(people.length - 1);
    }
    expect(byUrl.size).toBe(5000);
    expect(byUrl.get("https://www.linkedin.com/in/p-4321")?.n).toBe(4321);
    expect(byUrl.has("https://www.linkedin.com/in/p-5000")).toBe(false);
    expect([...byUrl.keys()].slice(0, 2)).toEqual([
      "https://www.linkedin.com/in/p-0",
      "https://www.linkedin.com/in/p-1",
    ]);
    expect(new Map(byUrl).size).toBe(5000);
  });
});
