import type { StateStore } from "../store/state-store.js";
import type { ReconcileReport } from "./report.js";

/** The store namespace of the last ops report's gist; its one key is LAST_REPORT_KEY. */
export const REPORTS_NAMESPACE = "roster.reports";
export const LAST_REPORT_KEY = "last";

interface LastReport {
  readonly gist: string;
  readonly at: string;
}

/**
 * What a report says, for telling a repeat from news: the export, the outcome, what needs
 * attention and what was planned. Two runs of one export that change nothing and find nothing new
 * have the same gist (a stale export's age in days is part of it: a daily reminder).
 */
export function reportGist(report: ReconcileReport): string {
  return JSON.stringify([
    report.export?.fingerprint ?? report.file,
    report.outcome,
    report.attention,
    report.planned,
    report.deferred.byReason,
  ]);
}

/**
 * Marks a report `quiet` when it repeats the last one posted: no write, no refusal or failure, and
 * the same gist. The daemon and the command skip the ops post of a quiet report, so one export
 * read every minute posts once, not every minute. A run that writes always posts. Dry runs never
 * get here (they post nothing).
 */
export async function quietRepeat(store: StateStore, report: ReconcileReport): Promise<ReconcileReport> {
  const ns = store.namespace(REPORTS_NAMESPACE);
  const gist = reportGist(report);
  const acted = report.writeRequests > 0 || report.refusals.length > 0 || report.failures.length > 0;
  const last = await ns.get<LastReport>(LAST_REPORT_KEY);
  if (!acted && last?.gist === gist) return { ...report, quiet: true };
  await ns.set<LastReport>(LAST_REPORT_KEY, { gist, at: report.startedAt });
  return { ...report, quiet: false };
}
