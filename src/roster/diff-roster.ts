import { brokenRowMatcher, type HeldArchive } from "./hold-broken-rows.js";
import { IdentityView, type RowSource, rowSource, UnionSet } from "./memory-views.js";
import type { PlanStep, Who } from "./plan-types.js";
import type { Exclusion, RosterPerson, RowProblem } from "./roster-rows.js";
import type { IdentifiedRow, RowIdentity } from "./row-identity.js";

/** A person on the service's roster, keyed by canonical profile URL. */
export interface ServicePerson {
  readonly id: number;
  readonly profileUrl: string;
  readonly tracked: boolean;
  readonly archived: boolean;
  /** The service's display name (the professional network's): names someone the HRIS never listed. */
  readonly name?: string;
}

/** A person the HRIS wants on the roster, tracked or not per `roster.untrackedDepartments`. */
export type DesiredPerson = RosterPerson;

/** The in-scope people of an export and the index the reader built of them (`people[i].index === i`). */
export interface DesiredRoster {
  readonly people: readonly DesiredPerson[];
  readonly byUrl: ReadonlyMap<string, DesiredPerson>;
}

/** The in-scope people as a DesiredRoster: the reader's as it is, a plain list (tests) indexed here. */
export function desiredRoster(desired: DesiredRoster | readonly DesiredPerson[]): DesiredRoster {
  if (!Array.isArray(desired)) return desired as DesiredRoster;
  const people = desired as readonly DesiredPerson[];
  const byUrl = new Map<string, DesiredPerson>();
  for (const p of people) if (!byUrl.has(p.profileUrl)) byUrl.set(p.profileUrl, p);
  return { people, byUrl };
}

/**
 * What the reconcile job remembers between exports (kept in the store by stored-roster-memory).
 * Sets and maps: a run looks up every person of the file in them. Only the two updates below change
 * it: `advanceMemory` (what this export and the service's roster say) and `withPlannedArchiveTimes`
 * (what the plan about to be applied archives, revives or erases).
 */
export interface RosterMemory {
  /** Fingerprint of the last export counted: re-running the same export is not another missing one. */
  readonly lastFingerprint?: string;
  /** When that export was first read: how long the HRIS has not written a new one. */
  readonly exportSeenAt?: string;
  /** Profile URLs seen in any HRIS export: the others came to the service through other doors. */
  readonly seen: ReadonlySet<string>;
  /** Consecutive exports a roster person has been missing from. */
  readonly missing: ReadonlyMap<string, number>;
  /** When each missing person was first missing (the first export without them). */
  readonly missingSince: ReadonlyMap<string, string>;
  /** When each archived person was first seen archived (for the opt-in erase, and "rehire" reasons). */
  readonly archivedAt: ReadonlyMap<string, string>;
  /** Employee id, work email, name and department of each profile URL's last row. */
  readonly identities: ReadonlyMap<string, RowIdentity>;
}

export const EMPTY_MEMORY: RosterMemory = Object.freeze({
  seen: new Set<string>(),
  missing: new Map<string, number>(),
  missingSince: new Map<string, string>(),
  archivedAt: new Map<string, string>(),
  identities: new Map<string, RowIdentity>(),
});

export interface DiffRules {
  readonly archiveUnknown: boolean;
  readonly archiveAfterMissingExports: number;
  readonly eraseArchivedAfterDays?: number | undefined;
}

/** An archive candidate: who, and why (left, terminated, out of scope, from other sources). */
export interface ArchiveCandidate {
  readonly id: number;
  readonly profileUrl: string;
  readonly tracked: boolean;
  readonly missingExports: number;
  readonly who: Who;
  readonly cause: "left" | "terminated" | "out-of-scope" | "unknown";
  readonly detail?: string;
  readonly since?: string;
}

export interface RosterDiff {
  readonly add: readonly DesiredPerson[];
  readonly revive: ReadonlyArray<{
    readonly person: DesiredPerson;
    readonly id: number;
    readonly archivedSince?: string;
  }>;
  readonly track: ReadonlyArray<{ readonly person: DesiredPerson; readonly id: number }>;
  readonly untrack: ReadonlyArray<{ readonly person: DesiredPerson; readonly id: number }>;
  readonly archive: readonly ArchiveCandidate[];
  /** Due for archiving, but their row is still in the file, unusable (hold-broken-rows): not archived this run. */
  readonly held: readonly HeldArchive[];
  /** Missing from the export but not yet for `archiveAfterMissingExports` exports. */
  readonly waiting: number;
  /** On the roster, never in an HRIS export, left alone (`roster.archiveUnknown` off). */
  readonly unknown: number;
  readonly erase: ReadonlyArray<{
    readonly id: number;
    readonly profileUrl: string;
    readonly archivedSince: string;
    readonly who: Who;
  }>;
  readonly currentActive: number;
  readonly currentTracked: number;
  /** Live people on the service that the daemon manages from the HRIS (seen in an export, or archiveUnknown). */
  readonly managedActive: number;
}

