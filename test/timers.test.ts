import { afterEach, describe, expect, it, vi } from "vitest";
import { sleepUnlessAborted } from "../src/timers.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("sleepUnlessAborted", () => {
  it("resolves after the time asked", async () => {
    vi.useFakeTimers();
    const signal = new AbortController().signal;
    let woke = false;
    const sleeping = sleepUnlessAborted(10_000, signal).then(() => {
      woke = true;
    });
    await vi.advanceTimersByTimeAsync(9_999);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await sleeping;
    expect(woke).toBe(true);
  });

  it("wakes at once, without error, when the signal aborts, and leaves no timer behind", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const sleeping = sleepUnlessAborted(60_000, controller.signal);
    controller.abort();
    await expect(sleeping).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("does not sleep at all when the signal has already aborted", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    controller.abort();
    await expect(sleepUnlessAborted(60_000, controller.signal)).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
