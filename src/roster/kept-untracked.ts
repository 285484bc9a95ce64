import { createHash } from "node:crypto";
import { z } from "zod";
import type { StateStore, StoreScope } from "../store/state-store.js";
import type { RosterPerson } from "./roster-rows.js";

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

/** One hold, read now (a stop recorded while a run is applying); undefined when there is none. */
export async function keptUntrackedNow(scope: StoreScope, profileUrl: string): Promise<KeptUntracked | undefined> {
  const parsed = keptUntrackedSchema.safeParse(
    await scope.namespace(KEPT_UNTRACKED_NAMESPACE).get<unknown>(profileUrl),
  );
  return parsed.success ? parsed.data : undefined;
}

/**
 * The fields of an HRIS row whose change ends a hold: name, work email (lower-cased: exports change
 * its case between runs), employee id, department, HR title, status, termination date, and whether
 * the row's department is tracked. Not the file's fingerprint: a new export of the same row keeps
 * the hold. A short sha256 of them, stable across releases (the field order is part of it).
 */
export function rowSignature(person: RosterPerson): string {
  const fields = [
    person.name ?? null,
    person.email?.toLowerCase() ?? null,
    person.employeeId ?? null,
    person.department ?? null,
    person.title ?? null,
    person.status ?? null,
    person.terminationDate ?? null,
    person.tracked,
  ];
  return createHash("sha256").update(JSON.stringify(fields)).digest("hex").slice(0, 32);
}

/** The stop a hold records: the same stop when person, who and when are the same. */
export interface HoldStop {
  readonly url: string;
  readonly id: number;
  readonly stoppedBy: string;
  readonly stoppedAt: string;
}

function sameStop(stored: unknown, stop: Omit<HoldStop, "url">): boolean {
  const parsed = keptUntrackedSchema.safeParse(stored);
  return (
    parsed.success &&
    parsed.data.employeeId === stop.id &&
    parsed.data.stoppedBy === stop.stoppedBy &&
    parsed.data.stoppedAt === stop.stoppedAt
  );
}

/**
 * What one reconcile run writes to the holds, in one transaction: row signatures noted on the first
 * run after a stop, and the holds it ended deleted. Each write is made only if the hold is still the
 * stop the run read: a stop by hand recorded again while the run was planning is left as it is.
 */
export async function settleKeptUntracked(
  store: StateStore,
  changes: {
    readonly record?: ReadonlyArray<readonly [string, KeptUntracked]>;
    readonly end?: readonly HoldStop[];
  },
): Promise<void> {
  const record = changes.record ?? [];
  const end = changes.end ?? [];
  if (record.length === 0 && end.length === 0) return;
  await store.transaction(async (scope) => {
    const ns = scope.namespace(KEPT_UNTRACKED_NAMESPACE);
    for (const [url, entry] of record) {
      const stop = { id: entry.employeeId, stoppedBy: entry.stoppedBy, stoppedAt: entry.stoppedAt };
      if (sameStop(await ns.get<unknown>(url), stop)) await ns.set(url, entry);
    }
    for (const stop of end) {
      if (sameStop(await ns.get<unknown>(stop.url), stop)) await ns.delete(stop.url);
    }
  });
}
