import type { StateStore, StoreScope } from "../store/state-store.js";

/** Acknowledgements by person reference (`personRef`): later alerts about the person say so. */
export const ACKS_NAMESPACE = "interactive.acks";
/** Snoozes by person reference: no alerts for the person (departures excepted) until `until`. */
export const SNOOZES_NAMESPACE = "interactive.snoozes";

/** How long an acknowledgement is shown on later alerts. */
export const ACK_RETENTION_MS = 90 * 86_400_000;

export interface AckMark {
  readonly by: string;
  readonly at: string;
}
export interface SnoozeMark {
  readonly by: string;
  readonly at: string;
  readonly until: string;
}

/** What the hand-over needs to know of a person. */
export interface PersonMark {
  readonly acknowledged?: AckMark | undefined;
  readonly snoozedUntil?: string | undefined;
}

const isAck = (v: unknown): v is AckMark =>
  typeof (v as AckMark | null)?.by === "string" && typeof (v as AckMark).at === "string";
const isSnooze = (v: unknown): v is SnoozeMark => isAck(v) && typeof (v as SnoozeMark).until === "string";

/** Reads and writes the marks; writes take the caller's transaction scope (the journal commits with them). */
export class PersonMarks {
  constructor(private readonly store: StateStore) {}

  /** The marks of these people that are in force at `nowMs`: two reads, however many people. */
  async lookup(refs: readonly string[], nowMs: number): Promise<ReadonlyMap<string, PersonMark>> {
    const people = [...new Set(refs)];
    const marks = new Map<string, PersonMark>();
    if (people.length === 0) return marks;
    const [acks, snoozes] = await Promise.all([
      this.store.namespace(ACKS_NAMESPACE).getMany<unknown>(people),
      this.store.namespace(SNOOZES_NAMESPACE).getMany<unknown>(people),
    ]);
    for (const ref of people) {
      const ack = acks.get(ref);
      const snooze = snoozes.get(ref);
      const snoozedUntil = isSnooze(snooze) && Date.parse(snooze.until) > nowMs ? snooze.until : undefined;
      const acknowledged = isAck(ack) ? ack : undefined;
      if (snoozedUntil || acknowledged) marks.set(ref, { acknowledged, snoozedUntil });
    }
    return marks;
  }

  static acknowledge(scope: StoreScope, ref: string, mark: AckMark): Promise<void> {
    return scope.namespace(ACKS_NAMESPACE).set(ref, mark, ACK_RETENTION_MS);
  }

  static snooze(scope: StoreScope, ref: string, mark: SnoozeMark, nowMs: number): Promise<void> {
    return scope.namespace(SNOOZES_NAMESPACE).set(ref, mark, Math.max(1, Date.parse(mark.until) - nowMs));
  }

  static async unsnooze(scope: StoreScope, ref: string): Promise<void> {
    await scope.namespace(SNOOZES_NAMESPACE).delete(ref);
  }
}
