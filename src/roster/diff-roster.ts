import type { RosterPerson, RowProblem } from "./collect-roster-rows.js";
import { brokenRowMatcher, type HeldArchive } from "./hold-broken-rows.js";
import { type IdentifiedRow, type RowIdentity, rememberIdentities } from "./row-identity.js";

/** A person on the service's roster, keyed by canonical profile URL. */
export interface ServicePerson {
  readonly id: number;
  readonly profileUrl: string;
  readonly tracked: boolean;
  readonly archived: boolean;
}

/** A person the HRIS wants on the roster, tracked or not per `roster.untrackedDepartments`. */
export interface DesiredPerson extends RosterPerson {
  readonly tracked: boolean;
}

/** What the reconcile job remembers between files (kept in the store, namespace `roster.memory`). */
export interface RosterMemory {
  /** Fingerprint of the last file counted: re-running the same export is not another missing run. */
  readonly lastFingerprint?: string;
  /** Profile URLs seen in any HRIS file: the others came to the service through other doors. */
  readonly seen: Readonly<Record<string, true>>;
  /** Consecutive files a roster person has been missing from. */
  readonly missing: Readonly<Record<string, number>>;
  /** When each archived person was first seen archived (for the opt-in erase). */
  readonly archivedAt: Readonly<Record<string, string>>;
  /**
   * Employee id and work email of the row each profile URL was last seen on: ties a row whose URL
   * broke to the person. Optional: memories saved before it existed read as knowing no one.
   */
  readonly identities?: Readonly<Record<string, RowIdentity>>;
}

export const EMPTY_MEMORY: RosterMemory = { seen: {}, missing: {}, archivedAt: {} };

export interface DiffRules {
  readonly untrackedDepartments: readonly string[];
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

/** Marks each HRIS person tracked or untracked by department. */
export function desiredPeople(
  people: readonly RosterPerson[],
  untrackedDepartments: readonly string[],
): DesiredPerson[] {
  const untracked = new Set(untrackedDepartments.map((d) => d.trim().toLowerCase()));
  return people.map((p) => ({ ...p, tracked: !untracked.has(p.department?.trim().toLowerCase() ?? "\u0000") }));
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
  const seen: Record<string, true> = { ...memory.seen };
  if (newFile) for (const p of [...file.desired, ...file.known]) seen[p.profileUrl] = true;
  const desired = new Set(file.desired.map((p) => p.profileUrl));
  const missing: Record<string, number> = {};
  const archivedAt: Record<string, string> = {};
  for (const person of current) {
    const url = person.profileUrl;
    if (person.archived) {
      archivedAt[url] = memory.archivedAt[url] ?? now.toISOString();
      continue;
    }
    if (desired.has(url)) continue;
    const before = memory.missing[url] ?? 0;
    if (newFile || before > 0) missing[url] = newFile ? before + 1 : before;
  }
  const identities = newFile
    ? rememberIdentities(memory.identities ?? {}, [...file.desired, ...file.known], current)
    : (memory.identities ?? {});
  return { lastFingerprint: file.fingerprint, seen, missing, archivedAt, identities };
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
  const brokenRowsOf = brokenRowMatcher(input.brokenRows ?? [], memory.identities ?? {});
  let waiting = 0;
  let unknown = 0;
  let currentActive = 0;
  let currentTracked = 0;
  const eraseBefore =
    rules.eraseArchivedAfterDays === undefined ? undefined : now.getTime() - rules.eraseArchivedAfterDays * 86_400_000;
  for (const person of byUrl.values()) {
    const ours = memory.seen[person.profileUrl] === true || rules.archiveUnknown;
    if (person.archived) {
      const since = memory.archivedAt[person.profileUrl];
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
    const missingRuns = memory.missing[person.profileUrl] ?? 0;
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
