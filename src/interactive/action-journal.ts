import { z } from "zod";
import type { StateStore, StoreScope } from "../store/state-store.js";
import type { Press } from "./interaction-payload.js";
import { PLAN_PRESS_KINDS, type PlanPress } from "./plan-press.js";

/**
 * Every press, journaled (namespace `interactive.journal`, key = the press id): written once
 * before the envelope is acked, marked applied in the transaction of the state it changes, so a
 * duplicate envelope finds it and a crash leaves it pending for the next start.
 */
export const JOURNAL_NAMESPACE = "interactive.journal";
export const JOURNAL_RETENTION_MS = 90 * 86_400_000;

export const OUTCOMES = ["pending", "applied", "refused", "failed"] as const;
export type ActionOutcome = (typeof OUTCOMES)[number];

/** What the journal holds: a press on a person's alert, or Approve of a held reconcile plan. */
export type JournaledPress = Press | PlanPress;

export interface JournalEntry<P extends JournaledPress = Press> {
  readonly id: string;
  readonly press: P;
  readonly outcome: ActionOutcome;
  /** When the press was journaled (ISO). */
  readonly journaledAt: string;
  readonly appliedAt?: string | undefined;
  /** What changed ("tracked:false on employee 12", "snoozed until …"), or why it was refused or failed. */
  readonly detail?: string | undefined;
}

const pressFields = { userId: z.string(), channel: z.string(), messageTs: z.string(), actionTs: z.string() };
const entrySchema = z.object({
  id: z.string(),
  press: z.union([
    z.looseObject({
      kind: z.enum(["ack", "snooze", "unsnooze", "untrack"]),
      ...pressFields,
      target: z.looseObject({ personRef: z.string(), changeKey: z.string() }),
    }),
    z.looseObject({ kind: z.enum(["review-plan", "approve-plan"]), ...pressFields, planId: z.string() }),
  ]),
  outcome: z.enum(OUTCOMES),
  journaledAt: z.string(),
  appliedAt: z.string().optional(),
  detail: z.string().optional(),
});

function parseEntry(value: unknown): JournalEntry<JournaledPress> | undefined {
  // The press was validated when it came in; the check here only guards against another release's format.
  return entrySchema.safeParse(value).success ? (value as JournalEntry<JournaledPress>) : undefined;
}

/** A press on a person's alert (not a plan's Review or Approve). */
export function isPersonEntry(entry: JournalEntry<JournaledPress>): entry is JournalEntry<Press> {
  return !PLAN_PRESS_KINDS.has(entry.press.kind);
}

export function isPlanEntry(entry: JournalEntry<JournaledPress>): entry is JournalEntry<PlanPress> {
  return PLAN_PRESS_KINDS.has(entry.press.kind);
}

export class ActionJournal {
  constructor(private readonly store: StateStore) {}

  async get(id: string): Promise<JournalEntry<JournaledPress> | undefined> {
    return parseEntry(await this.store.namespace(JOURNAL_NAMESPACE).get<unknown>(id));
  }

  put(entry: JournalEntry<JournaledPress>, scope: StoreScope = this.store): Promise<void> {
    return scope.namespace(JOURNAL_NAMESPACE).set(entry.id, entry, JOURNAL_RETENTION_MS);
  }

  /** Every entry, oldest first. */
  async all(): Promise<Array<JournalEntry<JournaledPress>>> {
    const entries = await this.store.namespace(JOURNAL_NAMESPACE).entries<unknown>();
    return entries
      .flatMap(([, value]) => {
        const entry = parseEntry(value);
        return entry ? [entry] : [];
      })
      .sort((a, b) => a.journaledAt.localeCompare(b.journaledAt));
  }

  /** Presses on people journaled but not applied (a crash): `recover` applies them. */
  async pending(): Promise<JournalEntry[]> {
    return (await this.all()).filter(isPersonEntry).filter((entry) => entry.outcome === "pending");
  }

  /** Approvals of plans journaled but not settled (a crash): the claim decides whether one still applies. */
  async pendingApprovals(): Promise<Array<JournalEntry<PlanPress>>> {
    return (await this.all()).filter(isPlanEntry).filter((entry) => entry.outcome === "pending");
  }
}
