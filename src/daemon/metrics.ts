import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/**
 * Every metric the daemon exports, on its own registry (not prom-client's global one) so that
 * tests and several daemons in one process never share counters.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "retention_sync_" });
  const m = {
    registry,
    apiRequests: new Counter({
      name: "retention_sync_api_requests_total",
      help: "Requests sent to the Retention service, by endpoint and HTTP status",
      labelNames: ["method", "endpoint", "status"] as const,
      registers: [registry],
    }),
    apiRateLimited: new Counter({
      name: "retention_sync_api_rate_limited_total",
      help: "429 answers from the Retention service, by code (none = per-minute limit)",
      labelNames: ["code"] as const,
      registers: [registry],
    }),
    rateBudgetWait: new Histogram({
      name: "retention_sync_rate_budget_wait_seconds",
      help: "Time a request waited for the shared rate budget",
      labelNames: ["priority"] as const,
      buckets: [0, 0.01, 0.1, 0.5, 1, 5, 15, 60],
      registers: [registry],
    }),
    polls: new Counter({
      name: "retention_sync_polls_total",
      help: "Polling passes, by outcome",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    changesSeen: new Counter({
      name: "retention_sync_changes_seen_total",
      help: "Changes read from /changes or webhooks, by lens",
      labelNames: ["lens"] as const,
      registers: [registry],
    }),
    alerts: new Counter({
      name: "retention_sync_alerts_total",
      help: "Slack alerts, by outcome (queued, posted, failed, reposted_after_restart: possibly posted twice)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    outboxSize: new Gauge({
      name: "retention_sync_outbox_size",
      help: "Slack messages waiting in the outbox",
      registers: [registry],
    }),
    cursorAge: new Gauge({
      name: "retention_sync_cursor_age_seconds",
      help: "Age of the committed /changes cursor, by lens",
      labelNames: ["lens"] as const,
      registers: [registry],
    }),
    reconcileRuns: new Counter({
      name: "retention_sync_reconcile_runs_total",
      help: "Reconciliation runs, by outcome",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    reconcileSteps: new Counter({
      name: "retention_sync_reconcile_steps_total",
      help: "Reconciliation steps applied, by kind",
      labelNames: ["kind"] as const,
      registers: [registry],
    }),
    deferredAdds: new Gauge({
      name: "retention_sync_deferred_adds",
      help: "Adds deferred by the last reconciliation",
      registers: [registry],
    }),
    billableSeats: new Gauge({
      name: "retention_sync_billable_seats",
      help: "Billable seats from /billing",
      registers: [registry],
    }),
    needsOperator: new Gauge({
      name: "retention_sync_needs_operator",
      help: "1 while something needs an operator (mass_archive_guard, stale_export, read_only_key, reconcile_config), else 0",
      labelNames: ["reason"] as const,
      registers: [registry],
    }),
    rosterExportAge: new Gauge({
      name: "retention_sync_roster_export_age_seconds",
      help: "Age of the HRIS export the last reconcile read (written or first read, whichever is older)",
      registers: [registry],
    }),
    unbilledSeats: new Gauge({
      name: "retention_sync_unbilled_seats",
      help: "Seats added but not yet charged, from /billing",
      registers: [registry],
    }),
  };
  return m;
}

export type Metrics = ReturnType<typeof createMetrics>;
