import type { DesiredPerson, RosterDiff } from "./diff-roster.js";
import { heldFindings } from "./hold-broken-rows.js";
import type { DeferredItem, Finding, PlanStep, ReconcilePlan } from "./plan-types.js";
import { type DeferReason, type SeatBudget, seatRoom } from "./seat-budget.js";

export const BULK_CHUNK = 50;

export interface PlanRules {
  readonly priorityDepartments: readonly string[];
  readonly maxArchivePercent: number;
  readonly maxArchiveCount: number;
  readonly allowMassArchive: boolean;
}

type SeatTaker =
  | { change: "revive"; person: DesiredPerson; id: number }
  | { change: "track"; person: DesiredPerson; id: number }
  | { change: "add"; person: DesiredPerson };

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
  return {
    steps: [],
    seatDelta: 0,
    monthlyCostDeltaUsd: 0,
    deferred: [],
    findings: [
      {
        kind: "billing-blocked",
        severity: "error",
        message: `the service refused access (${code ?? "402"}): no active subscription or trial; nothing was changed`,
      },
    ],
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

  for (const { person, id } of diff.untrack) steps.push({ kind: "untrack", id, url: person.profileUrl });
  const archiveCount = diff.archive.length;
  const percent = diff.currentActive === 0 ? 0 : (archiveCount / diff.currentActive) * 100;
  const massive = archiveCount > rules.maxArchiveCount || percent > rules.maxArchivePercent;
  let guardedArchives = 0;
  if (archiveCount > 0 && massive && !rules.allowMassArchive) {
    guardedArchives = archiveCount;
    findings.push({
      kind: "mass-archive-guard",
      severity: "error",
      message:
        `would archive ${archiveCount} of ${diff.currentActive} people (${percent.toFixed(1)} %), over the limit of ` +
        `${rules.maxArchiveCount} people or ${rules.maxArchivePercent} %; nobody was archived. Check the export, then run ` +
        "with --allow-mass-archive (or set roster.approveMassArchive) to proceed.",
    });
  } else {
    for (const a of diff.archive) steps.push({ kind: "archive", id: a.id, url: a.profileUrl, tracked: a.tracked });
  }
  findings.push(...heldFindings(diff.held));
  for (const e of diff.erase) steps.push({ kind: "erase", id: e.id, url: e.profileUrl });

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
      line: t.person.line,
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
    if (t.change === "revive")
      steps.push({ kind: "revive", tracked: t.person.tracked, id: t.id, url: t.person.profileUrl });
  }
  for (const t of all) if (t.change === "track") steps.push({ kind: "track", id: t.id, url: t.person.profileUrl });
  for (const tracked of [true, false]) {
    const urls = all.filter((t) => t.change === "add" && t.person.tracked === tracked).map((t) => t.person.profileUrl);
    for (const part of chunk(urls, BULK_CHUNK)) steps.push({ kind: "add", tracked, urls: part });
  }
  const seatDelta = taken.length - released;
  return {
    steps,
    seatDelta,
    monthlyCostDeltaUsd: Math.round(seatDelta * budget.perSeatUsd * 100) / 100,
    deferred,
    findings,
    guardedArchives,
    heldForBrokenRows: diff.held.length,
    waitingToArchive: diff.waiting,
    unknownLeftAlone: diff.unknown,
  };
}
