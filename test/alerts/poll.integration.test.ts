import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LENS_LIST_REFRESH_MS } from "../../src/alerts/lens-list.js";
import { RetentionClient } from "../../src/api/client.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { useEmulator } from "../helpers/start-emulator.js";
import { type Harness, messageText, startHarness } from "./support/alert-harness.js";

const emulator = useEmulator({ rateLimitPerMinute: 100_000 });

/** Deletes a competitor workspace through the API, as its admin would. */
async function deleteCompetitorWorkspace(id: number): Promise<void> {
  const writer = new RetentionClient({ baseUrl: emulator().baseUrl, apiKey: emulator().writeKey, retryBaseDelayMs: 5 });
  try {
    await writer.deleteCompetitor(id);
  } finally {
    await writer.close();
  }
}

describe("polling with the emulator and a fake Slack", () => {
  let slack: FakeSlack;
  let harness: Harness;
  let competitor: { id: number; name: string };

  beforeEach(async () => {
    await emulator().control.reset();
    slack = await startFakeSlack();
    harness = await startHarness(emulator(), slack);
    const [first] = await harness.client.listCompetitors();
    if (!first) throw new Error("the demo seed has competitors");
    competitor = { id: first.id, name: first.name ?? "" };
    // Seeded history is older than the lookback; a first pass proves it and sets the cursors.
    await harness.pipeline.poll({ now: new Date(), dryRun: false });
    slack.calls.length = 0;
  });
  afterEach(async () => {
    await harness.close();
    await slack.close();
  });

  it("routes both lenses to the right channels with the right content", async () => {
    const own = await emulator().control.signals({
      count: 3,
      organizationId: emulator().organizationId,
      riskScore: 0.82,
    });
    const poach = await emulator().control.signals({ count: 2, organizationId: competitor.id, riskScore: 0.9 });
    await emulator().control.signals({
      count: 2,
      organizationId: emulator().organizationId,
      riskScore: 0.3,
      changeType: "title_change",
    });
    const report = await harness.pipeline.poll({ now: new Date(), dryRun: false });
    expect(report.flush).toMatchObject({ pending: 0, permanentFailures: 0 });

    const hr = slack.posted("hr-alerts");
    const poaching = slack.posted("poaching-alerts");
    expect(hr).toHaveLength(3);
    expect(poaching).toHaveLength(2);
    const hrText = hr.map(messageText).join("\n");
    for (const change of own) {
      const employee = change.employee as { name: string; networkUrl: string };
      expect(hrText).toContain(employee.name);
      expect(hrText).toContain(employee.networkUrl);
    }
    expect(hrText).toContain("Retention");
    expect(hrText).toContain("0.82");
    const poachText = poaching.map(messageText).join("\n");
    for (const change of poach) expect(poachText).toContain((change.employee as { name: string }).name);
    expect(poachText).toContain(`Poaching · ${competitor.name}`);
    expect(poachText).not.toContain("0.30");
  });

  it("after a restart with the same state file posts nothing twice and misses nothing", async () => {
    await emulator().control.signals({ count: 4, organizationId: emulator().organizationId, riskScore: 0.8 });
    await harness.pipeline.poll({ now: new Date(), dryRun: false });
    expect(slack.posted("hr-alerts")).toHaveLength(4);

    const missedWhileDown = await emulator().control.signals({
      count: 3,
      organizationId: emulator().organizationId,
      riskScore: 0.7,
    });
    await harness.restart();
    const report = await harness.pipeline.poll({ now: new Date(), dryRun: false });
    const hr = slack.posted("hr-alerts");
    expect(hr).toHaveLength(7);
    const lastThree = hr.slice(4).map(messageText).join("\n");
    for (const change of missedWhileDown) expect(lastThree).toContain((change.employee as { name: string }).name);
    expect(report.lenses.find((l) => l.lens.startsWith("retention"))?.duplicates).toBeGreaterThan(0);

    await harness.restart();
    await harness.pipeline.poll({ now: new Date(), dryRun: false });
    expect(slack.posted("hr-alerts")).toHaveLength(7);
  });

  it("turns 1,000 changes in one pass into digests without a 429 storm", async () => {
    slack.setRateLimit({ method: "chat.postMessage", limit: 5, windowMs: 1000, retryAfter: 1 });
    await emulator().control.signals({ count: 1000, organizationId: emulator().organizationId, riskScore: 0.8 });
    const report = await harness.pipeline.poll({ now: new Date(), dryRun: false });
    expect(report.alerts).toBe(1000);
    expect(report.digestChannels).toEqual(["hr-alerts"]);
    const posted = slack.posted("hr-alerts");
    expect(posted.length).toBeGreaterThan(0);
    expect(posted.length).toBeLessThan(10);
    const lines = posted
      .flatMap((m) => (m.blocks as Array<{ type: string; text?: { text: string } }>) ?? [])
      .filter((b) => b.type === "section")
      .flatMap((b) => (b.text?.text ?? "").split("\n"))
      .filter((line) => line.startsWith(":red_circle:"));
    expect(lines).toHaveLength(1000);
    expect(slack.calls.filter((c) => c.status === 429).length).toBeLessThanOrEqual(1);
  });

  it("delivers every alert after a Slack outage spanning several passes", async () => {
    await emulator().control.signals({ count: 3, organizationId: emulator().organizationId, riskScore: 0.8 });
    slack.setOutage(true, "http");
    const during = await harness.pipeline.poll({ now: new Date(), dryRun: false });
    expect(during.flush).toMatchObject({ sent: 0, pending: 3 });
    await emulator().control.advanceClock(120);
    await emulator().control.signals({ count: 2, organizationId: emulator().organizationId, riskScore: 0.8 });
    slack.setOutage(true, "reset");
    const later = await harness.pipeline.poll({ now: new Date(), dryRun: false });
    expect(later.flush).toMatchObject({ sent: 0, pending: 5 });
    expect(slack.posted()).toHaveLength(0);

    slack.setOutage(false);
    const after = await harness.pipeline.poll({ now: new Date(), dryRun: false });
    expect(after.flush).toMatchObject({ sent: 5, pending: 0 });
    expect(slack.posted("hr-alerts")).toHaveLength(5);
    await harness.pipeline.poll({ now: new Date(), dryRun: false });
    expect(slack.posted("hr-alerts")).toHaveLength(5);
  });

  it("follows competitor workspaces as they come and go, without a restart", async () => {
    const before = await harness.pipeline.poll({ now: new Date(), dryRun: false });
    const key = `poaching:${competitor.id}`;
    expect(before.lenses.map((l) => l.lens)).toContain(key);
    await deleteCompetitorWorkspace(competitor.id);
    // The pipeline keeps the lens list for LENS_LIST_REFRESH_MS: a pass that much later lists the lenses again.
    const after = await harness.pipeline.poll({ now: new Date(Date.now() + LENS_LIST_REFRESH_MS), dryRun: false });
    expect(after.lenses.map((l) => l.lens)).not.toContain(key);
    expect(after.lenses.every((l) => l.error === undefined)).toBe(true);
  });

  it("drops a deleted competitor workspace on the pass after its lens failed, not at the next refresh", async () => {
    await harness.pipeline.poll({ now: new Date(), dryRun: false });
    const key = `poaching:${competitor.id}`;
    await deleteCompetitorWorkspace(competitor.id);
    // Within the refresh interval the kept list still names the workspace: its lens fails...
    const failing = await harness.pipeline.poll({ now: new Date(), dryRun: false });
    expect(failing.lenses.find((l) => l.lens === key)?.error).toBeDefined();
    expect(failing.lenses.filter((l) => l.lens !== key).every((l) => l.error === undefined)).toBe(true);
    // ...and the next pass lists the lenses again, without it.
    const next = await harness.pipeline.poll({ now: new Date(), dryRun: false });
    expect(next.lenses.map((l) => l.lens)).not.toContain(key);
    expect(next.lenses.every((l) => l.error === undefined)).toBe(true);
  });

  it("still delivers the outbox when the service cannot be reached", async () => {
    await emulator().control.signals({ count: 2, organizationId: emulator().organizationId, riskScore: 0.8 });
    slack.setOutage(true, "http");
    expect((await harness.pipeline.poll({ now: new Date(), dryRun: false })).flush?.pending).toBe(2);
    slack.setOutage(false);
    await emulator().control.faults({ errorRate: 1, statuses: [500] });
    try {
      // Past the lens list's refresh interval, so the pass reads the list (GET /me, /competitors) and that fails.
      const report = await harness.pipeline.poll({ now: new Date(Date.now() + LENS_LIST_REFRESH_MS), dryRun: false });
      expect(report.error).toBeDefined();
      expect(report.flush).toMatchObject({ sent: 2, pending: 0 });
    } finally {
      await emulator().control.clearFaults();
    }
  });
});
