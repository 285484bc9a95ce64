import type { Refusal, StepFailure } from "./apply-plan.js";
import type { DeferredItem, StepKind } from "./plan-types.js";
import { collapse, day, describeWho, endedHoldLine, keptLine } from "./plan-words.js";
import type { HeldPlanSummary, ReconcileReport, ReportStep } from "./report.js";
import { problemPlace, ROW_ERROR_REASONS } from "./roster-rows.js";

/** Longest list a text report prints of one kind; `--json` has them all. */
export const TEXT_LIST_LIMIT = 25;

const KINDS: readonly StepKind[] = ["add", "revive", "track", "untrack", "archive", "erase"];

function usd(value: number): string {
  return `${value < 0 ? "-" : "+"}${Math.abs(value).toFixed(2)} USD/month`;
}

export function stepLine(s: ReportStep): string {
  const untracked = s.tracked === false && (s.change === "add" || s.change === "revive") ? " [untracked]" : "";
  const line = s.who.line === undefined ? "" : `, line ${s.who.line}`;
  return `${describeWho(s.who, s.url)}${untracked} - ${s.why}${line}`;
}

export function refusalLine(r: Refusal): string {
  return `${r.change} ${describeWho(r.who, r.url)}: ${r.known ? "" : "UNKNOWN REASON "}${r.reason}: ${r.message}`;
}

export function failureLine(f: StepFailure): string {
  return `${f.change} ${describeWho(f.who, f.url)}: ${f.message}`;
}

export function deferredLine(d: DeferredItem): string {
  return `${d.change} ${describeWho(d.who ?? {}, d.url)}: ${d.reason}`;
}

/** The plan's people by change, each list collapsed to `limit`. */
export function stepSections(steps: readonly ReportStep[], limit: number): Array<{ kind: StepKind; lines: string[] }> {
  const out: Array<{ kind: StepKind; lines: string[] }> = [];
  for (const kind of KINDS) {
    const of = steps.filter((s) => s.change === kind);
    if (of.length > 0) out.push({ kind, lines: collapse(of.map(stepLine), limit) });
  }
  return out;
}

