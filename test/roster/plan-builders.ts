/** Small builders of named plan steps for the roster tests. */
import type { Named, PlanStep, StepReason, Who } from "../../src/roster/plan-types.js";

export const joiner: StepReason = { why: "joiner" };
export const left: StepReason = { why: "left", missingExports: 2 };

export function named(url: string, who: Who = {}, reason: StepReason = joiner): Named {
  return { url, who, reason };
}

/** An add chunk of these URLs, everyone a joiner. */
export function addStep(tracked: boolean, urls: readonly string[]): Extract<PlanStep, { kind: "add" }> {
  return { kind: "add", tracked, people: urls.map((u) => named(u)) };
}

export const archiveStep = (id: number, url: string, tracked = true): PlanStep => ({
  kind: "archive",
  id,
  tracked,
  ...named(url, {}, left),
});
export const reviveStep = (id: number, url: string, tracked = true): PlanStep => ({
  kind: "revive",
  id,
  tracked,
  ...named(url, {}, { why: "rehire" }),
});
export const untrackStep = (id: number, url: string): PlanStep => ({
  kind: "untrack",
  id,
  ...named(url, {}, { why: "untracked-department" }),
});
export const trackStep = (id: number, url: string): PlanStep => ({
  kind: "track",
  id,
  ...named(url, {}, { why: "tracked-department" }),
});
export const eraseStep = (id: number, url: string): PlanStep => ({
  kind: "erase",
  id,
  ...named(url, {}, { why: "erase", archivedSince: "2025-01-01T00:00:00.000Z", days: 365 }),
});

/** Every URL of a plan's steps, in order. */
export function stepUrls(steps: readonly PlanStep[]): string[] {
  return steps.flatMap((s) => (s.kind === "add" ? s.people.map((p) => p.url) : [s.url]));
}
