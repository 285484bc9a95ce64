import { describe, expect, it } from "vitest";
import { backlogDigest, channelDrafts, planDeliveries } from "../../src/alerts/plan-deliveries.js";
import type { RoutingConfig } from "../../src/alerts/route-alert.js";
import type { PostedPeople } from "../../src/interactive/posted-people.js";
import { ACME, buildAlert, RETENTION } from "./support/build-alert.js";

const BOTH: RoutingConfig = {
  routes: [
    { name: "hr", lens: "retention", minRiskScore: 0.5, channel: "hr-alerts" },
    { name: "talent", lens: "poaching", minRiskScore: 0.5, channel: "talent" },
  ],
};

describe("planDeliveries", () => {
  it("sends each alert to the channels of the routes that take it, one message each, threaded per person", () => {
    const own = buildAlert({ lens: RETENTION });
    const theirs = buildAlert({ lens: ACME });
    const plan = planDeliveries({ alerts: [own, theirs], routing: BOTH, digestThreshold: 10, managerDm: false });
    expect(plan.drafts.map((d) => [d.channel, d.kind, d.alertKeys])).toEqual([
      ["hr-alerts", "alert", [own.key]],
      ["talent", "alert", [theirs.key]],
    ]);
    expect(plan.drafts[0]?.id).toBe(`a|hr-alerts|${own.key}`);
    expect(plan.drafts[0]?.threadKey).toBe(`1:${own.person.employeeId}`);
    expect(plan.drafts[0]?.alert).toBe(own);
    expect(plan.perChannel).toEqual({ "hr-alerts": 1, talent: 1 });
    expect(plan.unrouted).toEqual([]);
  });

  it("reports what no route takes and plans nothing for it", () => {
    const low = buildAlert({ riskScore: 0.2, riskLevel: "low" });
    const plan = planDeliveries({ alerts: [low], routing: BOTH, digestThreshold: 10, managerDm: false });
    expect(plan.drafts).toEqual([]);
    expect(plan.unrouted).toEqual([low]);
  });

  it("turns a channel's burst over the threshold into digests, leaving quieter channels single", () => {
    const burst = Array.from({ length: 4 }, () => buildAlert({ lens: RETENTION }));
    const single = buildAlert({ lens: ACME });
    const plan = planDeliveries({ alerts: [...burst, single], routing: BOTH, digestThreshold: 3, managerDm: false });
    expect(plan.digestChannels).toEqual(["hr-alerts"]);
    const hr = plan.drafts.filter((d) => d.channel === "hr-alerts");
    expect(hr.every((d) => d.kind === "digest")).toBe(true);
    expect(hr.flatMap((d) => d.alertKeys)).toEqual(expect.arrayContaining(burst.map((a) => a.key)));
    expect(plan.drafts.filter((d) => d.channel === "talent").map((d) => d.kind)).toEqual(["alert"]);
  });

  it("with buttons, each message carries the record of the people it carries: one alert, or one digest part's", () => {
    const alerts = Array.from({ length: 60 }, () => buildAlert({ lens: RETENTION }));
    const single = buildAlert({ lens: ACME, person: { name: "N".repeat(300) } });
    const input = { alerts: [...alerts, single], routing: BOTH, digestThreshold: 10, managerDm: true };
    const plan = planDeliveries({ ...input, format: { actions: true } });
    const digests = plan.drafts.filter((d) => d.kind === "digest");
    expect(digests).toHaveLength(2);
    const carried = digests.map((d) => (d.postedRecord as PostedPeople).people.map((p) => p.employeeId));
    // Each part's record names the people of that part's menus, and together all of them, once.
    expect(carried.map((ids) => ids.length)).toEqual([48, 12]);
    expect(carried.flat().sort()).toEqual(alerts.map((a) => a.person.employeeId).sort());
    for (const [i, draft] of digests.entries()) {
      const menus = JSON.stringify(draft.message.blocks).match(/rs1\|ack\|\|r\|1\|(\d+)\|/g) ?? [];
      expect(menus.map((m) => Number(m.split("|")[5]))).toEqual(carried[i]);
    }
    const [theirs] = plan.drafts.filter((d) => d.channel === "talent");
    expect(theirs?.postedRecord).toEqual({
      v: 1,
      people: [
        expect.objectContaining({ lens: "poaching", employeeId: single.person.employeeId, name: "N".repeat(80) }),
      ],
    });
    // Without buttons there is nothing to press, and nothing is recorded.
    expect(planDeliveries(input).drafts.every((d) => d.postedRecord === undefined)).toBe(true);
  });

  it("plans the same ids for the same alerts, so a replayed pass enqueues nothing new", () => {
    const alerts = Array.from({ length: 5 }, () => buildAlert());
    const once = planDeliveries({ alerts, routing: BOTH, digestThreshold: 3, managerDm: false });
    const again = planDeliveries({ alerts, routing: BOTH, digestThreshold: 3, managerDm: false });
    expect(again.drafts.map((d) => d.id)).toEqual(once.drafts.map((d) => d.id));
  });

  it("DMs the manager of an own-roster person only when manager DMs are on", () => {
    const own = buildAlert({ lens: RETENTION, person: { managerEmail: " Boss@Example.com " } });
    const competitor = buildAlert({ lens: ACME, person: { managerEmail: "boss@globex.example" } });
    const off = planDeliveries({ alerts: [own, competitor], routing: BOTH, digestThreshold: 10, managerDm: false });
    expect(off.drafts.filter((d) => d.kind === "dm")).toEqual([]);
    const on = planDeliveries({ alerts: [own, competitor], routing: BOTH, digestThreshold: 10, managerDm: true });
    const dms = on.drafts.filter((d) => d.kind === "dm");
    expect(dms.map((d) => [d.managerEmail, d.alertKeys])).toEqual([["boss@example.com", [own.key]]]);
  });

  it("DMs a manager only from alerts.managerDm.minRiskLevel up (default high; a departure reads as high)", () => {
    const person = { managerEmail: "boss@example.com" };
    const watch = buildAlert({ riskScore: 0.6, riskLevel: "watch", person });
    const high = buildAlert({ riskScore: 0.8, riskLevel: "high", person });
    const gone = buildAlert({ changeType: "employee_departed", riskScore: null, riskLevel: "high", person });
    const dmKeys = (managerDm: Parameters<typeof planDeliveries>[0]["managerDm"]) =>
      planDeliveries({ alerts: [watch, high, gone], routing: BOTH, digestThreshold: 10, managerDm })
        .drafts.filter((d) => d.kind === "dm")
        .flatMap((d) => d.alertKeys);
    expect(dmKeys(true)).toEqual([high.key, gone.key]);
    expect(dmKeys({ enabled: true, minRiskLevel: "high" })).toEqual([high.key, gone.key]);
    expect(dmKeys({ enabled: true, minRiskLevel: "watch" })).toEqual([watch.key, high.key, gone.key]);
    expect(dmKeys({ enabled: false, minRiskLevel: "low" })).toEqual([]);
  });

  it("counts what went to the catch-all and reports only what nothing took as unrouted", () => {
    const routing: RoutingConfig = { routes: [], defaultChannel: "hr-catch-all" };
    const own = buildAlert({ lens: RETENTION });
    const ownLow = buildAlert({ lens: RETENTION, riskScore: 0.2, riskLevel: "low" });
    const theirs = buildAlert({ lens: ACME });
    const plan = planDeliveries({ alerts: [own, ownLow, theirs], routing, digestThreshold: 10, managerDm: false });
    expect(plan.drafts.map((d) => d.channel)).toEqual(["hr-catch-all"]);
    expect(plan.caughtAll).toBe(1);
    // The catch-all never takes the poaching lens: unrouted, like what is below Watch.
    expect(plan.unrouted).toEqual([ownLow, theirs]);
    const withTalent: RoutingConfig = { ...routing, poachingChannel: "talent" };
    const both = planDeliveries({ alerts: [own, theirs], routing: withTalent, digestThreshold: 10, managerDm: false });
    expect(both.drafts.map((d) => d.channel)).toEqual(["hr-catch-all", "talent"]);
    expect(both.caughtAll).toBe(2);
    expect(both.unrouted).toEqual([]);
  });
});

