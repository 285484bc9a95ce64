import { CHANGE_TYPES, type ChangeRecord, type ChangeType, type EmployeeRecord } from "./model.js";
import type { Rng } from "./rng.js";

/**
 * The seeded signal generator: detected profile changes with risk scores, for tracked people only.
 * Same seed and same calls give the same changes (who, type, score, text); only `detectedAt` follows the clock.
 */

interface TypeProfile {
  weight: number;
  min: number;
  max: number;
  field: string;
  summary: string;
  factors: readonly string[];
}

const PROFILES: Record<ChangeType, TypeProfile> = {
  profile_update: {
    weight: 14,
    min: 0.2,
    max: 0.6,
    field: "about",
    summary: "updated their profile",
    factors: ["Profile refreshed after a long quiet period"],
  },
  headline_change: {
    weight: 12,
    min: 0.35,
    max: 0.85,
    field: "headline",
    summary: "changed their headline",
    factors: ["Headline no longer mentions the current employer", "Headline emphasises transferable skills"],
  },
  title_change: {
    weight: 10,
    min: 0.3,
    max: 0.8,
    field: "title",
    summary: "changed their job title",
    factors: ["Title rewritten in market terms"],
  },
  open_to_work: {
    weight: 6,
    min: 0.8,
    max: 0.99,
    field: "openToWork",
    summary: "turned on Open to Work",
    factors: ["Open to Work signal enabled", "Recruiter visibility widened"],
  },
  new_skills: {
    weight: 12,
    min: 0.2,
    max: 0.65,
    field: "skills",
    summary: "added new skills",
    factors: ["Skills added in bulk", "Certifications added"],
  },
  location_change: {
    weight: 8,
    min: 0.3,
    max: 0.8,
    field: "location",
    summary: "changed their location",
    factors: ["Location moved to another job market"],
  },
  photo_or_summary: {
    weight: 10,
    min: 0.2,
    max: 0.55,
    field: "photo,summary",
    summary: "updated their photo or summary",
    factors: ["New professional photo"],
  },
  edit_activity: {
    weight: 12,
    min: 0.25,
    max: 0.7,
    field: "activity",
    summary: "edited their profile repeatedly",
    factors: ["Burst of profile edits this week"],
  },
  experience_change: {
    weight: 10,
    min: 0.4,
    max: 0.9,
    field: "experience",
    summary: "rewrote their experience section",
    factors: ["Achievements quantified for a reader outside the company"],
  },
  employee_departed: {
    weight: 3,
    min: 0,
    max: 0,
    field: "experience.current",
    summary: "left the company",
    factors: ["Current position ended on the profile"],
  },
};

const TOTAL_WEIGHT = CHANGE_TYPES.reduce((sum, t) => sum + PROFILES[t].weight, 0);

export function pickChangeType(rng: Rng): ChangeType {
  let roll = rng.next() * TOTAL_WEIGHT;
  for (const t of CHANGE_TYPES) {
    roll -= PROFILES[t].weight;
    if (roll < 0) return t;
  }
  return "profile_update";
}

export interface SignalOverrides {
  changeType?: ChangeType | undefined;
  /** Forced score; ignored for departures, which carry none. */
  riskScore?: number | undefined;
}

/** Builds one change for a tracked person. */
export function generateChange(
  rng: Rng,
  emp: EmployeeRecord,
  id: number,
  now: number,
  overrides: SignalOverrides = {},
): ChangeRecord {
  const changeType = overrides.changeType ?? pickChangeType(rng);
  const p = PROFILES[changeType];
  const drawn = Math.round((p.min + rng.next() * (p.max - p.min)) * 100) / 100;
  const riskScore = changeType === "employee_departed" ? null : (overrides.riskScore ?? drawn);
  const factors = p.factors.filter((_, i) => i === 0 || rng.next() < 0.5);
  return {
    id,
    organizationId: emp.organizationId,
    employeeId: emp.id,
    changeType,
    changedFields: p.field,
    riskScore,
    summary: `${emp.name} ${p.summary}.`,
    factors: [...factors],
    detectedAt: now,
  };
}

/** Picks a tracked person among candidate ids (creation order), or undefined when none is tracked. */
export function pickTracked(rng: Rng, candidates: readonly EmployeeRecord[]): EmployeeRecord | undefined {
  if (candidates.length === 0) return undefined;
  return candidates[rng.int(candidates.length)];
}
