import { mkdirSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { kvCacheFile, LazyKvCache, openKvCache } from "../../src/store/kv-cache.js";
import { captureLogs } from "../helpers/capture-logs.js";

const tempState = () => join(mkdtempSync(join(tmpdir(), "rs-kv-")), "state.sqlite");
const options = (stateLocation: string) => ({
  stateLocation,
  namespace: "test",
  ttlMs: 60_000,
  logger: silentLogger(),
});

afterEach(() => {
  vi.useRealTimers();
});

describe("kvCacheFile", () => {
  it("puts the cache beside a SQLite state file, and nowhere for Postgres or a state in memory", () => {
    expect(kvCacheFile("/var/lib/rs/state.sqlite")).toBe("/var/lib/rs/state.sqlite.cache.sqlite");
    expect(kvCacheFile("postgres://rs@db:5432/rs")).toBeUndefined();
    expect(kvCacheFile("memory")).toBeUndefined();
    expect(kvCacheFile(":memory:")).toBeUndefined();
  });
});

describe("openKvCache on @keyv/sqlite", () => {
  it("makes an owner-only file whose values survive closing and opening it again", async () => {
    const state = tempState();
    const first = await openKvCache<string[]>(options(state));
    await first.set("a", ["U1", "U2"]);
    await first.disconnect();
    expect(statSync(`${state}.cache.sqlite`).mode & 0o777).toBe(0o600);

    const again = await openKvCache<string[]>(options(state));
    expect(await again.get("a")).toEqual(["U1", "U2"]);
    await again.disconnect();
  });

  it("forgets a value after its TTL, the default one or its own, across a reopen too", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_000_000);
    const state = tempState();
    const cache = await openKvCache<string>(options(state));
    await cache.set("default", "x");
    await cache.set("own", "y", 5_000);
    vi.setSystemTime(1_000_000 + 5_001);
    expect(await cache.get("own")).toBeUndefined();
    expect(await cache.get("default")).toBe("x");
    await cache.disconnect();

    vi.setSystemTime(1_000_000 + 60_001);
    const reopened = await openKvCache<string>(options(state));
    expect(await reopened.get("default")).toBeUndefined();
    await reopened.disconnect();
  });

  it("keeps each namespace's keys apart in the one file", async () => {
    const state = tempState();
    const one = await openKvCache<string>(options(state));
    const other = await openKvCache<string>({ ...options(state), namespace: "other" });
    await one.set("k", "one");
    expect(await other.get("k")).toBeUndefined();
    await Promise.all([one.disconnect(), other.disconnect()]);
  });

  it("falls back to memory, with a warning, when the file cannot be opened", async () => {
    const state = tempState();
    mkdirSync(`${state}.cache.sqlite`);
    const logs = captureLogs();
    const cache = await openKvCache<string>({ ...options(state), logger: logs.logger });
    await cache.set("k", "v");
    expect(await cache.get("k")).toBe("v");
    expect(logs.text()).toContain("could not open the cache file");
    await cache.disconnect();
  });

  it("keeps a Postgres state's cache in memory: no file is made", async () => {
    const cache = await openKvCache<string>(options("postgres://rs@localhost:5432/rs"));
    await cache.set("k", "v");
    expect(await cache.get("k")).toBe("v");
    await cache.disconnect();
  });
});

describe("LazyKvCache", () => {
  it("opens on first use, once, and refuses after close", async () => {
    const state = tempState();
    let opens = 0;
    const lazy = new LazyKvCache(() => {
      opens += 1;
      return openKvCache<string>(options(state));
    });
    expect(opens).toBe(0);
    const [a, b] = await Promise.all([lazy.get(), lazy.get()]);
    expect(a).toBe(b);
    expect(opens).toBe(1);
    await lazy.close();
    await expect(lazy.get()).rejects.toThrow(/closed/);
    await lazy.close();
  });
});
