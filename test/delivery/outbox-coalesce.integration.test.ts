import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { backlogDigest, planDeliveries } from "../../src/alerts/plan-deliveries.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";
import { buildAlert } from "../alerts/support/build-alert.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { buildSender } from "./support/build-sender.js";

let slack: FakeSlack;
let store: StateStore;
beforeEach(async () => {
  slack = await startFakeSlack();
  store = await openStateStore(":memory:");
});
afterEach(async () => {
  await store.close();
  await slack.close();
});

/** Single-alert drafts for `count` alerts into #hr-alerts (a threshold high enough that the plan keeps them single). */
function singles(count: number) {
  const alerts = Array.from({ length: count }, () => buildAlert());
  const plan = planDeliveries({
    alerts,
    routing: { routes: [{ lens: "both", minRiskScore: 0, channel: "hr-alerts" }] },
    digestThreshold: 1_000,
    managerDm: false,
  });
  return { alerts, drafts: plan.drafts };
}

function namesPosted(): string[] {
  return slack
    .posted("hr-alerts")
    .flatMap((m) => [...JSON.stringify(m.blocks).matchAll(/\|(Person \d+)>/g)].map((match) => match[1] ?? ""));
}

describe("a backlog of single alerts becomes a digest at send time", () => {
  it("posts 15 waiting alerts (after a Slack outage or a webhook burst) as one digest", async () => {
    const { drafts, alerts } = singles(15);
    const { outbox, sender } = buildSender(store, slack, { coalesce: backlogDigest(10) });
    await outbox.enqueue(drafts, Date.now());
    const report = await sender.flush();
    expect(report).toMatchObject({ sent: 1, pending: 0 });
    expect(slack.posted("hr-alerts")).toHaveLength(1);
    expect(namesPosted().sort()).toEqual(alerts.map((a) => a.person.name).sort());
    // the replaced singles are done: a replay of the same drafts queues nothing
    expect(await outbox.enqueue(drafts, Date.now())).toBe(0);
  });

  it("keeps a backlog at or under the threshold as single messages", async () => {
    const { drafts } = singles(10);
    const { outbox, sender } = buildSender(store, slack, { coalesce: backlogDigest(10) });
    await outbox.enqueue(drafts, Date.now());
    expect(await sender.flush()).toMatchObject({ sent: 10, pending: 0 });
  });

  it("finishes a replacement a crash cut short: the digest once, none of the singles", async () => {
    const { drafts } = singles(12);
    const { outbox, sender } = buildSender(store, slack, { coalesce: backlogDigest(10) });
    await outbox.enqueue(drafts, Date.now());
    const waiting = await outbox.pending();
    const digest = backlogDigest(10).digest(
      "hr-alerts",
      waiting.map((e) => e),
    );
    if (!digest) throw new Error("no digest");
    // the crash: the digest is stored, the singles are not marked yet
    await outbox.enqueue(
      digest.map((d) => ({ ...d, replaces: waiting.map((e) => e.id) })),
      Date.now(),
    );
    // meanwhile two more alerts arrive
    const { drafts: later } = singles(2);
    await outbox.enqueue(later, Date.now());
    const report = await sender.flush();
    expect(report).toMatchObject({ sent: 3, pending: 0 });
    expect(namesPosted()).toHaveLength(14);
    expect(new Set(namesPosted()).size).toBe(14);
  });
});
