import type { RosterPerson, RowProblem } from "./collect-roster-rows.js";
import { brokenRowMatcher, type HeldArchive } from "./hold-broken-rows.js";
import type { PlanStep } from "./plan-types.js";
import { type IdentifiedRow, type RowIdentity, rememberIdentities } from "./row-identity.js";

/** A person on the service's roster, keyed by canonical profile URL. */
export interface ServicePerson {
  readonly id: number;
  readonly profileUrl: string;
  readonly tracked: boolean;
  readonly archived: boolean;
}

/** A person the HRIS wants on the roster, tracked or not per `roster.untrackedDepartments`. */
export type DesiredPerson = RosterPerson;

/**
 * What the reconcile job remembers between files (kept in the store by stored-roster-memory). Sets
 * and maps: a run looks up every person of the file in them. Only the two updates below change it:
 * `advanceMemory` (what this file and the service's roster say) and `withPlannedArchiveTimes`
 * (what the plan about to be applied archives, revives or erases).
 */
export interface RosterMemory {
  /** Fingerprint of the last file counted: re-running the same export is not another missing run. */
  readonly lastFingerprint?: string;
  /** Profile URLs seen in any HRIS file: the others came to the service through other doors. */
  readonly seen: ReadonlySet<string>;
  /** Consecutive files a roster person has been missing from. */
  readonly missing: ReadonlyMap<string, number>;
  /** When each archived person was first seen archived (for the opt-in erase). */
  readonly archivedAt: ReadonlyMap<string, string>;
  /** Employee id and work email of the row each profile URL was last seen on: ties a row whose URL broke to the person. */
  readonly identities: ReadonlyMap<string, RowIdentity>;
}

export const EMPTY_MEMORY: RosterMemory = Object.freeze({
  seen: new Set<string>(),
  missing: new Map<string, number>(),
  archivedAt: new Map<string, string>(),
  identities: new Map<string, RowIdentity>(),
});

export interface DiffRules {
  readonly archiveUnknown: boolean;
  readonly archiveAfterMissingRuns: number;
  readonly eraseArchivedAfterDays?: number | undefined;
}

export interface RosterDiff {
  readonly add: readonly DesiredPerson[];
  readonly revive: ReadonlyArray<{ readonly person: DesiredPerson; readonly id: number }>;
  readonly track: ReadonlyArray<{ readonly person: DesiredPerson; readonly id: number }>;
  readonly untrack: ReadonlyArray<{ readonly person: DesiredPerson; readonly id: number }>;
  readonly archive: ReadonlyArray<{
    readonly id: number;
    readonly profileUrl: string;
    readonly tracked: boolean;
    readonly missingRuns: number;
  }>;
  /** Due for archiving, but their row is still in the file, unusable (hold-broken-rows): not archived this run. */
  readonly held: readonly HeldArchive[];
  /** Missing from the file but not yet for `archiveAfterMissingRuns` files. */
  readonly waiting: number;
  /** On the roster, never in an HRIS file, left alone (`roster.archiveUnknown` off). */
  readonly unknown: number;
  readonly erase: ReadonlyArray<{ readonly id: number; readonly profileUrl: string; readonly archivedSince: string }>;
  readonly currentActive: number;
  readonly currentTracked: number;
}

/**
 * The memory after this file: counts go up once per new file (fingerprint), reset for people back
 * in the file, archive times are noted and row identities remembered. Pure; `now` is passed in.
 */
export function advanceMemory(
  memory: RosterMemory,
  file: {
    readonly fingerprint: string;
    readonly desired: readonly IdentifiedRow[];
    readonly known: readonly IdentifiedRow[];
  },
  current: readonly ServicePerson[],
  now: Date,
): RosterMemory {
  const newFile = memory.lastFingerprint !== file.fingerprint;
  const desired = new Set<string>();
  for (const p of file.desired) desired.add(p.profileUrl);
  const missing = new Map<string, number>();
  for (const person of current) {
    const url = person.profileUrl;
    if (person.archived || desired.has(url)) continue;
    const before = memory.missing.get(url) ?? 0;
    if (newFile) missing.set(url, before + 1);
    else if (before > 0) missing.set(url, before);
  }
  const archivedAt = archiveTimes(memory, current, now);
  if (!newFile) return { ...memory, missing, archivedAt };
  const seen = new Set(memory.seen);
  for (const url of desired) seen.add(url);
  for (const p of file.known) seen.add(p.profileUrl);
  return {
    lastFingerprint: file.fingerprint,
    seen,
    missing,
    archivedAt,
    identities: rememberIdentities(memory.identities, [file.desired, file.known], current),
  };
}

