import { z } from "zod";
import type { StateStore } from "../store/state-store.js";
import type { ReconcileReport } from "./report.js";

/**
 * The last reconcile run as `status` shows it: when it ended, how, what needs a person, and the
 * export it read. Written after every run that was not a dry run (the daemon's and the command's),
 * a failed one too, so the roster's freshness can be told without the daemon.
 */
export const RUNS_NAMESPACE = "roster.runs";
const LAST_KEY = "last";

const runRecordSchema = z.object({
  finishedAt: z.string(),
  outcome: z.enum(["routine", "needs-attention", "failed"]),
  /** What a person should look at (the report's attention list), or the failure. */
  attention: z.array(z.string()),
  /** Archives the mass-archive guard holds. */
  guardHeld: z.number().int().optional(),
  /** Adds deferred (budget, caps, quota), by reason. */
  deferred: z.record(z.string(), z.number()).optional(),
  /** The export the run read in full: when written, when first read. Absent for a failed run. */
  export: z.object({ fingerprint: z.string(), modifiedAt: z.string(), firstReadAt: z.string() }).optional(),
  /** When an export was last read in full (this run's end, or kept from the last run that did). */
  lastCompleteAt: z.string().optional(),
});
export type ReconcileRunRecord = z.infer<typeof runRecordSchema>;

export async function readLastRun(store: StateStore): Promise<ReconcileRunRecord | undefined> {
  const parsed = runRecordSchema.safeParse(await store.namespace(RUNS_NAMESPACE).get<unknown>(LAST_KEY));
  return parsed.success ? parsed.data : undefined;
}

/** Records a finished run (not a dry run). */
export async function recordRun(store: StateStore, report: ReconcileReport, now = new Date()): Promise<void> {
  if (report.dryRun) return;
  const record: ReconcileRunRecord = {
    finishedAt: now.toISOString(),
    outcome: report.outcome,
    attention: [...report.attention],
    ...(report.guard ? { guardHeld: report.guard.people.length } : {}),
    ...(report.deferred.total > 0 ? { deferred: { ...report.deferred.byReason } } : {}),
    ...(report.export
      ? {
          export: {
            fingerprint: report.export.fingerprint,
            modifiedAt: report.export.modifiedAt,
            firstReadAt: report.export.firstReadAt,
          },
          lastCompleteAt: now.toISOString(),
        }
      : {}),
  };
  await store.namespace(RUNS_NAMESPACE).set(LAST_KEY, record);
}

/** Records a run that failed before it had a report; the last complete read is kept. */
export async function recordFailedRun(store: StateStore, error: unknown, now = new Date()): Promise<void> {
  const before = await readLastRun(store);
  const record: ReconcileRunRecord = {
    finishedAt: now.toISOString(),
    outcome: "failed",
    attention: [error instanceof Error ? error.message : String(error)],
    ...(before?.export ? { export: before.export } : {}),
    ...(before?.lastCompleteAt ? { lastCompleteAt: before.lastCompleteAt } : {}),
  };
  await store.namespace(RUNS_NAMESPACE).set(LAST_KEY, record);
}
