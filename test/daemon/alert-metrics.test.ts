import { describe, expect, it } from "vitest";
import type { PollReport } from "../../src/alerts/poll-report.js";
import { createMetrics } from "../../src/daemon/metrics.js";
import { observePollPass, observeQueued } from "../../src/daemon/observe-work.js";

function report(lenses: PollReport["lenses"], extra: Partial<PollReport> = {}): PollReport {
  return {
    lenses,
    alerts: 0,
    unrouted: 0,
    unroutedPoaching: 0,
    caughtAll: 0,
    enqueued: 0,
    digestChannels: [],
    drafts: [],
    ...extra,
  };
}

function value(text: string, name: string, labels = ""): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ""} `));
  return line === undefined ? undefined : Number(line.split(" ").pop());
}

describe("alert metrics", () => {
  it("age each lens from its last successful pass; a failed lens keeps ageing, a gone one disappears", async () => {
    let now = 1_000_000;
    const metrics = createMetrics({ now: () => now });
    const lens = (name: string, error?: string) => ({
      lens: name,
      fetched: 0,
      fresh: 0,
      duplicates: 0,
      ...(error ? { error } : {}),
    });
    observePollPass(metrics, report([lens("retention:1"), lens("poaching:7")]), new Date(now));
    now += 30_000;
    let text = await metrics.registry.metrics();
    expect(value(text, "retention_sync_cursor_age_seconds", 'lens="retention:1"')).toBe(30);

    observePollPass(metrics, report([lens("retention:1"), lens("poaching:7", "503")]), new Date(now));
    now += 10_000;
    text = await metrics.registry.metrics();
    expect(value(text, "retention_sync_cursor_age_seconds", 'lens="retention:1"')).toBe(10);
    expect(value(text, "retention_sync_cursor_age_seconds", 'lens="poaching:7"')).toBe(40);

    observePollPass(metrics, report([lens("retention:1")]), new Date(now));
    text = await metrics.registry.metrics();
    expect(value(text, "retention_sync_cursor_age_seconds", 'lens="poaching:7"')).toBeUndefined();
  });

  it("count posts from the delivery totals at each scrape (either door), queued from every hand-over", async () => {
    const metrics = createMetrics();
    const totals = { sent: 0, permanentFailures: 0, retryableFailures: 0, rateLimited: 0, possibleDuplicates: 0 };
    metrics.watch({ deliveryTotals: () => totals });
    observeQueued(metrics, 2);
    totals.sent = 2;
    let text = await metrics.registry.metrics();
    expect(value(text, "retention_sync_alerts_total", 'outcome="posted"')).toBe(2);
    expect(value(text, "retention_sync_alerts_total", 'outcome="queued"')).toBe(2);
    totals.sent = 5;
    totals.rateLimited = 1;
    text = await metrics.registry.metrics();
    expect(value(text, "retention_sync_alerts_total", 'outcome="posted"')).toBe(5);
    expect(value(text, "retention_sync_alerts_total", 'outcome="failed"')).toBe(1);
    observePollPass(metrics, report([], { unrouted: 3 }), new Date());
    text = await metrics.registry.metrics();
    expect(value(text, "retention_sync_alerts_total", 'outcome="unrouted"')).toBe(3);
  });

  it("show how long the request budget stays paused", async () => {
    let now = 0;
    const metrics = createMetrics({ now: () => now });
    let pausedUntil = 0;
    metrics.watch({ rateBudgetPausedUntil: () => pausedUntil });
    expect(value(await metrics.registry.metrics(), "retention_sync_rate_budget_paused_seconds")).toBe(0);
    pausedUntil = 60_000;
    now = 15_000;
    expect(value(await metrics.registry.metrics(), "retention_sync_rate_budget_paused_seconds")).toBe(45);
  });
});
