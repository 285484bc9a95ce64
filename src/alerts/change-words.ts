import type { ChangeType } from "../api/change-types.js";
import type { RiskLevel } from "../api/spec-records.js";
import type { LensKind } from "./lens.js";

const CHANGE_WORDS: Readonly<Record<string, string>> = {
  profile_update: "Updated their profile",
  headline_change: "Changed their headline",
  title_change: "Changed their job title",
  open_to_work: "Marked themselves open to work",
  new_skills: "Added new skills",
  location_change: "Changed their location",
  photo_or_summary: "Changed their photo or summary",
  edit_activity: "Has been editing their profile a lot",
  experience_change: "Changed their experience section",
  employee_departed: "Left the company",
};

/** A change type (spec 2.5) in plain words; unknown future types still read sensibly. */
export function changeInWords(changeType: string): string {
  const known = CHANGE_WORDS[changeType];
  if (known) return known;
  const words = changeType.replace(/[_-]+/g, " ").trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : "Profile change";
}

const LEVEL_MARKERS: Readonly<Record<RiskLevel, string>> = {
  high: ":red_circle:",
  watch: ":large_orange_circle:",
  low: ":white_circle:",
};
const LEVEL_NAMES: Readonly<Record<RiskLevel, string>> = { high: "High", watch: "Watch", low: "Low" };

/** The emoji that marks a risk level at a glance. */
export function riskMarker(level: RiskLevel): string {
  return LEVEL_MARKERS[level];
}

/** "High · 0.82", or "High" for a departure without a score. */
export function riskInWords(level: RiskLevel, score: number | null): string {
  return score === null ? LEVEL_NAMES[level] : `${LEVEL_NAMES[level]} · ${score.toFixed(2)}`;
}

/**
 * What the score measures in a lens (spec 1): on the own roster the risk that the person leaves,
 * at a competitor how open the person may be to a move.
 */
export function scoreLabel(lens: LensKind): string {
  return lens === "retention" ? "Risk of leaving" : "Openness to a move";
}

/** "0.52 → 0.81" when the previous delivered change had a score, else "0.81". */
export function scoreMovement(previous: number | undefined, score: number): string {
  return previous === undefined ? score.toFixed(2) : `${previous.toFixed(2)} → ${score.toFixed(2)}`;
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

/** "Tue 24 Nov, 14:05 UTC"; the text itself when it is not a time. */
export function readableTime(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const t = new Date(ms);
  const hh = String(t.getUTCHours()).padStart(2, "0");
  const mm = String(t.getUTCMinutes()).padStart(2, "0");
  return `${WEEKDAYS[t.getUTCDay()]} ${t.getUTCDate()} ${MONTHS[t.getUTCMonth()]}, ${hh}:${mm} UTC`;
}

/** Keys of a lens's next steps: a change type, or `default` for every other one. */
export type NextStepKey = ChangeType | "default";
/** Next steps per lens and change type; `alerts.nextSteps` overrides these, "" shows none. */
export type NextSteps = Readonly<Record<LensKind, Readonly<Partial<Record<NextStepKey, string>>>>>;

/** The suggestions an alert carries when `alerts.nextSteps` says nothing else. */
export const DEFAULT_NEXT_STEPS: NextSteps = {
  retention: {
    employee_departed:
      "Confirm the departure with the manager, then start the leaver steps: access, hand-over, exit interview.",
    open_to_work:
      "Ask the manager for a career conversation this week; check pay and growth options before an offer arrives.",
    title_change: "Ask the manager whether the new title reflects an internal move or a role elsewhere.",
    location_change: "Ask the manager whether a relocation or remote-work wish is behind this.",
    new_skills: "Check whether the person's development plan uses these skills; consider a stretch assignment.",
    default:
      "Ask the manager for an informal check-in on workload, growth and plans; do not mention the profile change.",
  },
  poaching: {
    employee_departed: "They have just left: if the profile fits an open role, reach out now.",
    open_to_work: "Share with the hiring manager of a matching open role and reach out soon.",
    default: "Add them to the talent pipeline; reach out only if a role fits.",
  },
};

/** The next step for one change: the override, else the default, by change type then `default`; undefined when "". */
export function nextStepFor(lens: LensKind, changeType: string, overrides?: NextSteps): string | undefined {
  const own = overrides?.[lens] ?? {};
  const defaults = DEFAULT_NEXT_STEPS[lens];
  const key = changeType as NextStepKey;
  const step = own[key] ?? own.default ?? defaults[key] ?? defaults.default;
  return step?.trim() ? step.trim() : undefined;
}
