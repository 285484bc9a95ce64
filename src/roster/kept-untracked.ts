import { z } from "zod";
import type { StateStore, StoreScope } from "../store/state-store.js";

/**
 * People someone stopped tracking by hand (the Slack "Stop tracking" button): reconciliation keeps
 * them untracked instead of tracking them again on its next run, until their HRIS row changes or
 * someone tracks them again. Keyed by canonical profile URL; a few entries, read whole per run.
 */
export const KEPT_UNTRACKED_NAMESPACE = "roster.keptUntracked";

const keptUntrackedSchema = z.object({
  employeeId: z.number().int(),
  /** Who stopped tracking (a Slack user id) and when (ISO time). */
  stoppedBy: z.string().min(1),
  stoppedAt: z.string().min(1),
  /** The person's HRIS row as reconcile first saw it after the stop; a different row ends the hold. */
  rowSignature: z.string().min(1).optional(),
});

export type KeptUntracked = z.infer<typeof keptUntrackedSchema>;

/** Records a stop by hand (inside the caller's transaction when `scope` is a transaction's). */
export function keepUntracked(scope: StoreScope, profileUrl: string, entry: KeptUntracked): Promise<void> {
  return scope.namespace(KEPT_UNTRACKED_NAMESPACE).set(profileUrl, entry);
}

/** Every hold, by profile URL; an entry that does not parse (written by a newer release) is left out. */
export async function loadKeptUntracked(store: StateStore): Promise<Map<string, KeptUntracked>> {
  const held = new Map<string, KeptUntracked>();
  for (const [url, value] of await store.namespace(KEPT_UNTRACKED_NAMESPACE).entries<unknown>()) {
    const parsed = keptUntrackedSchema.safeParse(value);
    if (parsed.success) held.set(url, parsed.data);
  }
  return held;
}
