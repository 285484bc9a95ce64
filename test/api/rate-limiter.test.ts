import { afterEach, describe, expect, it, vi } from "vitest";
import { RateLimiter } from "../../src/api/rate-limiter.js";

/** A clock whose sleeps resolve only when the test advances time. */
function manualClock() {
  let t = 1_000_000;
  const timers: Array<{ at: number; resolve: () => void }> = [];
  const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    now: () => t,
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        timers.push({ at: t + ms, resolve });
      }),
    async advance(ms: number) {
      const end = t + ms;
      // Step through due timers in order so chained sleeps inside the window also fire.
      for (;;) {
        await flush();
        timers.sort((a, b) => a.at - b.at);
        const next = timers[0];
        if (!next || next.at > end) break;
        timers.shift();
        t = Math.max(t, next.at);
        next.resolve();
      }
      t = end;
      await flush();
    },
  };
}

/** A clock whose sleeps advance time at once: for long simulated runs. */
function jumpingClock() {
  let t = 0;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms;
    },
  };
}

function tracked(p: Promise<void>) {
  const state = { done: false };
  void p.then(() => {
    state.done = true;
  });
  return state;
}

describe("RateLimiter", () => {
  it("derives capacity and reserve from requests per minute", () => {
    const limiter = new RateLimiter({ requestsPerMinute: 120, reservedShare: 0.25, ...jumpingClock() });
    expect(limiter.capacity).toBe(10);
    expect(limiter.reservedTokens).toBe(3);
  });

  it("never lets any 60 s window see more than the per-minute limit", async () => {
    const clock = jumpingClock();
    const limiter = new RateLimiter({ requestsPerMinute: 120, ...clock });
    const times: number[] = [];
    for (let i = 0; i < 400; i += 1) {
      await limiter.acquire("poll");
      times.push(clock.now());
    }
    let worst = 0;
    for (let i = 0; i < times.length; i += 1) {
      const start = times[i] ?? 0;
      const inWindow = times.filter((x) => x >= start && x < start + 60_000).length;
      worst = Math.max(worst, inWindow);
    }
    expect(worst).toBeLessThanOrEqual(120);
    // ... and does not starve: 400 requests take about 400/120 minutes, not much more.
    expect(clock.now()).toBeLessThan(4 * 60_000);
  });

  it("stays inside the service's sliding window under mixed poll and bulk load, idle gaps and a pause", async () => {
    // The service (and its emulator) counts accepted requests in every window [t, t + 60 s).
    const clock = manualClock();
    const limiter = new RateLimiter({ requestsPerMinute: 120, ...clock });
    let seed = 11;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const times: number[] = [];
    const worker = async (priority: "poll" | "bulk", count: number) => {
      for (let i = 0; i < count; i += 1) {
        if (random() < 0.04) await clock.sleep(Math.floor(random() * 90_000));
        await limiter.acquire(priority);
        times.push(clock.now());
        if (priority === "poll" && i === 100) limiter.pause(5_000);
      }
    };
    let finished = false;
    const work = Promise.all([worker("poll", 250), worker("bulk", 250)]).then(() => {
      finished = true;
    });
    while (!finished) await clock.advance(250);
    await work;
    times.sort((a, b) => a - b);
    let worst = 0;
    let end = 0;
    for (let start = 0; start < times.length; start += 1) {
      while (end < times.length && (times[end] ?? 0) < (times[start] ?? 0) + 60_000) end += 1;
      worst = Math.max(worst, end - start);
    }
    expect(times).toHaveLength(500);
    expect(worst).toBeLessThanOrEqual(120);
  });

  it("keeps the reserved share for poll: bulk waits, poll goes through", async () => {
    const clock = manualClock();
    const limiter = new RateLimiter({ requestsPerMinute: 120, reservedShare: 0.25, ...clock });
    for (let i = 0; i < 7; i += 1) await limiter.acquire("bulk");
    const bulk = tracked(limiter.acquire("bulk"));
    await clock.advance(0);
    expect(bulk.done).toBe(false);
    for (let i = 0; i < 3; i += 1) await limiter.acquire("poll");
    expect(clock.now()).toBe(1_000_000);
    expect(bulk.done).toBe(false);
    await clock.advance(60_000);
    expect(bulk.done).toBe(true);
  });

  it("serves a queued poll before earlier queued bulk work", async () => {
    const clock = manualClock();
    const limiter = new RateLimiter({ requestsPerMinute: 120, capacity: 1, reservedShare: 0, ...clock });
    await limiter.acquire("poll");
    const order: string[] = [];
    const b = limiter.acquire("bulk").then(() => order.push("bulk"));
    const p = limiter.acquire("poll").then(() => order.push("poll"));
    await clock.advance(600);
    expect(order).toEqual(["poll"]);
    await clock.advance(600);
    await Promise.all([b, p]);
    expect(order).toEqual(["poll", "bulk"]);
  });

  it("pause() holds every acquirer until the pause ends", async () => {
    const clock = manualClock();
    const limiter = new RateLimiter({ requestsPerMinute: 120, ...clock });
    limiter.pause(5_000);
    const a = tracked(limiter.acquire("poll"));
    const b = tracked(limiter.acquire("bulk"));
    await clock.advance(4_900);
    expect(a.done || b.done).toBe(false);
    await clock.advance(2_000);
    expect(a.done).toBe(true);
    // after the pause the bucket restarts empty: no burst right after a 429
    expect(limiter.available).toBeLessThan(limiter.capacity);
  });

  it("a shorter pause never shortens a longer one", async () => {
    const clock = manualClock();
    const limiter = new RateLimiter({ ...clock });
    limiter.pause(10_000);
    limiter.pause(1_000);
    expect(limiter.pausedUntilMs).toBe(clock.now() + 10_000);
  });

  it("an aborted acquire leaves the queue", async () => {
    const clock = manualClock();
    const limiter = new RateLimiter({ capacity: 1, ...clock });
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire("poll", controller.signal);
    expect(limiter.waiting).toBe(1);
    controller.abort(new Error("shutdown"));
    await expect(waiting).rejects.toThrow("shutdown");
    expect(limiter.waiting).toBe(0);
  });
});

describe("a paused bucket at shutdown", () => {
  afterEach(() => vi.useRealTimers());

  it("leaves no timer behind once its last waiter gives up, so a stopping process can exit", async () => {
    vi.useFakeTimers();
    const limiter = new RateLimiter({ requestsPerMinute: 120 });
    limiter.pause(60_000);
    const stop = new AbortController();
    const waiting = limiter.acquire("poll", stop.signal);
    await vi.advanceTimersByTimeAsync(10);
    expect(vi.getTimerCount()).toBe(1);
    stop.abort(new Error("shutting down"));
    await expect(waiting).rejects.toThrow("shutting down");
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
