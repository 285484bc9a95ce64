import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { planDeliveries } from "../../src/alerts/plan-deliveries.js";
import { ChannelPacer } from "../../src/delivery/channel-pacer.js";
import type { Outbox } from "../../src/delivery/outbox.js";
import { POSTED_NAMESPACE, postedKey } from "../../src/slack/posted-messages.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";
import { buildAlert } from "../alerts/support/build-alert.js";
import { captureLogs } from "../helpers/capture-logs.js";
import { deferred } from "../helpers/deferred.js";
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
  for (const name of ["markPosting", "markSent"] as const) {
    const original = outbox[name].bind(outbox) as (...args: unknown[]) => Promise<unknown>;
    (outbox as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      counts[name] = (counts[name] ?? 0) + 1;
      return original(...args);
    };
  }
  return counts;
}

describe("OutboxSender with a fake Slack", () => {
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

  it("posts in order and threads later alerts about the same person under the first", async () => {
    const { outbox, sender } = buildSender(store, slack);
    await outbox.enqueue(singleAlertDrafts("hr-alerts", 3, 77), Date.now());
    const report = await sender.flush();
    expect(report).toMatchObject({ sent: 3, pending: 0, permanentFailures: 0 });
    const posted = slack.posted("hr-alerts");
    expect(posted.map((m) => /hr-alerts-\d/.exec(m.text ?? "")?.[0])).toEqual([
      "hr-alerts-0",
      "hr-alerts-1",
      "hr-alerts-2",
    ]);
    expect(posted[0]?.threadTs).toBeUndefined();
    expect(posted[1]?.threadTs).toBe(posted[0]?.ts);
    expect(posted[2]?.threadTs).toBe(posted[0]?.ts);
  });

  it("honours a 429 for the channel it hit without holding up the other channel", async () => {
    // The pacer's clock moves only by what it waits, and its waits end at once, except the wait the
    // 429 asks for: the test holds that one open until the other channel is done.
    let clock = 0;
    const waits: number[] = [];
    const paused = deferred();
    const resumed = deferred();
    const pacer = new ChannelPacer(
      10,
      () => clock,
      async (ms) => {
        waits.push(ms);
        if (ms >= 1000) {
          paused.resolve();
          await resumed.promise;
        }
        clock += ms;
      },
    );
    const { outbox, sender } = buildSender(store, slack, { pacer });
    await outbox.enqueue(
      [...singleAlertDrafts("hr-alerts", 3), ...singleAlertDrafts("poaching-alerts", 3)],
      Date.now(),
    );
    slack.failNext("chat.postMessage", { status: 429, retryAfter: 1, error: "ratelimited" });
    const flushed = sender.flush();
    await Promise.race([
      paused.promise,
      flushed.then(() => {
        throw new Error("the flush ended without waiting out the Retry-After");
      }),
    ]);
    const posts = () => slack.calls.filter((c) => c.method === "chat.postMessage");
    const limited = String(posts().find((c) => c.status === 429)?.args.channel);
    const other = limited === "hr-alerts" ? "poaching-alerts" : "hr-alerts";
    const okIn = (channel: string) => posts().filter((c) => c.status === 200 && c.args.channel === channel);
    // Only reachable while the limited channel waits if the other one is not queued behind it.
    await vi.waitFor(() => expect(okIn(other)).toHaveLength(3), { timeout: 10_000 });
    expect(okIn(limited)).toHaveLength(0);
    resumed.resolve();
    expect(await flushed).toMatchObject({ sent: 6, pending: 0, rateLimited: 1 });
    // The limited channel waited the whole Retry-After (1 s) before its next post.
    expect(waits.filter((ms) => ms >= 1000)).toEqual([1000]);
    // In Slack's order of arrival: the 429 and the other channel's three, then the limited channel's three.
    const order = posts().map((c) => `${c.args.channel} ${c.status}`);
    expect(order.slice(0, 4).sort()).toEqual([`${limited} 429`, `${other} 200`, `${other} 200`, `${other} 200`].sort());
    expect(order.slice(4)).toEqual([`${limited} 200`, `${limited} 200`, `${limited} 200`]);
  });

  it("leaves a channel under a long Retry-After for later without holding the flush", async () => {
    const { outbox, sender } = buildSender(store, slack);
    await outbox.enqueue(singleAlertDrafts("hr-alerts", 2), Date.now());
    slack.failNext("chat.postMessage", { status: 429, retryAfter: 120, error: "ratelimited" });
    expect(await sender.flush()).toMatchObject({ rateLimited: 1, sent: 0, pending: 2 });
    await outbox.enqueue(singleAlertDrafts("poaching-alerts", 1), Date.now());
    expect(await sender.flush()).toMatchObject({ sent: 1, pending: 2, rateLimited: 0 });
    expect(slack.calls.filter((c) => c.method === "chat.postMessage").map((c) => c.args.channel)).toEqual([
      "hr-alerts",
      "poaching-alerts",
    ]);
  });

  it("logs a permanent error once with the fix, keeps the alerts and delivers them once the config is fixed", async () => {
    const logs = captureLogs({ level: "warn" });
    const { outbox, sender } = buildSender(store, slack, { logger: logs.logger });
    await outbox.enqueue([...singleAlertDrafts("new-channel", 2), ...singleAlertDrafts("hr-alerts", 2)], Date.now());
    const first = await sender.flush();
    const second = await sender.flush();
    expect(first).toMatchObject({
      sent: 2,
      pending: 2,
      permanentFailures: 1,
      blockedChannels: { "new-channel": "channel_not_found" },
    });
    expect(second).toMatchObject({ sent: 0, pending: 2, permanentFailures: 1 });
    const errors = logs.records().filter((r) => r.code === "channel_not_found");
    expect(errors).toHaveLength(1);
    expect(String(errors[0]?.fix)).toContain("run /invite @<your bot> in it");
    expect(String(errors[0]?.fix)).toContain("check that new-channel exists");
    slack.addChannel("new-channel");
    expect(await sender.flush()).toMatchObject({ sent: 2, pending: 0 });
    expect(slack.posted("new-channel")).toHaveLength(2);
  });

  it("retries retryable errors with backoff and keeps everything through an outage", async () => {
    const { outbox, sender } = buildSender(store, slack);
    await outbox.enqueue(singleAlertDrafts("hr-alerts", 4), Date.now());
    slack.failNext("chat.postMessage", { status: 500 }, 2);
    expect(await sender.flush()).toMatchObject({ sent: 4, retryableFailures: 2, pending: 0 });

    await outbox.enqueue(singleAlertDrafts("hr-alerts", 3), Date.now());
    slack.setOutage(true, "reset");
    for (let pass = 0; pass < 3; pass += 1) expect(await sender.flush()).toMatchObject({ sent: 0, pending: 3 });
    slack.setOutage(true, "http");
    expect(await sender.flush()).toMatchObject({ sent: 0, pending: 3 });
    slack.setOutage(false);
    expect(await sender.flush()).toMatchObject({ sent: 3, pending: 0 });
    expect(slack.posted("hr-alerts")).toHaveLength(7);
  });

  it("DMs a manager found by email and drops a DM for an unknown email", async () => {
    const { outbox, sender } = buildSender(store, slack);
    const plan = planDeliveries({
      alerts: [
        buildAlert({ person: { managerEmail: "Manager@Example.com" } }),
        buildAlert({ person: { managerEmail: "nobody@example.com" } }),
      ],
      routing: { routes: [{ lens: "both", channel: "hr-alerts" }] },
      digestThreshold: 10,
      managerDm: true,
    });
    await outbox.enqueue(plan.drafts, Date.now());
    expect(await sender.flush()).toMatchObject({ sent: 3, pending: 0 });
    expect(slack.posted().filter((m) => m.channel.startsWith("D"))).toHaveLength(1);
    expect(slack.calls.filter((c) => c.method === "users.lookupByEmail").map((c) => c.args.email)).toEqual([
      "manager@example.com",
      "nobody@example.com",
    ]);
  });

  it("keeps a message's record under the channel id and ts Slack gave it, in the commit of its mark-sent", async () => {
    const { outbox, sender } = buildSender(store, slack, { pacer: fakeClockPacer(2) });
    const writes = countWrites(outbox);
    const drafts = singleAlertDrafts("hr-alerts", 4, 77).map((draft, i) =>
      i === 3 ? draft : { ...draft, postedRecord: { v: 1, people: [`person-${i}`] } },
    );
    await outbox.enqueue(drafts, Date.now());
    expect(await sender.flush()).toMatchObject({ sent: 4, pending: 0 });
    expect(writes.markSent).toBe(4);
    const posted = slack.posted("hr-alerts");
    const channelId = posted[0]?.channel ?? "";
    expect(channelId).toMatch(/^C/);
    const records = await store.namespace(POSTED_NAMESPACE).getMany(posted.map((m) => postedKey(m.channel, m.ts)));
    expect(posted.map((m) => records.get(postedKey(m.channel, m.ts)))).toEqual([
      { v: 1, people: ["person-0"] },
      { v: 1, people: ["person-1"] },
      { v: 1, people: ["person-2"] },
      undefined,
    ]);
  });

  it("postsSettled, called while Slack takes a post, resolves once that message's record is written", async () => {
    let seen: Promise<unknown> | undefined;
    let parts: ReturnType<typeof buildSender> | undefined;
    // Called as Slack receives the post, before it answers: where a very quick press would land.
    const hooked = await startFakeSlack({
      onMessage: (message) => {
        seen ??= parts?.sender
          .postsSettled()
          .then(() => store.namespace(POSTED_NAMESPACE).get(postedKey(message.channel, message.ts)));
      },
    });
    try {
      parts = buildSender(store, hooked);
      const [draft] = singleAlertDrafts("hr-alerts", 1);
      if (!draft) throw new Error("no draft");
      await parts.outbox.enqueue([{ ...draft, postedRecord: { v: 1, people: ["p"] } }], Date.now());
      expect(await parts.sender.flush()).toMatchObject({ sent: 1 });
      expect(await seen).toEqual({ v: 1, people: ["p"] });
      // Nothing in flight: it resolves at once.
      await parts.sender.postsSettled();
    } finally {
      await hooked.close();
    }
  });

  describe("posting back to back (a burst)", () => {
    it("commits a mark-posting before each post and a mark-sent after it, in order", async () => {
      const { outbox, sender } = buildSender(store, slack, { pacer: fakeClockPacer(3) });
      const writes = countWrites(outbox);
      await outbox.enqueue(singleAlertDrafts("hr-alerts", 5), Date.now());
      expect(await sender.flush()).toMatchObject({ sent: 5, pending: 0, possibleDuplicates: 0 });
      expect(writes).toEqual({ markPosting: 5, markSent: 5 });
      expect(slack.posted("hr-alerts").map((m) => /hr-alerts-\d/.exec(m.text ?? "")?.[0])).toEqual([
        "hr-alerts-0",
        "hr-alerts-1",
        "hr-alerts-2",
        "hr-alerts-3",
        "hr-alerts-4",
      ]);
    });

    it("leaves no mark-posting when shutdown comes between two posts: the next start announces no double post", async () => {
      const controller = new AbortController();
      const { outbox, sender } = buildSender(store, slack, { pacer: fakeClockPacer(3), signal: controller.signal });
      const markSent = outbox.markSent.bind(outbox);
      outbox.markSent = async (...args) => {
        await markSent(...args);
        controller.abort(); // SIGTERM right after the first post's mark-sent
      };
      await outbox.enqueue(singleAlertDrafts("hr-alerts", 3), Date.now());
      expect(await sender.flush()).toMatchObject({ sent: 1, pending: 2, stopped: true });
      const waiting = await outbox.waiting();
      expect(waiting.map((m) => m.postingSince)).toEqual([undefined, undefined]);
      expect(waiting.map((m) => m.attempts)).toEqual([0, 0]);

      const restarted = buildSender(store, slack, { pacer: fakeClockPacer(3) });
      expect(await restarted.sender.flush()).toMatchObject({ sent: 2, pending: 0, possibleDuplicates: 0 });
      expect(slack.posted("hr-alerts")).toHaveLength(3);
    });
  });
});

