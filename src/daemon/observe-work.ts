import type { PollReport } from "../alerts/poll-report.js";
import type { ApiAttempt } from "../api/api-events.js";
import {
  ConfigError,
  RosterFileError,
  type RosterPullError,
  RosterSourceAuthError,
  ServiceUrlError,
} from "../errors.js";
import type { ReconcileReport } from "../roster/report.js";
import type { HealthMonitor } from "./health-monitor.js";
import type { Metrics } from "./metrics.js";

/**
 * Turns what the jobs report into metrics and readiness, so the jobs themselves know nothing
 * about Prometheus or the ops server.
 */
export function observeApiAttempt(metrics: Metrics, health: HealthMonitor, attempt: ApiAttempt): void {
  const status = attempt.status === undefined ? "none" : String(attempt.status);
  metrics.apiRequests.inc({ method: attempt.method, endpoint: attempt.endpoint, status });
  metrics.rateBudgetWait.observe({ priority: attempt.priority }, attempt.waitedMs / 1000);
  if (attempt.status === 429) metrics.apiRateLimited.inc({ code: attempt.code ?? "none" });
  if (attempt.ok) {
    health.apiSucceeded();
    return;
  }
  // No answer, a 5xx, a broken body or an error an operator must fix: the service is not usable.
  // Any other 4xx is the service answering normally about one request.
  const unusable =
    attempt.status === undefined ||
    attempt.status >= 500 ||
    (attempt.status >= 200 && attempt.status < 300) ||
    attempt.status === 401 ||
    attempt.status === 403 ||
    attempt.error instanceof ServiceUrlError ||
    attempt.code === "SUBSCRIPTION_INACTIVE";
  if (unusable) health.apiFailed(attempt.error);
  else health.apiSucceeded();
}

/**
 * One poll pass: its outcome, the changes it saw, the lenses it read to the end (the cursor age is
 * the time since then) and the outbox size. Posts are counted from the delivery totals instead,
 * so webhook deliveries count too.
 */
export function observePollPass(metrics: Metrics, report: PollReport, now: Date): void {
  metrics.polls.inc({
    outcome: report.error !== undefined ? "failed" : report.lenses.some((l) => l.error) ? "partial" : "ok",
  });
  for (const lens of report.lenses) {
    const kind = lens.lens.startsWith("retention") ? "retention" : "poaching";
    metrics.changesSeen.inc({ lens: kind }, lens.fresh);
    if (lens.error === undefined && lens.skipped === undefined && !report.stopped) {
      metrics.lensRead(lens.lens, now.getTime());
    }
  }
  if (report.error === undefined && !report.stopped) {
    metrics.keepLenses(new Set(report.lenses.filter((l) => l.skipped === undefined).map((l) => l.lens)));
  }
  if (report.flush) metrics.outboxSize.set(report.flush.pending);
  if (report.unrouted > 0) metrics.alerts.inc({ outcome: "unrouted" }, report.unrouted);
}

/** Alerts put in the outbox by either door (a poll pass or a webhook event). */
export function observeQueued(metrics: Metrics, count: number): void {
  if (count > 0) metrics.alerts.inc({ outcome: "queued" }, count);
}

/** The "needs operator" topics a reconcile sets, as metric labels. */
const OPERATOR_TOPICS = [
  "mass_archive_guard",
  "stale_export",
  "read_only_key",
  "reconcile_config",
  "webhook_secret",
  "slack_channel",
  "roster_source",
] as const;
type OperatorTopic = (typeof OPERATOR_TOPICS)[number];

function setNeedsOperator(metrics: Metrics, health: HealthMonitor | undefined, topic: OperatorTopic, note?: string) {
  metrics.needsOperator.set({ reason: topic }, note === undefined ? 0 : 1);
  health?.needsOperator(topic, note);
}

/**
 * A channel Slack refuses posts to (not in the channel, not found): a note per channel naming the
 * fix, until a post to it goes through; the metric is 1 while any channel is refused.
 */
export function observeChannelProblem(
  metrics: Metrics,
  health: HealthMonitor,
  channel: string,
  problem: { readonly code: string; readonly fix: string } | undefined,
): void {
  const note =
    problem && `Slack refuses posts to ${channel} (${problem.code}); they wait in the outbox: ${problem.fix}`;
  health.needsOperator(`slack_channel:${channel}`, note);
  metrics.needsOperator.set({ reason: "slack_channel" }, health.hasNotes("slack_channel:") ? 1 : 0);
}

