import type { RiskLevel } from "../api/spec-records.js";

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
