import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createShutdownController, MAX_TIMER_MS, sleep, sleepUnlessAborted, startTimer } from "../src/timers.js";

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

describe("the shutdown signal", () => {
  it("takes a wait per channel, however many channels, without Node's leak warning", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      const controller = createShutdownController();
      const sleeping = Array.from({ length: 50 }, () => sleepUnlessAborted(60_000, controller.signal));
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(50);
      controller.abort();
      await Promise.all(sleeping);
      // Node emits its warnings on a later tick.
      await new Promise((settled) => setImmediate(settled));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).not.toContain("MaxListenersExceededWarning");
  });

  it("is left with no listener once the waits end", async () => {
    const controller = createShutdownController();
    await Promise.all(Array.from({ length: 20 }, () => sleepUnlessAborted(0, controller.signal)));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});

describe("timers past setTimeout's 32-bit limit", () => {
  it("sleeps a delay longer than 2^31 - 1 ms instead of firing at once", async () => {
    vi.useFakeTimers();
    let woke = false;
    const sleeping = sleep(MAX_TIMER_MS * 2 + 10).then(() => {
      woke = true;
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS * 2 + 9 - 1000);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await sleeping;
    expect(woke).toBe(true);
  });

  it("keeps a single timer at a time and cancels it", async () => {
    vi.useFakeTimers();
    let fired = 0;
    const cancel = startTimer(99_999_999_000, () => {
      fired += 1;
    });
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS + 5);
    expect(vi.getTimerCount()).toBe(1);
    cancel();
    expect(vi.getTimerCount()).toBe(0);
    expect(fired).toBe(0);
  });

  it("wakes a long abortable sleep on abort", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const sleeping = sleepUnlessAborted(99_999_999_000, controller.signal);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS + 1);
    controller.abort();
    await expect(sleeping).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
