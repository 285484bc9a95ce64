import { z } from "zod";
import type { StateStore, StoreScope } from "../store/state-store.js";
import type { Press } from "./interaction-payload.js";

/**
 * Every press, journaled (namespace `interactive.journal`, key = the press id): written once
 * before the envelope is acked, marked applied in the transaction of the state it changes, so a
 * duplicate envelope finds it and a crash leaves it pending for the next start.
 */
export const JOURNAL_NAMESPACE = "interactive.journal";
export const JOURNAL_RETENTION_MS = 90 * 86_400_000;

export const OUTCOMES = ["pending", "applied", "refused", "failed"] as const;
export type ActionOutcome = (typeof OUTCOMES)[number];

export interface JournalEntry {
  readonly id: string;
  readonly press: Press;
  readonly outcome: ActionOutcome;
  /** When the press was journaled (ISO). */
  readonly journaledAt: string;
  readonly appliedAt?: string | undefined;
  /** What changed ("tracked:false on employee 12", "snoozed until …"), or why it was refused or failed. */
  readonly detail?: string | undefined;
}

const entrySchema = z.object({
  id: z.string(),
  press: z.looseObject({
    kind: z.enum(["ack", "snooze", "unsnooze", "untrack"]),
    userId: z.string(),
    channel: z.string(),
    messageTs: z.string(),
    actionTs: z.string(),
    target: z.looseObject({ personRef: z.string(), changeKey: z.string() }),
  }),
  outcome: z.enum(OUTCOMES),
  journaledAt: z.string(),
  appliedAt: z.string().optional(),
  detail: z.string().optional(),
});

function parseEntry(value: unknown): JournalEntry | undefined {
  // The press was validated when it came in; the check here only guards against another release's format.
  return entrySchema.safeParse(value).success ? (value as JournalEntry) : undefined;
}

export class ActionJournal {
  constructor(private readonly store: StateStore) {}

  async get(id: string): Promise<JournalEntry | undefined> {
    return parseEntry(await this.store.namespace(JOURNAL_NAMESPACE).get<unknown>(id));
  }

  put(entry: JournalEntry, scope: StoreScope = this.store): Promise<void> {
    return scope.namespace(JOURNAL_NAMESPACE).set(entry.id, entry, JOURNAL_RETENTION_MS);
  }

  /** Every entry, oldest first. */
  async all(): Promise<JournalEntry[]> {
    const entries = await this.store.namespace(JOURNAL_NAMESPACE).entries<unknown>();
    return entries
      .flatMap(([, value]) => {
        const entry = parseEntry(value);
        return entry ? [entry] : [];
      })
      .sort((a, b) => a.journaledAt.localeCompare(b.journaledAt));
  }

  async pending(): Promise<JournalEntry[]> {
    return (await this.all()).filter((entry) => entry.outcome === "pending");
  }
}
