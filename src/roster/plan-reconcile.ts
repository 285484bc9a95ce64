import { type ArchiveCandidate, type DesiredPerson, type RosterDiff, whoOf } from "./diff-roster.js";
import { heldFindings } from "./hold-broken-rows.js";
import type {
  DeferredItem,
  Finding,
  GuardHold,
  GuardLift,
  Named,
  PlanStep,
  ReconcilePlan,
  StepReason,
} from "./plan-types.js";
import { describeWho } from "./plan-words.js";
import { type DeferReason, type SeatBudget, seatRoom } from "./seat-budget.js";

export const BULK_CHUNK = 50;

export interface PlanRules {
  readonly priorityDepartments: readonly string[];
  readonly maxArchivePercent: number;
  readonly maxArchiveCount: number;
  readonly allowMassArchive: boolean;
  /** Named in an erase step's reason ("erased after N days archived"). */
  readonly eraseArchivedAfterDays?: number | undefined;
}

type SeatTaker =
  | { change: "revive"; person: DesiredPerson; id: number; archivedSince?: string }
  | { change: "track"; person: DesiredPerson; id: number }
  | { change: "add"; person: DesiredPerson };

/** Why an archive is planned, from the diff's cause. */
function archiveReason(a: ArchiveCandidate): StepReason {
  const since = a.since === undefined ? {} : { since: a.since };
  if (a.cause === "terminated") return { why: "terminated", detail: a.detail ?? "terminated" };
  if (a.cause === "out-of-scope") {
    return { why: "out-of-scope", detail: a.detail ?? "out of scope", missingExports: a.missingExports, ...since };
  }
  return { why: a.cause, missingExports: a.missingExports, ...since };
}

function archiveStep(a: ArchiveCandidate): Extract<PlanStep, { kind: "archive" }> {
  return { kind: "archive", id: a.id, url: a.profileUrl, tracked: a.tracked, who: a.who, reason: archiveReason(a) };
}

function named(t: SeatTaker): Named {
  const reason: StepReason =
    t.change === "add"
      ? { why: "joiner" }
      : t.change === "track"
        ? { why: "tracked-department", ...(t.person.department ? { department: t.person.department } : {}) }
        : { why: "rehire", ...(t.archivedSince ? { archivedSince: t.archivedSince } : {}) };
  return { url: t.person.profileUrl, who: whoOf(t.person), reason };
}

const GUARD_NAMES = 10;

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Priority order when seats are capped: `priorityDepartments` in order, then file order. */
export function byPriority(priorityDepartments: readonly string[]): (a: DesiredPerson, b: DesiredPerson) => number {
  const rank = new Map(priorityDepartments.map((d, i) => [d.trim().toLowerCase(), i]));
  const of = (p: DesiredPerson) => rank.get(p.department?.trim().toLowerCase() ?? "") ?? rank.size;
  return (a, b) => of(a) - of(b) || a.index - b.index;
}

/**
 * The plan of a run the service refused to be read (a 402 on the read calls, with `code`): no
 * step, and a finding saying that nothing was changed.
 */
export function refusedPlan(code: string | undefined): ReconcilePlan {
  return emptyPlan({
    kind: "billing-blocked",
    severity: "error",
    message: `the service refused access (${code ?? "402"}): no active subscription or trial; nothing was changed`,
  });
}

/** A plan with no step, only a finding. */
export function emptyPlan(finding: Finding): ReconcilePlan {
  return {
    steps: [],
    seatDelta: 0,
    monthlyCostDeltaUsd: 0,
    deferred: [],
    findings: [finding],
    guardedArchives: 0,
    heldForBrokenRows: 0,
    waitingToArchive: 0,
    unknownLeftAlone: 0,
  };
}

