import { describe, expect, it } from "vitest";
import { RateLimiter } from "../../src/rate-limit.js";

const WINDOW = 60_000;

/** The most accepted times (ascending) inside any half-open 60 s window [t, t + 60 s). */
function busiestWindow(times: readonly number[]): number {
  let worst = 0;
  let end = 0;
  for (let start = 0; start < times.length; start += 1) {
    while (end < times.length && (times[end] ?? 0) < (times[start] ?? 0) + WINDOW) end += 1;
    worst = Math.max(worst, end - start);
  }
  return worst;
}

describe("spec 8 request rate: at most N requests in any 60 s window, per key", () => {
  it("refuses the 121st request inside 60 s of the first, whatever happened in between", () => {
    const limiter = new RateLimiter(120);
    for (let i = 0; i < 120; i += 1) expect(limiter.take("k", 0)).toBe(0);
    // A token bucket refilling at 2/s would have 118 tokens back after 59 s (the audit's 239 in 59 s).
    expect(limiter.take("k", 59_000)).toBe(1_000);
    expect(limiter.take("k", 59_999)).toBe(1);
    expect(limiter.take("k", 60_000)).toBe(0);
  });

  it("the wait is exact: the oldest counted request leaves the window then, not earlier", () => {
    const limiter = new RateLimiter(120);
    for (let i = 0; i < 60; i += 1) expect(limiter.take("k", 0)).toBe(0);
    for (let i = 0; i < 60; i += 1) expect(limiter.take("k", 30_000)).toBe(0);
    expect(limiter.take("k", 30_000)).toBe(30_000);
    expect(limiter.take("k", 45_000)).toBe(15_000);
    // at 60 s the first 60 have left: exactly 60 more fit, then the wait is for the second batch
    for (let i = 0; i < 60; i += 1) expect(limiter.take("k", 60_000)).toBe(0);
    expect(limiter.take("k", 60_000)).toBe(30_000);
  });

  it("refused requests are not counted; keys are counted apart; reset forgets", () => {
    const limiter = new RateLimiter(2);
    expect(limiter.take("k", 0)).toBe(0);
    expect(limiter.take("k", 10_000)).toBe(0);
    for (let t = 10_000; t < 60_000; t += 5_000) expect(limiter.take("k", t)).toBe(60_000 - t);
    expect(limiter.take("other", 20_000)).toBe(0);
    expect(limiter.take("k", 60_000)).toBe(0);
    expect(limiter.take("k", 60_000)).toBe(10_000);
    limiter.reset();
    expect(limiter.take("k", 60_000)).toBe(0);
  });

  it("under any arrival pattern no 60 s window holds more than the limit, and each wait is exact", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const limiter = new RateLimiter(120);
    const accepted: number[] = [];
    let now = 0;
    for (let i = 0; i < 5_000; i += 1) {
      now += Math.floor(random() * (random() < 0.2 ? 4_000 : 150));
      const wait = limiter.take("k", now);
      if (wait === 0) {
        accepted.push(now);
        continue;
      }
      // exact: one millisecond earlier is still refused, at the wait it passes
      expect(limiter.take("k", now + wait - 1)).toBe(1);
      expect(limiter.take("k", now + wait)).toBe(0);
      now += wait;
      accepted.push(now);
    }
    expect(accepted.length).toBe(5_000);
    expect(busiestWindow(accepted)).toBe(120);
  });

  it("a raised limit (benchmarks) keeps the same rule", () => {
    const limiter = new RateLimiter(1_000_000);
    for (let i = 0; i < 10_000; i += 1) expect(limiter.take("k", i)).toBe(0);
  });
});
