import { afterEach, describe, expect, it } from "vitest";
import { cachedHrisLookup } from "../../src/alerts/hris-lookup.js";
import { configSchema } from "../../src/config/schema.js";
import { canonicalUrl, makePeople, rosterDir, toCsv } from "../helpers/roster-files.js";

describe("cachedHrisLookup", () => {
  let cleanup: () => Promise<void> = async () => undefined;
  afterEach(() => cleanup());

  it("reads the export once while it is unchanged, and again once it changed", async () => {
    const dir = await rosterDir();
    cleanup = dir.cleanup;
    const people = makePeople(3);
    const file = await dir.write("hris.csv", toCsv(people));
    const roster = configSchema.parse({ roster: { file } }).roster;
    const lookupOf = cachedHrisLookup(roster);
    const first = await lookupOf(new Date());
    const url = canonicalUrl(people[0]?.slug ?? "");
    expect(first?.(url)?.department).toBe(people[0]?.department);
    // Same file, same answer object: nothing was parsed again.
    expect(await lookupOf(new Date())).toBe(first);

    const moved = people.map((p, i) => (i === 0 ? { ...p, department: "Moved Department Name" } : p));
    await dir.write("hris.csv", toCsv(moved));
    const second = await lookupOf(new Date());
    expect(second).not.toBe(first);
    expect(second?.(url)?.department).toBe("Moved Department Name");
  });

  it("has nothing to look up without a roster file", async () => {
    const roster = configSchema.parse({}).roster;
    expect(await cachedHrisLookup(roster)(new Date())).toBeUndefined();
  });
});
