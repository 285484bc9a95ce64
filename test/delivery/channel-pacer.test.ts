import { describe, expect, it } from "vitest";
import { ChannelPacer } from "../../src/delivery/channel-pacer.js";

/** A pacer on a clock that moves only by what the pacer waits (and what the test advances). */
function pacedClock(messagesPerSecond: number, burst?: number) {
  const clock = { ms: 1_000_000 };
  const waits: number[] = [];
  const pacer = new ChannelPacer(
    messagesPerSecond,
    () => clock.ms,
    async (ms) => {
      waits.push(ms);
      clock.ms += ms;
    },
    burst,
  );
  return { pacer, clock, waits };
}

async function takeTimes(pacer: ChannelPacer, clock: { ms: number }, channel: string, count: number) {
  const at: number[] = [];
  for (let i = 0; i < count; i += 1) {
    await pacer.take(channel);
    at.push(clock.ms);
  }
  return at;
}

describe("ChannelPacer", () => {
  it("without a burst, spaces every post by the interval", async () => {
    const { pacer, clock } = pacedClock(2);
    const start = clock.ms;
    expect((await takeTimes(pacer, clock, "c", 4)).map((t) => t - start)).toEqual([0, 500, 1000, 1500]);
  });

  it("lets a burst go at once after a quiet spell, then keeps the pace", async () => {
    const { pacer, clock, waits } = pacedClock(1, 3);
    const start = clock.ms;
    expect((await takeTimes(pacer, clock, "c", 6)).map((t) => t - start)).toEqual([0, 0, 0, 1000, 2000, 3000]);
    expect(waits).toEqual([1000, 1000, 1000]);
  });

  it("refills the burst at the pace, one post per interval of quiet", async () => {
    const { pacer, clock } = pacedClock(1, 3);
    await takeTimes(pacer, clock, "c", 3);
    clock.ms += 2000; // two intervals of quiet: two posts at once, not three
    const start = clock.ms;
    expect((await takeTimes(pacer, clock, "c", 3)).map((t) => t - start)).toEqual([0, 0, 1000]);
    clock.ms += 60_000; // a long quiet spell refills the burst, never more
    const later = clock.ms;
    expect((await takeTimes(pacer, clock, "c", 4)).map((t) => t - later)).toEqual([0, 0, 0, 1000]);
  });

  it("keeps channels apart", async () => {
    const { pacer, clock } = pacedClock(1, 2);
    await takeTimes(pacer, clock, "a", 2);
    expect(pacer.delayFor("a")).toBe(1000);
    expect(pacer.delayFor("b")).toBe(0);
  });

  it("after a 429 waits the whole Retry-After, then resumes at the pace without a burst", async () => {
    const { pacer, clock } = pacedClock(1, 3);
    await pacer.take("c");
    pacer.pause("c", 5000);
    expect(pacer.delayFor("c")).toBe(5000);
    const start = clock.ms;
    expect((await takeTimes(pacer, clock, "c", 3)).map((t) => t - start)).toEqual([5000, 6000, 7000]);
  });

  it("books nothing when shutdown aborts the wait", async () => {
    const controller = new AbortController();
    const pacer = new ChannelPacer(
      1,
      () => 0,
      async () => controller.abort(),
    );
    expect(await pacer.take("c")).toBe(true);
    expect(await pacer.take("c", controller.signal)).toBe(false);
    expect(pacer.delayFor("c")).toBe(1000);
  });
});
