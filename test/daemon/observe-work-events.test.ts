import { describe, expect, it } from "vitest";
import type { PollReport } from "../../src/alerts/poll-report.js";
import { HealthMonitor } from "../../src/daemon/health-monitor.js";
import { createMetrics } from "../../src/daemon/metrics.js";
import { createWorkEvents, observeWorkEvents } from "../../src/daemon/observe-work-events.js";
import { AuthenticationError } from "../../src/errors.js";

function value(text: string, name: string, labels = ""): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ""} `));
  return line === undefined ? undefined : Number(line.split(" ").pop());
}

function observed() {
  const metrics = createMetrics();
  const health = new HealthMonitor(60_000);
  const events = createWorkEvents();
  observeWorkEvents(events, metrics, health);
  return { metrics, health, events, text: () => metrics.registry.metrics() };
}

const pass: PollReport = {
  lenses: [{ lens: "retention:1", fetched: 3, fresh: 2, duplicates: 1 }],
  alerts: 2,
  unrouted: 1,
  unroutedPoaching: 0,
  caughtAll: 0,
  enqueued: 2,
  digestChannels: [],
  drafts: [],
};

describe("the work events' observer", () => {
  it("counts the alert path's events: passes, changes seen, queued, unrouted, webhook refusals", async () => {
    const { events, text } = observed();
    events.alerts.emit("poll-pass", { report: pass, at: new Date() });
    events.alerts.emit("poll-pass", { report: { ...pass, lenses: [], error: "GET /me failed" }, at: new Date() });
    events.alerts.emit("queued", { count: 2 });
    events.alerts.emit("queued", { count: 0 });
    events.alerts.emit("webhook-refused", { reason: "bad_signature" });
    events.alerts.emit("webhook-refused", { reason: "bad_signature" });
    const metrics = await text();
    expect(value(metrics, "retention_sync_polls_total", 'outcome="ok"')).toBe(1);
    expect(value(metrics, "retention_sync_polls_total", 'outcome="failed"')).toBe(1);
    expect(value(metrics, "retention_sync_changes_seen_total", 'lens="retention"')).toBe(2);
    expect(value(metrics, "retention_sync_alerts_total", 'outcome="queued"')).toBe(2);
    expect(value(metrics, "retention_sync_alerts_total", 'outcome="unrouted"')).toBe(2);
    expect(value(metrics, "retention_sync_cursor_age_seconds", 'lens="retention:1"')).toBeGreaterThanOrEqual(0);
    expect(value(metrics, "retention_sync_requests_refused_total", 'server="webhook",reason="bad_signature"')).toBe(2);
  });

  it("counts roster pulls by source and outcome, and times them", async () => {
    const { events, text } = observed();
    events.pull.emit("pulled", { source: "merge", outcome: "ok", seconds: 2.5 });
    events.pull.emit("pulled", { source: "merge", outcome: "failed", seconds: 0.5 });
    events.pull.emit("pulled", { source: "merge", outcome: "ok", seconds: 1 });
    const metrics = await text();
    expect(value(metrics, "retention_sync_roster_pull_total", 'source="merge",outcome="ok"')).toBe(2);
    expect(value(metrics, "retention_sync_roster_pull_total", 'source="merge",outcome="failed"')).toBe(1);
    expect(value(metrics, "retention_sync_roster_pull_seconds_count", 'source="merge"')).toBe(3);
    expect(value(metrics, "retention_sync_roster_pull_seconds_sum", 'source="merge"')).toBe(4);
  });

  it("counts API attempts and says a rejected key on /readyz", async () => {
    const { events, health, text } = observed();
    const attempt = {
      method: "GET",
      endpoint: "/me",
      code: undefined,
      priority: "poll",
      waitedMs: 500,
      durationMs: 20,
    } as const;
    events.api.emit("attempt", { ...attempt, status: 200, ok: true, error: undefined });
    expect(health.readiness().ready).toBe(true);
    const rejected = new AuthenticationError({ status: 401, message: "invalid key", method: "GET", path: "/me" });
    events.api.emit("attempt", { ...attempt, status: 401, ok: false, error: rejected });
    const metrics = await text();
    expect(value(metrics, "retention_sync_api_requests_total", 'method="GET",endpoint="/me",status="200"')).toBe(1);
    expect(value(metrics, "retention_sync_api_requests_total", 'method="GET",endpoint="/me",status="401"')).toBe(1);
    expect(value(metrics, "retention_sync_rate_budget_wait_seconds_count", 'priority="poll"')).toBe(2);
    expect(health.readiness().ready).toBe(false);
  });

  it("keeps a needs-operator note per refused channel until a post to it goes through", async () => {
    const { events, health, text } = observed();
    events.delivery.emit("channel-problem", {
      channel: "#hr",
      problem: { code: "not_in_channel", fix: "invite the app" },
    });
    expect(value(await text(), "retention_sync_needs_operator", 'reason="slack_channel"')).toBe(1);
    expect(health.readiness().notes?.join("\n")).toContain("Slack refuses posts to #hr (not_in_channel)");
    events.delivery.emit("channel-problem", { channel: "#hr", problem: undefined });
    expect(value(await text(), "retention_sync_needs_operator", 'reason="slack_channel"')).toBe(0);
    expect(health.readiness().notes?.join("\n") ?? "").not.toContain("#hr");
  });

  it("counts presses by kind and outcome, and shows the Socket Mode connection", async () => {
    const { events, health, text } = observed();
    events.interactive.emit("press", { kind: "ack", outcome: "applied" });
    events.interactive.emit("press", { kind: "none", outcome: "ignored" });
    events.interactive.emit("socket-state", { state: "connected" });
    let metrics = await text();
    expect(value(metrics, "retention_sync_slack_actions_total", 'kind="ack",outcome="applied"')).toBe(1);
    expect(value(metrics, "retention_sync_slack_actions_total", 'kind="none",outcome="ignored"')).toBe(1);
    expect(value(metrics, "retention_sync_slack_socket_connected")).toBe(1);
    expect(health.readiness().notes).toContain("slack socket mode: connected");
    events.interactive.emit("socket-state", { state: "reconnecting" });
    metrics = await text();
    expect(value(metrics, "retention_sync_slack_socket_connected")).toBe(0);
  });
});