/** This export's rows as advanceMemory reads them. */
export interface ExportRows {
  readonly fingerprint: string;
  /** In-scope rows: the reader's `{ people, byUrl }`, or a plain list. */
  readonly desired: DesiredRoster | readonly DesiredPerson[];
  /** Rows known but out of scope: the reader's exclusions, or a plain list. */
  readonly known: ReadonlyMap<string, Exclusion> | readonly IdentifiedRow[];
}

function sourcesOf(file: ExportRows): RowSource[] {
  const desired = desiredRoster(file.desired);
  const known = file.known;
  let knownSource: RowSource;
  if (Array.isArray(known)) {
    const byUrl = new Map<string, IdentifiedRow>();
    for (const row of known as readonly IdentifiedRow[]) if (!byUrl.has(row.profileUrl)) byUrl.set(row.profileUrl, row);
    knownSource = rowSource(byUrl, (row) => row);
  } else knownSource = rowSource(known as ReadonlyMap<string, Exclusion>, (e) => e.person);
  return [rowSource(desired.byUrl, (p) => p), knownSource];
}

/**
 * The memory after this export: counts go up once per new export (fingerprint), reset for people
 * back in it, archive and missing times are noted and row identities remembered. Pure; `now` is
 * passed in. The export's rows are not copied: `seen` and `identities` are views over the memory
 * before and the export's own indexes (memory-views).
 */
