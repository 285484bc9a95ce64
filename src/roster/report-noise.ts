import type { StateStore } from "../store/state-store.js";
import type { ReconcileReport } from "./report.js";

/** The store namespace of the last ops report's gist; its one key is LAST_REPORT_KEY. */
export const REPORTS_NAMESPACE = "roster.reports";
export const LAST_REPORT_KEY = "last";

interface LastReport {
  readonly gist: string;
  /** The export the last posted report was about. */
  readonly export?: string;
  readonly at: string;
}

/**
 * What a report says, for telling a repeat from news: the export, the outcome, what needs
 * attention, what was planned and how many people stopped in Slack are kept untracked. Two runs
 * of one export that change nothing and find nothing new have the same gist (a stale export's age
 * in days is part of it: a daily reminder).
 */
export function reportGist(report: ReconcileReport): string {
  return JSON.stringify([
    report.export?.fingerprint ?? report.file,
    report.outcome,
    report.attention,
    report.planned,
    report.deferred.byReason,
    report.keptUntracked.length,
    // A new plan held for approval is news (its post carries the buttons); the same plan again is not.
    report.heldPlan?.id ?? null,
  ]);
}

/**
 * Marks a report `quiet` when it tells nothing new since the last one posted: no write, no refusal
 * or failure, no hold ended, and either the same gist, or a routine run of the export the last post was about
 * (what needed attention in it was said then). The daemon and the command skip the ops post of a
 * quiet report, so one export read every minute posts once, not every minute; each new export
 * posts (a daily routine report), and a run that writes always posts. Dry runs never get here.
 */
export async function quietRepeat(store: StateStore, report: ReconcileReport): Promise<ReconcileReport> {
  const ns = store.namespace(REPORTS_NAMESPACE);
  const gist = reportGist(report);
  const exported = report.export?.fingerprint ?? report.file;
  const acted =
    report.writeRequests > 0 ||
    report.refusals.length > 0 ||
    report.failures.length > 0 ||
    report.holdsEnded.length > 0;
  const last = await ns.get<LastReport>(LAST_REPORT_KEY);
  const sameExport = last?.export === exported;
  if (!acted && (last?.gist === gist || (sameExport && report.outcome === "routine"))) {
    return { ...report, quiet: true };
  }
  await ns.set<LastReport>(LAST_REPORT_KEY, { gist, export: exported, at: report.startedAt });
  return { ...report, quiet: false };
}
