import type { StateStore } from "../store/state-store.js";
import type { JournalEntry } from "./apply-plan.js";

/** Where applyPlan journals its progress (key `run`): the state of the last reconcile. */
export const JOURNAL_NAMESPACE = "roster.journal";

/** Whether the last reconcile stopped before the end (a crash, a kill, a stop): the daemon finishes it at start. */
export async function hasInterruptedReconcile(store: StateStore): Promise<boolean> {
  const entry = await store.namespace(JOURNAL_NAMESPACE).get<JournalEntry>("run");
  return entry !== undefined && !entry.completed;
}