/** The roster source read at start (`probeRosterSource`): a note until it reads, or a reconcile completes. */
export function observeRosterSource(metrics: Metrics, health: HealthMonitor, note: string | undefined): void {
  setNeedsOperator(metrics, health, "roster_source", note);
}

/** The read-only key warning of `run` at start: /readyz and the metric say it until a reconcile passes the scope check. */
export function observeReadOnlyKey(metrics: Metrics, health: HealthMonitor, note: string): void {
  setNeedsOperator(metrics, health, "read_only_key", note);
}

/** The webhook receiver is on with no signing secret (it refuses every delivery): said from start until the config changes. */
export function observeWebhookSecretMissing(metrics: Metrics, health: HealthMonitor, note: string): void {
  setNeedsOperator(metrics, health, "webhook_secret", note);
}

/**
 * A reconcile that threw instead of reporting: counted as `failed`, and when it failed on its
 * configuration (a read-only key, an unusable roster file) a note for the operator. /readyz answers anyone who can reach the ops port, so a roster file's note
 * names the file and the kind of problem only, never a line of it (the file may be an env file
 * full of keys); the details are in the logs and in `retention-sync check`.
 */
export function observeReconcileFailure(metrics: Metrics, health: HealthMonitor, error: unknown): void {
  // Counted whatever the cause, so that a reconcile that never gets to a report (the service
  // unreachable, the export unreadable) shows in the runs by outcome, where alerting rules look.
  metrics.reconcileRuns.inc({ outcome: "failed" });
  if (error instanceof RosterFileError) {
    const note = `reconcile: the roster file ${error.file} cannot be used (${error.problem}); the daemon's log and retention-sync check say why`;
    setNeedsOperator(metrics, health, "reconcile_config", note);
    return;
  }
  if (error instanceof RosterSourceAuthError) {
    // A refused credential does not cure itself: the operator must fix it (a failed pull is retried).
    setNeedsOperator(metrics, health, "reconcile_config", `reconcile: ${error.message}`);
    return;
  }
  if (!(error instanceof ConfigError)) return;
  const readOnly = error.issues.some((i) => /read-only/.test(i.message));
  setNeedsOperator(metrics, health, readOnly ? "read_only_key" : "reconcile_config", `reconcile: ${error.message}`);
}

/**
 * A pull from the HRIS that failed (not a refused credential, which needs an operator at once):
 * retried at the next schedule, and an operator's matter once no pull has completed for
 * `roster.staleAfter` (the stale-export note, cleared by the next complete run).
 */
export function observePullFailure(
  metrics: Metrics,
  health: HealthMonitor,
  error: RosterPullError,
  lastCompleteMs: number,
  staleAfterSeconds: number,
  nowMs: number,
): void {
  const ageSeconds = (nowMs - lastCompleteMs) / 1000;
  if (staleAfterSeconds <= 0 || ageSeconds <= staleAfterSeconds) return;
  const since = new Date(lastCompleteMs).toISOString();
  setNeedsOperator(
    metrics,
    health,
    "stale_export",
    `reconcile: no complete pull from the roster source ${error.source} since ${since} (roster.staleAfter); the last attempt failed, see the daemon's log`,
  );
}

export function observeReconcile(metrics: Metrics, report: ReconcileReport, health?: HealthMonitor): void {
  const guard = report.guard
    ? `the mass-archive guard holds ${report.guard.people.length} archives of the ${report.guard.managed} people managed from the HRIS export; see the ops channel, then approve (--allow-mass-archive) or fix the export`
    : undefined;
  setNeedsOperator(metrics, health, "mass_archive_guard", guard);
  const stale = report.findings.find((f) => f.kind === "stale-export");
  setNeedsOperator(metrics, health, "stale_export", stale?.message);
  // This run passed the scope check and read its file: those notes are over.
  setNeedsOperator(metrics, health, "read_only_key");
  setNeedsOperator(metrics, health, "reconcile_config");
  setNeedsOperator(metrics, health, "roster_source");
  if (report.export) metrics.rosterExportAge.set(report.export.ageSeconds);
  const outcome = report.interrupted ? "interrupted" : report.exitCode === 0 ? "ok" : "partial";
  metrics.reconcileRuns.inc({ outcome });
  if (report.applied) {
    for (const [kind, count] of Object.entries(report.applied)) metrics.reconcileSteps.inc({ kind }, count);
  }
  metrics.deferredAdds.set(report.deferred.total);
  if (report.billing.billableSeats !== undefined) metrics.billableSeats.set(report.billing.billableSeats);
  if (report.billing.unbilledSeats !== undefined) metrics.unbilledSeats.set(report.billing.unbilledSeats);
}