/** A readable report for stdout and `--dry-run`: counts, then every list named and collapsed. */
export function renderReportText(r: ReconcileReport, limit = TEXT_LIST_LIMIT): string {
  const lines: string[] = [];
  const indent = (items: readonly string[]) => items.map((item) => `    ${item}`);
  lines.push(`${r.dryRun ? "Reconcile plan (dry run, nothing changed)" : "Reconcile report"}: ${r.file}`);
  if (r.export) {
    const e = r.export;
    const first = e.newExport
      ? "new export, first read now"
      : `same export as before, first read ${day(e.firstReadAt)}`;
    lines.push(`  export: written ${day(e.modifiedAt)}, ${first}${e.stale ? `, UNCHANGED FOR ${e.ageDays} DAYS` : ""}`);
  }
  if (r.source) lines.push(`  pulled from ${r.source.type}: ${sourceFacts(r.source.facts)}`);
  lines.push(`  rows read ${r.rows.read}, in scope ${r.rows.inScope}`);
  if (r.mapping) lines.push(`  read as ${r.mapping.title}: ${r.mapping.how}`);
  for (const [reason, n] of Object.entries(r.rows.byReason)) lines.push(`  rows ${reason.padEnd(14)} ${n}`);
  for (const notice of r.notices) lines.push(`  note: ${notice}`);
  lines.push(
    `  billing: ${r.billing.state} (plan ${r.billing.planStatus ?? "unknown"}, ${r.billing.perSeatUsd} USD/seat)`,
  );
  lines.push("");
  lines.push(`  change      planned${r.applied ? "   done" : ""}`);
  const done: Record<string, number | undefined> = r.applied
    ? {
        add: r.applied.addedTracked + r.applied.addedUntracked,
        revive: r.applied.revived,
        track: r.applied.tracked,
        untrack: r.applied.untracked,
        archive: r.applied.archived,
        erase: r.applied.erased,
      }
    : {};
  for (const [kind, n] of Object.entries(r.planned)) {
    lines.push(`  ${kind.padEnd(10)} ${String(n).padStart(8)}${r.applied ? String(done[kind] ?? 0).padStart(7) : ""}`);
  }
  if (r.applied) {
    const unconfirmed = r.applied.unconfirmed > 0 ? `, unconfirmed ${r.applied.unconfirmed} (answer lost)` : "";
    lines.push(
      `  added tracked ${r.applied.addedTracked}, untracked ${r.applied.addedUntracked}, already there ${r.applied.alreadyPresent}${unconfirmed}`,
    );
  }
  lines.push(`  seat delta ${r.seatDelta >= 0 ? "+" : ""}${r.seatDelta} (${usd(r.monthlyCostDeltaUsd)})`);
  if (r.heldForBrokenRows > 0)
    lines.push(`  archives held for broken rows: ${r.heldForBrokenRows} (still in the file; see the warnings)`);
  if (r.waitingToArchive > 0)
    lines.push(`  missing from this export, archived after more missing exports: ${r.waitingToArchive}`);
  if (r.unknownLeftAlone > 0) lines.push(`  on the roster from other sources, left alone: ${r.unknownLeftAlone}`);
  if (r.keptUntracked.length > 0) lines.push(`  kept untracked (stopped in Slack): ${r.keptUntracked.length}`);
  if (r.holdsEnded.length > 0) {
    lines.push(`  holds ${r.dryRun ? "that would end" : "ended"} (stopped in Slack): ${r.holdsEnded.length}`);
  }
  if (r.deferred.total > 0) {
    const why = Object.entries(r.deferred.byReason)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ");
    lines.push(`  deferred to a later run: ${r.deferred.total} (${why})`);
    lines.push(...indent(collapse(r.deferred.items.map(deferredLine), limit)));
  }
  if (r.retryAfterSeconds !== undefined) lines.push(`  the service allows more adds in ${r.retryAfterSeconds} s`);
  for (const f of r.findings) lines.push(`  ${f.severity.toUpperCase()}: ${f.message}`);
  for (const section of stepSections(r.steps, limit)) {
    lines.push(`  ${section.kind} (${r.planned[section.kind]}):`);
    lines.push(...indent(section.lines));
  }
  if (r.keptUntracked.length > 0) {
    lines.push(`  kept untracked (stopped in Slack) (${r.keptUntracked.length}):`);
    lines.push(...indent(collapse(r.keptUntracked.map(keptLine), limit)));
  }
  if (r.holdsEnded.length > 0) {
    lines.push(`  holds ${r.dryRun ? "that would end" : "ended"} (${r.holdsEnded.length}):`);
    lines.push(...indent(collapse(r.holdsEnded.map(endedHoldLine), limit)));
  }
  if (r.guard) {
    lines.push(
      `  held by the mass-archive guard (${r.guard.people.length} of ${r.guard.managed} managed, ${r.guard.percent} %):`,
    );
    lines.push(...indent(collapse(r.guard.people.map(stepLine), limit)));
  }
  if (r.refusals.length > 0) {
    lines.push(`  refused by the service (${r.refusals.length}):`);
    lines.push(...indent(collapse(r.refusals.map(refusalLine), limit)));
  }
  if (r.failures.length > 0) {
    lines.push(`  failed (${r.failures.length}):`);
    lines.push(...indent(collapse(r.failures.map(failureLine), limit)));
  }
  const errors = r.rows.problems.filter((p) => ROW_ERROR_REASONS.has(p.reason));
  if (errors.length > 0 && r.rows.reported) {
    lines.push(`  rows to fix (${errors.length}):`);
    lines.push(
      ...indent(
        collapse(
          errors.map((p) => `${problemPlace(p)}: ${p.reason}: ${p.message}`),
          limit,
        ),
      ),
    );
  } else if (errors.length > 0) {
    lines.push(`  rows to fix: ${errors.length}, reported when this export was first read (see --json)`);
  }
  if (r.approvedInSlack) {
    const a = r.approvedInSlack;
    lines.push(
      `  approved in Slack: plan ${a.planId} by ${a.userName ? `${a.userName} (${a.userId})` : a.userId} at ${a.at}`,
    );
  }
  if (r.heldPlan) {
    lines.push(`  held for approval in Slack: plan ${r.heldPlan.id} (${heldPlanWords(r.heldPlan)})`);
  }
  if (r.interrupted) lines.push("  INTERRUPTED: the next run finishes the work");
  if (r.resumedRun) lines.push(`  finished the interrupted run ${r.resumedRun}`);
  lines.push(
    r.attention.length > 0
      ? `  NEEDS ATTENTION: ${r.attention.join("; ")}`
      : r.guardLifted
        ? `  approved: the mass-archive guard was lifted by ${r.guardLifted.means} for ${r.guardLifted.archives} people; nothing else needs a person`
        : "  routine: nothing needs a person",
  );
  lines.push(`  ${r.requests} requests (${r.writeRequests} writes) in ${(r.durationMs / 1000).toFixed(1)} s`);
  return `${lines.join("\n")}\n`;
}

/** `archive 16, add 3; seat delta +3 (+15.00 USD/month); lifts the mass-archive guard, roster.maxSeats`. */
export function heldPlanWords(held: HeldPlanSummary): string {
  const counts = Object.entries(held.planned)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(", ");
  const lifts = [...(held.lifts.guard ? ["the mass-archive guard"] : []), ...held.lifts.caps];
  const deferred = held.deferred > 0 ? `; ${held.deferred} still deferred by the service's limits` : "";
  return (
    `${counts}; seat delta ${held.seatDelta >= 0 ? "+" : ""}${held.seatDelta} (${usd(held.monthlyCostDeltaUsd)})` +
    `; lifts ${lifts.join(", ")}${deferred}`
  );
}

/** "pages 3, records 250, etag "abc"": a pull's facts in one line. */
export function sourceFacts(facts: Readonly<Record<string, string | number | boolean>>): string {
  const parts = Object.entries(facts).map(
    ([name, value]) => `${name} ${typeof value === "string" ? JSON.stringify(value) : value}`,
  );
  return parts.length === 0 ? "complete" : parts.join(", ");
}