describe("crash between post and mark-sent", () => {
  it("re-posts exactly the one in-flight alert after a restart and measures the window", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rs-crash-"));
    const slack = await startFakeSlack();
    try {
      const file = join(dir, "state.sqlite");
      const first = await openStateStore(file);
      const parts = buildSender(first, slack, {
        afterPost: (entry) => {
          if (entry.alertKeys.some((k) => k === crashKey)) throw new Error("simulated crash");
        },
      });
      const all = singleAlertDrafts("hr-alerts", 5);
      const crashKey = all[2]?.alertKeys[0] ?? "";
      await parts.outbox.enqueue(all, Date.now());
      // The "crash" aborts the flush right after Slack confirmed entry 3; the process state is dropped.
      await expect(parts.sender.flush()).rejects.toThrow("simulated crash");
      await first.close();

      const second = await openStateStore(file);
      const restarted = buildSender(second, slack);
      const report = await restarted.sender.flush();
      await second.close();
      const texts = slack.posted("hr-alerts").map((m) => m.text);
      const counts = new Map<string, number>();
      for (const t of texts) counts.set(String(t), (counts.get(String(t)) ?? 0) + 1);
      expect(report.possibleDuplicates).toBe(1);
      expect(counts.size).toBe(5);
      expect([...counts.values()].filter((n) => n === 2)).toHaveLength(1);
      expect(texts).toHaveLength(6);
      expect(report.maxMarkSentMs).toBeGreaterThan(0);
      console.info(
        `double-post window (confirmation -> mark-sent committed), max over ${report.sent} posts: ${report.maxMarkSentMs.toFixed(2)} ms`,
      );
    } finally {
      await slack.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
