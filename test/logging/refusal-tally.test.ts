import { afterEach, describe, expect, it, vi } from "vitest";
import { createRefusalLog } from "../../src/refusal-log.js";
import { type RefusalSample, RefusalTally } from "../../src/refusal-tally.js";
import { captureLogs } from "../helpers/capture-logs.js";

const forged = (n: number): RefusalSample => ({
  reason: "bad_signature",
  method: "POST",
  path: "/hook",
  detail: `#${n}`,
});

describe("RefusalTally", () => {
  it("gives the first refusal of a window at once and only counts the rest until the window is over", () => {
    let now = 1_000;
    const tally = new RefusalTally(60_000, () => now);
    expect(tally.add(forged(1))).toEqual([
      { kind: "first", refused: 1, byReason: { bad_signature: 1 }, sample: forged(1) },
    ]);
    for (let i = 2; i <= 500; i += 1) {
      now += 10;
      expect(tally.add(forged(i))).toEqual([]);
    }
    now += 1;
    expect(tally.add({ reason: "too_large", path: "/hook" })).toEqual([]);
    expect(tally.due()).toEqual([]);

    now = 61_000;
    expect(tally.due()).toEqual([
      { kind: "summary", refused: 500, byReason: { bad_signature: 499, too_large: 1 }, sample: forged(2) },
    ]);
    expect(tally.due()).toEqual([]);
    expect(tally.windowEndsAt).toBeUndefined();
  });

  it("opens a new window with the next refusal, logged at once", () => {
    let now = 0;
    const tally = new RefusalTally(60_000, () => now);
    tally.add(forged(1));
    now = 60_000;
    expect(tally.due()).toEqual([]);
    now = 90_000;
    expect(tally.add({ reason: "slow_client" })).toEqual([
      { kind: "first", refused: 1, byReason: { slow_client: 1 }, sample: { reason: "slow_client" } },
    ]);
    expect(tally.windowEndsAt).toBe(150_000);
  });

  it("gives an ended window's summary before the first line of the next when nobody asked in between", () => {
    let now = 0;
    const tally = new RefusalTally(60_000, () => now);
    tally.add(forged(1));
    tally.add(forged(2));
    tally.add(forged(3));
    now = 75_000;
    expect(tally.add(forged(4))).toEqual([
      { kind: "summary", refused: 2, byReason: { bad_signature: 2 }, sample: forged(2) },
      { kind: "first", refused: 1, byReason: { bad_signature: 1 }, sample: forged(4) },
    ]);
  });

  it("drains what it counted when the server stops, window over or not", () => {
    const tally = new RefusalTally(60_000, () => 0);
    expect(tally.drain()).toEqual([]);
    tally.add(forged(1));
    tally.add({ reason: "wrong_path", path: "/x" });
    expect(tally.drain()).toEqual([
      { kind: "summary", refused: 1, byReason: { wrong_path: 1 }, sample: { reason: "wrong_path", path: "/x" } },
    ]);
    expect(tally.drain()).toEqual([]);
  });
});

describe("createRefusalLog", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("writes one line at the first refusal and one count when the window ends, and counts each one", () => {
    vi.useFakeTimers();
    const logs = captureLogs();
    const counted: string[] = [];
    const log = createRefusalLog({ server: "webhook", logger: logs.logger, onRefused: (r) => counted.push(r) });
    for (let i = 1; i <= 300; i += 1) log.refuse(forged(i));
    expect(counted).toHaveLength(300);
    expect(logs.records()).toEqual([
      expect.objectContaining({
        level: 40,
        server: "webhook",
        refused: 1,
        byReason: { bad_signature: 1 },
        sample: forged(1),
        windowSeconds: 60,
      }),
    ]);

    vi.advanceTimersByTime(60_000);
    expect(logs.records()).toHaveLength(2);
    expect(logs.records()[1]).toMatchObject({ level: 40, refused: 299, byReason: { bad_signature: 299 } });
    // Nothing more to say: no timer left behind, no further line.
    vi.advanceTimersByTime(600_000);
    expect(logs.records()).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("writes what is still counted when the server closes", () => {
    vi.useFakeTimers();
    const logs = captureLogs();
    const log = createRefusalLog({ server: "ops", logger: logs.logger });
    log.refuse({ reason: "wrong_path", path: "/a" });
    log.refuse({ reason: "wrong_path", path: "/b" });
    log.close();
    expect(logs.records().map((r) => r.refused)).toEqual([1, 1]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