describe("the digest decision (channelDrafts, backlogDigest)", () => {
  it("stays single up to the threshold and digests above it", () => {
    const three = Array.from({ length: 3 }, () => buildAlert());
    expect(channelDrafts("hr", three, 3).digest).toBe(false);
    expect(channelDrafts("hr", [...three, buildAlert()], 3).digest).toBe(true);
  });

  it("turns a waiting backlog of singles into the same digests a pass would have made", () => {
    const alerts = Array.from({ length: 4 }, () => buildAlert());
    const singles = channelDrafts("hr", alerts, 10).drafts;
    const coalesced = backlogDigest(3).digest("hr", singles);
    expect(coalesced?.map((d) => d.id)).toEqual(channelDrafts("hr", alerts, 3).drafts.map((d) => d.id));
  });

  it("leaves a backlog alone when it is small or holds anything but single alerts", () => {
    const alerts = Array.from({ length: 4 }, () => buildAlert());
    const singles = channelDrafts("hr", alerts, 10).drafts;
    expect(backlogDigest(10).considers(singles.length)).toBe(false);
    expect(backlogDigest(10).digest("hr", singles)).toBeUndefined();
    const digest = channelDrafts("hr", alerts, 1).drafts;
    expect(backlogDigest(3).digest("hr", [...singles, ...digest])).toBeUndefined();
  });
});
