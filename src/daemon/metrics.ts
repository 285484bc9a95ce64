import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** What the delivery service has done since start (`OutboxSender.totals`), read at each scrape. */
export interface DeliveryTotals {
  readonly sent: number;
  readonly permanentFailures: number;
  readonly retryableFailures: number;
  readonly rateLimited: number;
  readonly possibleDuplicates: number;
}

/** Live values read when Prometheus scrapes; the composition root connects them once the adapters exist. */
export interface MetricSources {
  /** `RateLimiter.pausedUntilMs`: epoch ms until which the request budget is paused (0 when not). */
  rateBudgetPausedUntil?: () => number;
  /** Every post by either door (poll passes and webhook flushes) and by reconcile reports. */
  deliveryTotals?: () => DeliveryTotals | undefined;
}

/**
 * Every metric the daemon exports, on its own registry (not prom-client's global one) so that
 * tests and several daemons in one process never share counters.
 */
export function createMetrics(options: { now?: () => number } = {}) {
  const now = options.now ?? Date.now;
  const sources: MetricSources = {};
  /** Lens key -> end of the last pass that read the lens to the end (epoch ms). */
  const lensReadAt = new Map<string, number>();
  /** Delivery totals already added to the alerts counter. */
  const counted: { -readonly [K in keyof DeliveryTotals]: number } = {
    sent: 0,
    permanentFailures: 0,
    retryableFailures: 0,
    rateLimited: 0,
    possibleDuplicates: 0,
  };
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
    leader: new Gauge({
      name: "retention_sync_leader",
      help: "1 while this replica leads (runs the jobs and posts), 0 while it stands by",
      registers: [registry],
    }),
    stateBytes: new Gauge({
      name: "retention_sync_state_bytes",
      help: "Size of the state database file after the last expiry sweep (0 in memory)",
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
      help: "Slack messages of the alert flow, by outcome: queued (put in the outbox by a poll pass or a webhook event), posted, failed (attempts), reposted_after_restart (possibly posted twice), unrouted (alerts of poll passes that no route and no catch-all took); posted, failed and reposted also count reconcile reports",
      labelNames: ["outcome"] as const,
      registers: [registry],
      collect() {
        const totals = sources.deliveryTotals?.();
        if (!totals) return;
        const add = (outcome: string, key: keyof DeliveryTotals) => {
          const delta = totals[key] - counted[key];
          if (delta > 0) this.inc({ outcome }, delta);
          counted[key] = totals[key];
        };
        add("posted", "sent");
        add("failed", "permanentFailures");
        add("failed", "retryableFailures");
        add("failed", "rateLimited");
        add("reposted_after_restart", "possibleDuplicates");
      },
    }),
    slackActions: new Counter({
      name: "retention_sync_slack_actions_total",
      help: "Slack button presses, by kind (ack, snooze, unsnooze, untrack; none for payloads that are not ours) and outcome (applied, refused, failed, ignored, duplicate)",
      labelNames: ["kind", "outcome"] as const,
      registers: [registry],
    }),
    requestsRefused: new Counter({
      name: "retention_sync_requests_refused_total",
      help: "Requests the daemon's HTTP servers refused, by server (ops, webhook) and reason (bad_signature, stale_timestamp, too_large, wrong_path, wrong_method, slow_client, bad_request, too_many_connections); each one counts, while the log shows a count per minute",
      labelNames: ["server", "reason"] as const,
      registers: [registry],
    }),
    slackSocketConnected: new Gauge({
      name: "retention_sync_slack_socket_connected",
      help: "1 while this replica's Slack Socket Mode connection is open (only the leader opens one), else 0",
      registers: [registry],
    }),
    outboxSize: new Gauge({
      name: "retention_sync_outbox_size",
      help: "Slack messages waiting in the outbox",
      registers: [registry],
    }),
    cursorAge: new Gauge({
      name: "retention_sync_cursor_age_seconds",
      help: "Seconds since the last poll pass that read this lens's /changes to the end and committed its cursor, by lens",
      labelNames: ["lens"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [lens, at] of lensReadAt) this.set({ lens }, Math.max(0, (now() - at) / 1000));
      },
    }),
    rateBudgetPaused: new Gauge({
      name: "retention_sync_rate_budget_paused_seconds",
      help: "Seconds the shared API request budget stays paused by a per-minute 429 (0 when not paused)",
      registers: [registry],
      collect() {
        const until = sources.rateBudgetPausedUntil?.() ?? 0;
        this.set(Math.max(0, (until - now()) / 1000));
      },
    }),
    rosterPullSeconds: new Histogram({
      name: "retention_sync_roster_pull_seconds",
      help: "Time to pull the roster export from the HRIS (roster.source), complete or not",
      labelNames: ["source"] as const,
      buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900],
      registers: [registry],
    }),
    rosterPulls: new Counter({
      name: "retention_sync_roster_pull_total",
      help: "Roster pulls from the HRIS, by source and outcome: ok, not_modified (a 304: the same export), failed, refused (the credential)",
      labelNames: ["source", "outcome"] as const,
      registers: [registry],
    }),
    reconcileRuns: new Counter({
      name: "retention_sync_reconcile_runs_total",
      help: "Reconciliation runs, by outcome: ok, partial (needs attention), interrupted (stopped at shutdown), failed (threw before a report)",
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
      help: "1 while something needs an operator (mass_archive_guard, stale_export, read_only_key, reconcile_config, webhook_secret, slack_channel, roster_source), else 0",
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
  return Object.assign(m, {
    /** Connects the live sources read at each scrape. */
    watch(more: MetricSources): void {
      Object.assign(sources, more);
    },
    /** A poll pass read this lens to the end at `atMs`. */
    lensRead(lens: string, atMs: number): void {
      lensReadAt.set(lens, atMs);
    },
    /** Lenses no longer polled (a competitor workspace deleted) stop being reported. */
    keepLenses(current: ReadonlySet<string>): void {
      for (const lens of lensReadAt.keys()) if (!current.has(lens)) lensReadAt.delete(lens);
    },
  });
}

export type Metrics = ReturnType<typeof createMetrics>;
