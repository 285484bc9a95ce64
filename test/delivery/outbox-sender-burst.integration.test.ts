import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChannelPacer } from "../../src/delivery/channel-pacer.js";
import type { Outbox } from "../../src/delivery/outbox.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { singleAlertDrafts } from "./support/alert-drafts.js";
import { buildSender } from "./support/build-sender.js";

/** A pacer whose clock moves only by what it waits (waits end at once). */
function fakeClockPacer(burst: number): ChannelPacer {
  let clock = 0;
  return new ChannelPacer(
    10,
    () => clock,
    async (ms) => {
      clock += ms;
    },
    burst,
  );
}

/** Counts the outbox's bookkeeping writes by kind. */
function countWrites<P>(outbox: Outbox<P>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of ["markPosting", "markSent", "markSentThenPosting", "restoreHead"] as const) {
    const original = outbox[name].bind(outbox) as (...args: unknown[]) => Promise<unknown>;
    (outbox as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      counts[name] = (counts[name] ?? 0) + 1;
      return original(...args);
    };
  }
  return counts;
}

describe("OutboxSender posting back to back (a burst)", () => {
  let slack: FakeSlack;
  let store: StateStore;

  beforeEach(async () => {
    slack = await startFakeSlack();
    store = await openStateStore(":memory:");
  });
  afterEach(async () => {
    await slack.close();
    await store.close();
  });

  it("writes one commit between two posts: each mark-sent marks the next entry posting", async () => {
    const { outbox, sender } = buildSender(store, slack, { pacer: fakeClockPacer(3) });
    const writes = countWrites(outbox);
    await outbox.enqueue(singleAlertDrafts("hr-alerts", 5), Date.now());
    expect(await sender.flush()).toMatchObject({ sent: 5, pending: 0, possibleDuplicates: 0 });
    // Three go at once (the burst): two of them were marked by the commit before; the last two wait their turn.
    expect(writes).toEqual({ markPosting: 3, markSentThenPosting: 2, markSent: 3 });
    expect(slack.posted("hr-alerts").map((m) => /hr-alerts-\d/.exec(m.text ?? "")?.[0])).toEqual([
      "hr-alerts-0",
      "hr-alerts-1",
      "hr-alerts-2",
      "hr-alerts-3",
      "hr-alerts-4",
    ]);
  });

  it("writes the marks apart when every post waits its turn", async () => {
    const { outbox, sender } = buildSender(store, slack, { pacer: fakeClockPacer(1) });
    const writes = countWrites(outbox);
    await outbox.enqueue(singleAlertDrafts("hr-alerts", 3), Date.now());
    expect(await sender.flush()).toMatchObject({ sent: 3, pending: 0 });
    expect(writes).toEqual({ markPosting: 3, markSent: 3 });
  });

  it("takes the next entry's mark back when shutdown comes between the commit and its post", async () => {
    const controller = new AbortController();
    const { outbox, sender } = buildSender(store, slack, { pacer: fakeClockPacer(3), signal: controller.signal });
    const writes = countWrites(outbox);
    const markSentThenPosting = outbox.markSentThenPosting.bind(outbox);
    outbox.markSentThenPosting = async (...args) => {
      const marked = await markSentThenPosting(...args);
      controller.abort(); // SIGTERM right after the commit that marked the next entry posting
      return marked;
    };
    await outbox.enqueue(singleAlertDrafts("hr-alerts", 3), Date.now());
    expect(await sender.flush()).toMatchObject({ sent: 1, pending: 2, stopped: true });
    expect(writes.restoreHead).toBe(1);
    const waiting = await outbox.waiting();
    expect(waiting.map((m) => m.postingSince)).toEqual([undefined, undefined]);
    expect(waiting.map((m) => m.attempts)).toEqual([0, 0]);

    // The next start announces no double post: nothing was in flight.
    const restarted = buildSender(store, slack, { pacer: fakeClockPacer(3) });
    expect(await restarted.sender.flush()).toMatchObject({ sent: 2, pending: 0, possibleDuplicates: 0 });
    expect(slack.posted("hr-alerts")).toHaveLength(3);
  });
});
