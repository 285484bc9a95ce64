import type { KeyValueNamespace, StateStore } from "../store/state-store.js";
import type { GuardApproval } from "./plan-types.js";

/** The store namespace where applyPlan journals its progress: one key, JOURNAL_KEY. */
export const JOURNAL_NAMESPACE = "roster.journal";
/** The one key of the journal: the entry of the last apply. */
export const JOURNAL_KEY = "run";

/** The journal entry of one apply. */
export interface JournalEntry {
  readonly runId: string;
  readonly fingerprint: string;
  readonly startedAt: string;
  readonly completed: boolean;
  readonly stepsDone: number;
  readonly stepsTotal: number;
  /** The chunk being sent: after a crash, the next run re-reads the roster and finds these there. */
  readonly inflight?: readonly string[];
  /** This apply passed the mass-archive guard: by which approval, and how many archives it let through. */
  readonly guardLifted?: JournalGuardLift;
}

/** The guard lifted for an apply, as the journal keeps it. */
export interface JournalGuardLift {
  readonly by: GuardApproval;
  /** `--allow-mass-archive` or `roster.approveMassArchive`. */
  readonly means: string;
  readonly archives: number;
  /** An approval in Slack: the Slack user id of the approver, and the held plan's id. */
  readonly approvedBy?: string;
  readonly plan?: string;
}

/** The last apply's entry if it stopped before the end (a crash, a kill, a stop), else undefined. */
export async function interruptedRun(journal: KeyValueNamespace): Promise<JournalEntry | undefined> {
  const entry = await journal.get<JournalEntry>(JOURNAL_KEY);
  return entry !== undefined && !entry.completed ? entry : undefined;
}

/** Whether the last reconcile stopped before the end: the daemon finishes it at start. */
export async function hasInterruptedReconcile(store: StateStore): Promise<boolean> {
  return (await interruptedRun(store.namespace(JOURNAL_NAMESPACE))) !== undefined;
}
