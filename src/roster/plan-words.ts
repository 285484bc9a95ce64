import { cleanValue } from "./canonical-profile-url.js";
import type { EndedHold, HoldEndCause, KeptPerson, Named, StepReason, Who } from "./plan-types.js";

/**
 * The words of a named plan: who a person is and why a step is planned, one phrase each, shared
 * by the text report, the Slack post, the guard's message and a stale plan's differences. Values
 * from the HRIS file are clipped and their control and text-direction characters escaped.
 */

/** `2026-11-20` of an ISO time (or the text as it is, if it is not one). */
export function day(iso: string): string {
  return /^\d{4}-\d{2}-\d{2}T/.test(iso) ? iso.slice(0, 10) : iso;
}

/** `Ada Lovelace (E0001, Engineering) https://www.linkedin.com/in/ada`; a person with no HRIS name is their URL. */
export function describeWho(who: Who, url: string): string {
  const details = [who.employeeId, who.department].filter((v): v is string => v !== undefined);
  const name = who.name === undefined ? "(no name)" : cleanValue(who.name, 60);
  const extra = details.length > 0 ? ` (${details.map((d) => cleanValue(d, 40)).join(", ")})` : "";
  return `${name}${extra} ${url}`;
}

function exports(n: number): string {
  return `${n} export${n === 1 ? "" : "s"}`;
}

function missingFor(missingExports: number, since: string | undefined): string {
  return `missing from ${exports(missingExports)}${since === undefined ? "" : ` since ${day(since)}`}`;
}

/** The reason as a reader of the plan sees it. */
export function describeReason(reason: StepReason): string {
  switch (reason.why) {
    case "joiner":
      return "joiner";
    case "rehire":
      return reason.archivedSince === undefined
        ? "rehire (archived on the service)"
        : `rehire (archived since ${day(reason.archivedSince)})`;
    case "left":
      return `left (${missingFor(reason.missingExports, reason.since)})`;
    case "unknown":
      return `never in an HRIS export, roster.archiveUnknown (${missingFor(reason.missingExports, reason.since)})`;
    case "terminated":
      return `terminated in HRIS (${reason.detail})`;
    case "out-of-scope":
      return `out of scope: ${reason.detail} (${missingFor(reason.missingExports, reason.since)})`;
    case "untracked-department":
      return `moved to an untracked department${reason.department ? ` (${cleanValue(reason.department, 40)})` : ""}`;
    case "tracked-department":
      return `untracked on the service, in a tracked department${reason.department ? ` (${cleanValue(reason.department, 40)})` : ""}`;
    case "erase":
      return `erased after ${reason.days} days archived (archived since ${day(reason.archivedSince)})`;
  }
}

/** One line of a list: `Ada Lovelace (E0001, Engineering) https://... - joiner, line 12`. */
export function describeNamed(person: Named): string {
  const line = person.who.line === undefined ? "" : `, line ${person.who.line}`;
  return `${describeWho(person.who, person.url)} - ${describeReason(person.reason)}${line}`;
}

/** At most `limit` lines, then "...and N more, see --json". */
export function collapse(lines: readonly string[], limit: number): string[] {
  if (lines.length <= limit) return [...lines];
  return [...lines.slice(0, limit), `...and ${lines.length - limit} more, see --json`];
}

const HOLD_ENDS: Record<HoldEndCause, string> = {
  "row-changed": "HRIS row changed",
  "tracked-again": "tracked again on the service",
  archived: "archived",
  erased: "no longer on the service (erased)",
  "other-row": "the service has another row for this profile now",
};

/** Why a hold ended, in words: `hold ended: HRIS row changed`. */
export function describeHoldEnd(cause: HoldEndCause): string {
  return `hold ended: ${HOLD_ENDS[cause]}`;
}

/** `stopped in Slack by U123 on 2026-11-20`: who is the Slack user id, as stored. */
export function describeStop(person: KeptPerson, by: string = cleanValue(person.stoppedBy, 40)): string {
  return `stopped in Slack by ${by} on ${day(person.stoppedAt)}`;
}

/** A line of the "kept untracked (stopped in Slack)" list. */
export function keptLine(person: KeptPerson): string {
  return `${describeWho(person.who, person.url)} - ${describeStop(person)}`;
}

/** A line of the "holds ended" list. */
export function endedHoldLine(hold: EndedHold): string {
  return `${describeWho(hold.who, hold.url)} - ${describeHoldEnd(hold.cause)} (${describeStop(hold)})`;
}
