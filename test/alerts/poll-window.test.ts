import { describe, expect, it } from "vitest";
import { MAX_CLOCK_SKEW_MS, PASS_START_MARGIN_MS, passCursor, pollWindow } from "../../src/alerts/poll-window.js";

const NOW = Date.parse("2026-11-23T12:00:00.000Z");
const HOUR = 3_600_000;
const TEN_MINUTES = 600_000;

describe("pollWindow", () => {
  const window = (stored: string | undefined) =>
    pollWindow({ stored, nowMs: NOW, lookbackMs: 24 * HOUR, overlapMs: TEN_MINUTES });

  it("starts from the look-back when the stored cursor is missing, unreadable or in the future", () => {
    const back = "2026-11-22T12:00:00.000Z";
    const fromBack = { since: back, cursor: undefined, lookbackStart: back };
    expect(window(undefined)).toEqual({ ...fromBack, reason: "first-poll" });
    expect(window("garbage")).toEqual({ ...fromBack, reason: "cursor-unreadable" });
    expect(window("9999-12-31T00:00:00.000Z")).toEqual({ ...fromBack, reason: "cursor-in-future" });
  });

  it("never reads before where the look-back began, until the overlap no longer reaches it", () => {
    const lookbackStart = "2026-11-23T11:58:00.000Z";
    const pass = (stored: string, nowMs = NOW) =>
      pollWindow({
        stored,
        storedLookbackStart: lookbackStart,
        nowMs,
        lookbackMs: 120_000,
        overlapMs: TEN_MINUTES,
      });
    // Right after the first poll the cursor is 1 minute before it: the overlap would go 11 minutes back.
    expect(pass("2026-11-23T11:59:00.000Z")).toEqual({
      since: lookbackStart,
      cursor: "2026-11-23T11:59:00.000Z",
      lookbackStart,
    });
    // A look-back shorter than the pass margin leaves the cursor before its start: still the floor.
    expect(pass("2026-11-23T11:57:00.000Z").since).toBe(lookbackStart);
    // The cursor is more than the overlap past it: the overlap rules, the start is no longer kept.
    expect(pass("2026-11-23T12:09:00.000Z", NOW + 10 * 60_000)).toEqual({
      since: "2026-11-23T11:59:00.000Z",
      cursor: "2026-11-23T12:09:00.000Z",
    });
    // A start beyond now (a clock set back) or unreadable is no floor.
    const odd = (storedLookbackStart: string) =>
      pollWindow({
        stored: "2026-11-23T11:59:00.000Z",
        storedLookbackStart,
        nowMs: NOW,
        lookbackMs: 0,
        overlapMs: TEN_MINUTES,
      });
    expect(odd("2026-11-23T12:30:00.000Z").since).toBe("2026-11-23T11:49:00.000Z");
    expect(odd("garbage").since).toBe("2026-11-23T11:49:00.000Z");
  });

  it("re-reads the overlap before the cursor, so late arrivals dated before it are still read", () => {
    expect(window("2026-11-23T11:00:00.000Z")).toEqual({
      since: "2026-11-23T10:50:00.000Z",
      cursor: "2026-11-23T11:00:00.000Z",
    });
    expect(pollWindow({ stored: "2026-11-23T11:00:00.000Z", nowMs: NOW, lookbackMs: 0, overlapMs: 0 }).since).toBe(
      "2026-11-23T11:00:00.000Z",
    );
  });

  it("trusts a cursor a little ahead of our clock (skew)", () => {
    const ahead = new Date(NOW + MAX_CLOCK_SKEW_MS).toISOString();
    expect(window(ahead).cursor).toBe(ahead);
  });
});

describe("passCursor", () => {
  const start = NOW - 2_000;

  it("advances an empty pass to its start less the margin (the feed was read up to then)", () => {
    const cursor = passCursor({ cursor: "2026-11-23T09:00:00.000Z", items: [], passStartMs: start, nowMs: NOW });
    expect(cursor).toBe(new Date(start - PASS_START_MARGIN_MS).toISOString());
    // A first pass with an empty feed has a cursor too: the next one does not start from the look-back again.
    expect(passCursor({ cursor: undefined, items: [], passStartMs: start, nowMs: NOW })).toBe(
      new Date(start - PASS_START_MARGIN_MS).toISOString(),
    );
  });

  it("goes to the newest change read when it is later than that, never backwards", () => {
    const items = [
      { detectedAt: "2026-11-23T11:59:59.500Z" },
      { detectedAt: "2026-11-23T10:00:00Z" },
      { detectedAt: "not a date" },
    ];
    expect(passCursor({ cursor: undefined, items, passStartMs: start, nowMs: NOW })).toBe("2026-11-23T11:59:59.500Z");
    const later = new Date(NOW + 60_000).toISOString();
    expect(passCursor({ cursor: later, items, passStartMs: start, nowMs: NOW })).toBe(later);
  });

  it("never moves past now plus clock skew (a change dated in the far future)", () => {
    const items = [{ detectedAt: "9999-12-31T00:00:00Z" }, { detectedAt: "2026-11-23T11:59:00Z" }];
    expect(passCursor({ cursor: undefined, items, passStartMs: start, nowMs: NOW })).toBe("2026-11-23T11:59:00.000Z");
  });
});