export function advanceMemory(
  memory: RosterMemory,
  file: ExportRows,
  current: readonly ServicePerson[],
  now: Date,
): RosterMemory {
  const newFile = memory.lastFingerprint !== file.fingerprint;
  const sources = sourcesOf(file);
  const desired = sources[0] as RowSource;
  const stamp = now.toISOString();
  const missing = new Map<string, number>();
  const missingSince = new Map<string, string>();
  const archivedAt = new Map<string, string>();
  // Service rows not in this export: their remembered identities are kept (they may be archived).
  const notInFile = new Set<string>();
  for (const person of current) {
    const url = person.profileUrl;
    const inFile = desired.has(url);
    if (!inFile) notInFile.add(url);
    if (person.archived) {
      archivedAt.set(url, memory.archivedAt.get(url) ?? stamp);
      continue;
    }
    if (inFile) continue;
    const before = memory.missing.get(url) ?? 0;
    const since = memory.missingSince.get(url) ?? (before === 0 && newFile ? stamp : undefined);
    if (newFile) missing.set(url, before + 1);
    else if (before > 0) missing.set(url, before);
    if (since !== undefined && (newFile || before > 0)) missingSince.set(url, since);
  }
  if (!newFile) {
    return { ...memory, exportSeenAt: memory.exportSeenAt ?? stamp, missing, missingSince, archivedAt };
  }
  return {
    lastFingerprint: file.fingerprint,
    exportSeenAt: stamp,
    seen: new UnionSet(memory.seen, sources),
    missing,
    missingSince,
    archivedAt,
    identities: new IdentityView(memory.identities, sources, notInFile),
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

/** Who a person not in this export is: the memory of their last row, else the service's name. */
function rememberedWho(identity: RowIdentity | undefined, person: ServicePerson): Who {
  const who: { -readonly [K in keyof Who]: Who[K] } = {};
  const name = identity?.name ?? person.name;
  if (name !== undefined) who.name = name;
  if (identity?.employeeId !== undefined) who.employeeId = identity.employeeId;
  if (identity?.department !== undefined) who.department = identity.department;
  return who;
}

/** Who a person of this export is, from their row. */
export function whoOf(person: RosterPerson): Who {
  const who: { -readonly [K in keyof Who]: Who[K] } = { line: person.line };
  if (person.name !== undefined) who.name = person.name;
  if (person.employeeId !== undefined) who.employeeId = person.employeeId;
  if (person.department !== undefined) who.department = person.department;
  return who;
}

/**
 * Compares the wanted roster with the service's (all pages, archived included), by canonical URL.
 * A person the export marks terminated is archived at once (the export says so); anyone else
 * missing waits `archiveAfterMissingExports` exports. An archive candidate whose remembered
 * identity is on one of this file's `brokenRows` is held.
 */
export function diffRoster(input: {
  readonly desired: DesiredRoster | readonly DesiredPerson[];
  /** Valid rows out of scope: a terminated one archives its person now. */
  readonly exclusions?: ReadonlyMap<string, Exclusion>;
  /** This file's row problems: a broken row is not a leaver. */
  readonly brokenRows?: readonly RowProblem[];
  readonly current: readonly ServicePerson[];
  readonly memory: RosterMemory;
  readonly rules: DiffRules;
  readonly now: Date;
}): RosterDiff {
  const { memory, rules, now, current } = input;
  const desired = desiredRoster(input.desired);
  const exclusions = input.exclusions ?? new Map<string, Exclusion>();
  // Which service row each wanted person has (index into `current`, -1: none), by their position
  // in the file: no second index of a million URLs.
  const people = desired.people;
  const match = new Int32Array(people.length).fill(-1);
  let positions: Map<DesiredPerson, number> | undefined;
  const positionOf = (p: DesiredPerson): number => {
    if (people[p.index] === p) return p.index;
    positions ??= new Map(people.map((q, i) => [q, i]));
    return positions.get(p) ?? -1;
  };
  // Service rows not in the file, by URL: should the service hold one URL twice, the live row counts.
  const others = new Map<string, ServicePerson>();
  for (let i = 0; i < current.length; i += 1) {
    const person = current[i] as ServicePerson;
    const wanted = desired.byUrl.get(person.profileUrl);
    if (wanted === undefined) {
      const other = others.get(person.profileUrl);
      if (!other || (other.archived && !person.archived)) others.set(person.profileUrl, person);
      continue;
    }
    const at = positionOf(wanted);
    if (at < 0) continue;
    const before = match[at] as number;
    if (before === -1 || ((current[before] as ServicePerson).archived && !person.archived)) match[at] = i;
  }
  const add: DesiredPerson[] = [];
  const revive: Array<{ person: DesiredPerson; id: number; archivedSince?: string }> = [];
  const track: Array<{ person: DesiredPerson; id: number }> = [];
  const untrack: Array<{ person: DesiredPerson; id: number }> = [];
  let currentActive = 0;
  let currentTracked = 0;
  let managedActive = 0;
  for (let i = 0; i < people.length; i += 1) {
    const person = people[i] as DesiredPerson;
    if (desired.byUrl.get(person.profileUrl) !== person) continue;
    const at = match[i] as number;
    if (at === -1) {
      add.push(person);
      continue;
    }
    const there = current[at] as ServicePerson;
    if (there.archived) {
      // A time noted by this very run (first seen archived now) says nothing about when they left.
      const since = memory.archivedAt.get(person.profileUrl);
      const known = since !== undefined && since !== now.toISOString();
      revive.push(known ? { person, id: there.id, archivedSince: since } : { person, id: there.id });
      continue;
    }
    currentActive += 1;
    managedActive += 1;
    if (there.tracked) currentTracked += 1;
    if (person.tracked && !there.tracked) track.push({ person, id: there.id });
    else if (!person.tracked && there.tracked) untrack.push({ person, id: there.id });
  }

  const archive: ArchiveCandidate[] = [];
  const erase: Array<{ id: number; profileUrl: string; archivedSince: string; who: Who }> = [];
  const held: HeldArchive[] = [];
  const brokenRowsOf = brokenRowMatcher(input.brokenRows ?? [], memory.identities);
  let waiting = 0;
  let unknown = 0;
  const eraseBefore =
    rules.eraseArchivedAfterDays === undefined ? undefined : now.getTime() - rules.eraseArchivedAfterDays * 86_400_000;
  for (const person of others.values()) {
    const url = person.profileUrl;
    const seen = memory.seen.has(url);
    const ours = rules.archiveUnknown || seen;
    if (person.archived) {
      const since = memory.archivedAt.get(url);
      if (ours && eraseBefore !== undefined && since !== undefined && Date.parse(since) <= eraseBefore) {
        erase.push({
          id: person.id,
          profileUrl: url,
          archivedSince: since,
          who: rememberedWho(memory.identities.get(url), person),
        });
      }
      continue;
    }
    currentActive += 1;
    if (person.tracked) currentTracked += 1;
    if (!ours) {
      unknown += 1;
      continue;
    }
    managedActive += 1;
    const exclusion = exclusions.get(url);
    const missingExports = memory.missing.get(url) ?? 0;
    const terminated = exclusion?.reason === "terminated";
    if (!terminated && missingExports < rules.archiveAfterMissingExports) {
      waiting += 1;
      continue;
    }
    const since = memory.missingSince.get(url);
    const base = {
      id: person.id,
      profileUrl: url,
      tracked: person.tracked,
      missingExports,
      who: exclusion ? whoOf(exclusion.person) : rememberedWho(memory.identities.get(url), person),
      ...(since !== undefined ? { since } : {}),
    };
    const candidate: ArchiveCandidate = exclusion
      ? { ...base, cause: exclusion.reason, detail: exclusion.detail }
      : { ...base, cause: seen ? "left" : "unknown" };
    const rows = terminated ? [] : brokenRowsOf(url);
    if (rows.length > 0) held.push({ ...candidate, rows });
    else archive.push(candidate);
  }
  return {
    add,
    revive,
    track,
    untrack,
    archive,
    held,
    waiting,
    unknown,
    erase,
    currentActive,
    currentTracked,
    managedActive,
  };
}