/** Turns a diff and a seat budget into ordered steps, within every cap, with the rest deferred. */
export function planReconcile(input: {
  readonly diff: RosterDiff;
  readonly budget: SeatBudget;
  readonly rules: PlanRules;
}): ReconcilePlan {
  const { diff, budget, rules } = input;
  const findings: Finding[] = [];
  const deferred: DeferredItem[] = [];
  const steps: PlanStep[] = [];

  for (const { person, id } of diff.untrack) {
    const department = person.department ? { department: person.department } : {};
    steps.push({
      kind: "untrack",
      id,
      url: person.profileUrl,
      who: whoOf(person),
      reason: { why: "untracked-department", ...department },
    });
  }
  // The guard measures against the people the daemon manages from the HRIS export, not the whole
  // service roster: 14 of 34 people from the file is 41 %, whatever else is on the service.
  // Archives read best by name (the service lists its roster newest first).
  const archives = [...diff.archive].sort(
    (a, b) =>
      (a.who.name ?? "\uffff").localeCompare(b.who.name ?? "\uffff") || a.profileUrl.localeCompare(b.profileUrl),
  );
  const archiveCount = archives.length;
  const managed = diff.managedActive;
  const percent = managed === 0 ? 0 : (archiveCount / managed) * 100;
  const massive = archiveCount > rules.maxArchiveCount || percent > rules.maxArchivePercent;
  let guardedArchives = 0;
  let guard: GuardHold | undefined;
  if (archiveCount > 0 && massive && !rules.allowMassArchive) {
    guardedArchives = archiveCount;
    const people = archives.map((a) => {
      const { kind: _kind, ...rest } = archiveStep(a);
      return rest;
    });
    guard = { managed, percent: Math.round(percent * 10) / 10, people };
    const shown = people.slice(0, GUARD_NAMES).map((p) => describeWho(p.who, p.url));
    const more = people.length > GUARD_NAMES ? `, and ${people.length - GUARD_NAMES} more (see --json)` : "";
    findings.push({
      kind: "mass-archive-guard",
      severity: "error",
      message:
        `would archive ${archiveCount} of the ${managed} people managed from the HRIS export (${percent.toFixed(1)} %), over the limit of ` +
        `${rules.maxArchiveCount} people or ${rules.maxArchivePercent} %; nobody was archived. Who: ${shown.join("; ")}${more}. Check the export, then run ` +
        "with --allow-mass-archive (or set roster.approveMassArchive) to proceed.",
    });
  } else {
    for (const a of archives) steps.push(archiveStep(a));
  }
  // Approved (the flag or the config): said in the report, the ops post and the journal.
  const guardLifted: GuardLift | undefined =
    archiveCount > 0 && massive && rules.allowMassArchive
      ? {
          archives: archiveCount,
          managed,
          percent: Math.round(percent * 10) / 10,
          maxArchiveCount: rules.maxArchiveCount,
          maxArchivePercent: rules.maxArchivePercent,
        }
      : undefined;
  findings.push(...heldFindings(diff.held));
  for (const e of diff.erase) {
    const days = rules.eraseArchivedAfterDays ?? 0;
    steps.push({
      kind: "erase",
      id: e.id,
      url: e.profileUrl,
      who: e.who,
      reason: { why: "erase", archivedSince: e.archivedSince, days },
    });
  }

  const released = diff.untrack.length + steps.filter((s) => s.kind === "archive" && s.tracked).length;
  const trackedAfter = diff.currentTracked - released;
  const order = byPriority(rules.priorityDepartments);
  const takers: SeatTaker[] = [
    ...diff.revive.filter((r) => r.person.tracked).map((r) => ({ change: "revive" as const, ...r })),
    ...diff.track.map((t) => ({ change: "track" as const, ...t })),
    ...diff.add.filter((p) => p.tracked).map((person) => ({ change: "add" as const, person })),
  ].sort((a, b) => order(a.person, b.person));
  const free: SeatTaker[] = [
    ...diff.revive.filter((r) => !r.person.tracked).map((r) => ({ change: "revive" as const, ...r })),
    ...diff.add.filter((p) => !p.tracked).map((person) => ({ change: "add" as const, person })),
  ];
  const defer = (t: SeatTaker, reason: DeferReason) =>
    deferred.push({
      url: t.person.profileUrl,
      who: whoOf(t.person),
      change: t.change,
      tracked: t.person.tracked,
      reason,
    });

  let taken: SeatTaker[] = [];
  let freeTaken: SeatTaker[] = [];
  if (!budget.addsAllowed) {
    const reason = budget.blockReason ?? "subscription-inactive";
    for (const t of [...takers, ...free]) defer(t, reason);
    if (takers.length + free.length > 0) {
      findings.push({
        kind: "billing-blocked",
        severity: "error",
        message:
          reason === "charge-failed"
            ? `a seat charge failed: no one can be added until a payment clears; ${takers.length + free.length} changes deferred`
            : `no active subscription or trial (plan status ${budget.planStatus ?? "unknown"}): no adds, revives or tracking`,
      });
    }
  } else {
    const room = seatRoom(budget, trackedAfter);
    taken = takers.slice(0, room.left);
    freeTaken = free;
    const rest = takers.slice(taken.length);
    for (const t of rest) defer(t, room.reason ?? "max-seats");
    if (rest.length > 0) {
      findings.push({
        kind: "capped",
        severity: "warning",
        message: `${rest.length} tracked changes deferred: ${room.reason} leaves room for ${taken.length}`,
      });
    }
  }
  const all = [...taken, ...freeTaken];
  for (const t of all) {
    if (t.change === "revive") steps.push({ kind: "revive", tracked: t.person.tracked, id: t.id, ...named(t) });
  }
  for (const t of all) if (t.change === "track") steps.push({ kind: "track", id: t.id, ...named(t) });
  for (const tracked of [true, false]) {
    const people = all.filter((t) => t.change === "add" && t.person.tracked === tracked).map(named);
    for (const part of chunk(people, BULK_CHUNK)) steps.push({ kind: "add", tracked, people: part });
  }
  const seatDelta = taken.length - released;
  return {
    steps,
    seatDelta,
    monthlyCostDeltaUsd: Math.round(seatDelta * budget.perSeatUsd * 100) / 100,
    deferred,
    findings,
    guardedArchives,
    ...(guard ? { guard } : {}),
    ...(guardLifted ? { guardLifted } : {}),
    heldForBrokenRows: diff.held.length,
    waitingToArchive: diff.waiting,
    unknownLeftAlone: diff.unknown,
  };
}