/**
 * The memory to save before a plan is applied: each person the plan archives is archived as of `at`
 * (unless a time is already remembered for their URL), and a person it revives or erases has no
 * archive time any more. An archive that then fails or is cut short does no harm: the next
 * `advanceMemory` keeps archive times only for people the service shows archived. Pure.
 */
export function withPlannedArchiveTimes(memory: RosterMemory, steps: readonly PlanStep[], at: Date): RosterMemory {
  const archivedAt = new Map(memory.archivedAt);
  const stamp = at.toISOString();
  for (const step of steps) {
    if (step.kind === "archive" && !archivedAt.has(step.url)) archivedAt.set(step.url, stamp);
    if (step.kind === "erase" || step.kind === "revive") archivedAt.delete(step.url);
  }
  return { ...memory, archivedAt };
}

/** When each archived person on the service was first seen archived: remembered, else now. */
function archiveTimes(memory: RosterMemory, current: readonly ServicePerson[], now: Date): Map<string, string> {
  const archivedAt = new Map<string, string>();
  const stamp = now.toISOString();
  for (const person of current) {
    if (person.archived) archivedAt.set(person.profileUrl, memory.archivedAt.get(person.profileUrl) ?? stamp);
  }
  return archivedAt;
}

/**
 * Compares the wanted roster with the service's (all pages, archived included), by canonical URL.
 * An archive candidate whose remembered identity is on one of this file's `brokenRows` is held.
 */
export function diffRoster(input: {
  readonly desired: readonly DesiredPerson[];
  /** This file's row problems: a broken row is not a leaver. */
  readonly brokenRows?: readonly RowProblem[];
  readonly current: readonly ServicePerson[];
  readonly memory: RosterMemory;
  readonly rules: DiffRules;
  readonly now: Date;
}): RosterDiff {
  const { desired, memory, rules, now } = input;
  const byUrl = new Map<string, ServicePerson>();
  for (const person of input.current) {
    const other = byUrl.get(person.profileUrl);
    // Should the service hold one URL twice, the live row is the one that counts.
    if (!other || (other.archived && !person.archived)) byUrl.set(person.profileUrl, person);
  }
  const wanted = new Set(desired.map((p) => p.profileUrl));
  const add: DesiredPerson[] = [];
  const revive: Array<{ person: DesiredPerson; id: number }> = [];
  const track: Array<{ person: DesiredPerson; id: number }> = [];
  const untrack: Array<{ person: DesiredPerson; id: number }> = [];
  for (const person of desired) {
    const there = byUrl.get(person.profileUrl);
    if (!there) add.push(person);
    else if (there.archived) revive.push({ person, id: there.id });
    else if (person.tracked && !there.tracked) track.push({ person, id: there.id });
    else if (!person.tracked && there.tracked) untrack.push({ person, id: there.id });
  }
  const archive: Array<{ id: number; profileUrl: string; tracked: boolean; missingRuns: number }> = [];
  const erase: Array<{ id: number; profileUrl: string; archivedSince: string }> = [];
  const held: HeldArchive[] = [];
  const brokenRowsOf = brokenRowMatcher(input.brokenRows ?? [], memory.identities);
  let waiting = 0;
  let unknown = 0;
  let currentActive = 0;
  let currentTracked = 0;
  const eraseBefore =
    rules.eraseArchivedAfterDays === undefined ? undefined : now.getTime() - rules.eraseArchivedAfterDays * 86_400_000;
  for (const person of byUrl.values()) {
    const ours = rules.archiveUnknown || memory.seen.has(person.profileUrl);
    if (person.archived) {
      const since = memory.archivedAt.get(person.profileUrl);
      if (
        ours &&
        eraseBefore !== undefined &&
        since !== undefined &&
        Date.parse(since) <= eraseBefore &&
        !wanted.has(person.profileUrl)
      ) {
        erase.push({ id: person.id, profileUrl: person.profileUrl, archivedSince: since });
      }
      continue;
    }
    currentActive += 1;
    if (person.tracked) currentTracked += 1;
    if (wanted.has(person.profileUrl)) continue;
    if (!ours) {
      unknown += 1;
      continue;
    }
    const missingRuns = memory.missing.get(person.profileUrl) ?? 0;
    if (missingRuns < rules.archiveAfterMissingRuns) {
      waiting += 1;
      continue;
    }
    const candidate = { id: person.id, profileUrl: person.profileUrl, tracked: person.tracked, missingRuns };
    const rows = brokenRowsOf(person.profileUrl);
    if (rows.length > 0) held.push({ ...candidate, rows });
    else archive.push(candidate);
  }
  return { add, revive, track, untrack, archive, held, waiting, unknown, erase, currentActive, currentTracked };
}
