import type { ApplyResult } from "./apply-plan.js";
import { type DesiredRoster, type RosterDiff, type ServicePerson, whoOf } from "./diff-roster.js";
import { type KeptUntracked, rowSignature } from "./kept-untracked.js";
import type { EndedHold, HoldEndCause, KeptPerson, PlanStep, Who } from "./plan-types.js";
import type { RowIdentity } from "./row-identity.js";

/**
 * How a run treats the people stopped by hand in Slack (kept-untracked): who stays untracked, whose
 * hold ends and why, and what a real run writes. Pure: the caller loads the holds and writes.
 */
export interface HoldSettlement {
  /** The diff without a track for anyone kept untracked (they take no seat: see the plan's budget). */
  readonly diff: RosterDiff;
  readonly kept: readonly KeptPerson[];
  readonly ended: readonly EndedHold[];
  /** Holds seen with a row for the first time since the stop: saved with that row's signature. */
  readonly record: ReadonlyArray<readonly [string, KeptUntracked]>;
  /** The holds still standing after this run's decisions (an archive in the plan may end them). */
  readonly standing: ReadonlyMap<string, KeptUntracked>;
}

function rememberedWho(identity: RowIdentity | undefined): Who {
  const who: { -readonly [K in keyof Who]: Who[K] } = {};
  if (identity?.name !== undefined) who.name = identity.name;
  if (identity?.employeeId !== undefined) who.employeeId = identity.employeeId;
  if (identity?.department !== undefined) who.department = identity.department;
  return who;
}

/**
 * Each hold against this run's export and the service's roster:
 * - no row for the profile on the service: erased, the hold ends; archived there: it ends (a hold
 *   never stops an archive, and a rehire is revived as usual); another service row than the one
 *   stopped: it ends;
 * - tracked on the service: someone tracked them again, it ends; unless the stop is not older than
 *   the run (`startedAt`): the roster read may predate it, the next run decides;
 * - untracked, with a row in scope: the first run notes the row's signature (`record`); a later row
 *   with another signature ends the hold; else a track the row asks for is taken out of the diff
 *   and the person is `kept`;
 * - untracked and not in scope in this export (missing, terminated, filtered): the hold stays, the
 *   archive rules run as ever.
 */
export function settleHolds(input: {
  readonly holds: ReadonlyMap<string, KeptUntracked>;
  readonly desired: DesiredRoster;
  readonly current: readonly ServicePerson[];
  readonly diff: RosterDiff;
  /** The memory's identities: names a held person who is not in this export. */
  readonly identities?: ReadonlyMap<string, RowIdentity>;
  readonly startedAt: Date;
}): HoldSettlement {
  const { holds, desired, diff } = input;
  if (holds.size === 0) return { diff, kept: [], ended: [], record: [], standing: holds };
  // The service rows of held profiles only (a few), the live one first should a URL have two.
  const there = new Map<string, ServicePerson>();
  for (const person of input.current) {
    if (!holds.has(person.profileUrl)) continue;
    const before = there.get(person.profileUrl);
    if (!before || (before.archived && !person.archived)) there.set(person.profileUrl, person);
  }
  const kept: KeptPerson[] = [];
  const ended: EndedHold[] = [];
  const record: Array<readonly [string, KeptUntracked]> = [];
  const standing = new Map<string, KeptUntracked>();
  const keptUrls = new Set<string>();
  const trackAsked = new Set(diff.track.map((t) => t.person.profileUrl));
  for (const [url, hold] of holds) {
    const row = desired.byUrl.get(url);
    const person: KeptPerson = {
      url,
      id: hold.employeeId,
      who: row ? whoOf(row) : rememberedWho(input.identities?.get(url)),
      stoppedBy: hold.stoppedBy,
      stoppedAt: hold.stoppedAt,
    };
    const end = (cause: HoldEndCause) => ended.push({ ...person, cause });
    const service = there.get(url);
    if (service === undefined) {
      end("erased");
      continue;
    }
    if (service.archived) {
      end("archived");
      continue;
    }
    if (service.id !== hold.employeeId) {
      end("other-row");
      continue;
    }
    if (service.tracked) {
      // An unreadable stop time counts as old: the service's word wins.
      if (!(Date.parse(hold.stoppedAt) >= input.startedAt.getTime())) end("tracked-again");
      else standing.set(url, hold);
      continue;
    }
    if (row === undefined) {
      standing.set(url, hold);
      continue;
    }
    const signature = rowSignature(row);
    if (hold.rowSignature !== undefined && hold.rowSignature !== signature) {
      end("row-changed");
      continue;
    }
    const noted = hold.rowSignature === undefined ? { ...hold, rowSignature: signature } : hold;
    if (noted !== hold) record.push([url, noted]);
    standing.set(url, noted);
    if (trackAsked.has(url)) {
      kept.push(person);
      keptUrls.add(url);
    }
  }
  const track = keptUrls.size === 0 ? diff.track : diff.track.filter((t) => !keptUrls.has(t.person.profileUrl));
  return { diff: track === diff.track ? diff : { ...diff, track }, kept, ended, record, standing };
}

/**
 * Holds ended by this run's archives: an archive step for a held person, done (no failure or
 * refusal of it) in a run that was not cut short; in a dry run (`applied` undefined), every planned
 * one. A run cut short ends none: the next run finds them archived on the service and ends them then.
 */
export function holdsEndedByArchive(
  standing: ReadonlyMap<string, KeptUntracked>,
  steps: readonly PlanStep[],
  applied: ApplyResult | undefined,
): EndedHold[] {
  if (standing.size === 0 || applied?.interrupted === true) return [];
  const notDone = new Set(
    [...(applied?.failures ?? []), ...(applied?.refusals ?? [])]
      .filter((f) => f.change === "archive")
      .map((f) => f.url),
  );
  const out: EndedHold[] = [];
  for (const step of steps) {
    if (step.kind !== "archive" || notDone.has(step.url)) continue;
    const hold = standing.get(step.url);
    if (hold === undefined) continue;
    out.push({
      url: step.url,
      id: hold.employeeId,
      who: step.who,
      stoppedBy: hold.stoppedBy,
      stoppedAt: hold.stoppedAt,
      cause: "archived",
    });
  }
  return out;
}
