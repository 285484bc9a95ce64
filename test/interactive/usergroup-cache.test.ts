import { describe, expect, it } from "vitest";
import { UsergroupCache } from "../../src/interactive/usergroup-cache.js";
import { silentLogger } from "../../src/logger.js";

describe("UsergroupCache", () => {
  it("reads a group once per five minutes, and keeps the last members when a read fails", async () => {
    let now = 0;
    let reads = 0;
    let fail = false;
    const cache = new UsergroupCache(
      async (group) => {
        reads += 1;
        if (fail) throw new Error("ratelimited");
        return group === "S1" ? [`U${reads}`] : [];
      },
      silentLogger(),
      () => now,
    );
    expect(await cache.members(["S1"])).toEqual(new Map([["S1", ["U1"]]]));
    now = 299_000;
    expect(await cache.members(["S1"])).toEqual(new Map([["S1", ["U1"]]]));
    expect(reads).toBe(1);
    now = 300_000;
    expect(await cache.members(["S1", "S2"])).toEqual(
      new Map([
        ["S1", ["U2"]],
        ["S2", []],
      ]),
    );
    fail = true;
    now = 700_000;
    expect(await cache.members(["S1", "S3"])).toEqual(new Map([["S1", ["U2"]]]));
  });
});
