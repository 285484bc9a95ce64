import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { UsergroupCache, usergroupKvCache } from "../../src/interactive/usergroup-cache.js";
import { silentLogger } from "../../src/logger.js";
import { captureLogs } from "../helpers/capture-logs.js";

const T0 = 1_700_000_000_000;
const tempState = () => join(mkdtempSync(join(tmpdir(), "rs-groups-")), "state.sqlite");

/** A Slack that answers `U<reads>` for S1 and nobody for the rest, or fails while `fail` is set. */
function slack() {
  const state = { reads: 0, fail: false };
  const read = async (group: string) => {
    state.reads += 1;
    if (state.fail) throw new Error("ratelimited");
    return group === "S1" ? [`U${state.reads}`] : [];
  };
  return { state, read };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

describe("UsergroupCache", () => {
  it("reads a group once per five minutes, and keeps the last members when a read fails", async () => {
    const { state, read } = slack();
    const cache = new UsergroupCache(read, silentLogger());
    expect(await cache.members(["S1"])).toEqual(new Map([["S1", ["U1"]]]));
    vi.setSystemTime(T0 + 299_000);
    expect(await cache.members(["S1"])).toEqual(new Map([["S1", ["U1"]]]));
    expect(state.reads).toBe(1);
    vi.setSystemTime(T0 + 300_001);
    expect(await cache.members(["S1", "S2"])).toEqual(
      new Map([
        ["S1", ["U2"]],
        ["S2", []],
      ]),
    );
    state.fail = true;
    vi.setSystemTime(T0 + 700_000);
    expect(await cache.members(["S1", "S3"])).toEqual(new Map([["S1", ["U2"]]]));
    await cache.close();
  });

  it("lets the last members count for a day, then nobody", async () => {
    const { state, read } = slack();
    const cache = new UsergroupCache(read, silentLogger());
    await cache.members(["S1"]);
    state.fail = true;
    vi.setSystemTime(T0 + 24 * 3_600_000 - 1);
    expect(await cache.members(["S1"])).toEqual(new Map([["S1", ["U1"]]]));
    vi.setSystemTime(T0 + 24 * 3_600_000 + 1);
    expect(await cache.members(["S1"])).toEqual(new Map());
    await cache.close();
  });

  it("opens no cache file when no group is asked for", async () => {
    const { state, read } = slack();
    const location = tempState();
    const cache = new UsergroupCache(read, silentLogger(), usergroupKvCache(location, silentLogger()));
    expect(await cache.members([])).toEqual(new Map());
    await cache.close();
    expect(existsSync(`${location}.cache.sqlite`)).toBe(false);
    expect(state.reads).toBe(0);
  });

  describe("on a SQLite state (the @keyv/sqlite file beside it)", () => {
    it("keeps what it read across a restart: no read within five minutes, the last members after", async () => {
      const location = tempState();
      const { state, read } = slack();
      const before = new UsergroupCache(read, silentLogger(), usergroupKvCache(location, silentLogger()));
      expect(await before.members(["S1"])).toEqual(new Map([["S1", ["U1"]]]));
      await before.close();

      const after = new UsergroupCache(read, silentLogger(), usergroupKvCache(location, silentLogger()));
      vi.setSystemTime(T0 + 60_000);
      expect(await after.members(["S1"])).toEqual(new Map([["S1", ["U1"]]]));
      expect(state.reads).toBe(1);

      state.fail = true;
      vi.setSystemTime(T0 + 3_600_000);
      expect(await after.members(["S1", "S2"])).toEqual(new Map([["S1", ["U1"]]]));
      expect(state.reads).toBe(3);
      await after.close();
    });

    it("reads Slack, with a warning, when the cache cannot be used (closed while a press was late)", async () => {
      const { state, read } = slack();
      const logs = captureLogs();
      const cache = new UsergroupCache(read, logs.logger, usergroupKvCache(tempState(), logs.logger));
      await cache.close();
      expect(await cache.members(["S1"])).toEqual(new Map([["S1", ["U1"]]]));
      expect(state.reads).toBe(1);
      expect(logs.text()).toContain("the user-group cache failed");
    });
  });
});
