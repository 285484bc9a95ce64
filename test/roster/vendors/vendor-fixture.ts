import { join } from "node:path";
import { expect } from "vitest";
import { type ConfigInput, configSchema } from "../../../src/config/schema.js";
import type { PresetName } from "../../../src/roster/presets/names.js";
import { type RosterFile, readRoster, rosterReadOptions } from "../../../src/roster/read-roster.js";

/** The fixed "today" of the vendor fixtures: termination dates before it have passed. */
export const FIXTURE_NOW = new Date("2026-11-26T12:00:00Z");

export type RosterSettings = Omit<NonNullable<ConfigInput["roster"]>, "file">;

/** Path of a fixture under test/fixtures/hris/<vendor>/. */
export function fixturePath(vendor: string, file: string): string {
  return join(import.meta.dirname, "..", "..", "fixtures", "hris", vendor, file);
}

/** Reads a vendor fixture as `reconcile` would, with the given roster settings (default: mapping auto). */
export async function readFixture(vendor: string, file: string, settings: RosterSettings = {}): Promise<RosterFile> {
  const path = fixturePath(vendor, file);
  const rules = configSchema.parse({ roster: { ...settings, file: path } }).roster;
  return readRoster(rosterReadOptions(rules, path, FIXTURE_NOW));
}

/**
 * Reads test/fixtures/hris/<preset>/<file> (as `readFixture`) and expects the roster to have been read
 * with that preset, whether recognised by mapping auto or named in the settings.
 */
export async function readAs(preset: PresetName, file: string, settings: RosterSettings = {}): Promise<RosterFile> {
  const roster = await readFixture(preset, file, settings);
  expect(roster.mapping.preset).toBe(preset);
  return roster;
}

/** Who is where, by the name the roster reads (a person without a name shows as "(no name)"). */
export interface RosterSummary {
  readonly inScope: string[];
  readonly terminated: string[];
  readonly outOfScope: string[];
  /** Row problems other than terminated/out-of-scope: `<reason>: <name>`. */
  readonly problems: string[];
}

export function summarize(file: RosterFile): RosterSummary {
  const named = (name: string | undefined) => name ?? "(no name)";
  const byReason = (reason: string) => file.problems.filter((p) => p.reason === reason).map((p) => named(p.name));
  return {
    inScope: file.people.map((p) => named(p.name)),
    terminated: byReason("terminated"),
    outOfScope: byReason("out-of-scope"),
    problems: file.problems
      .filter((p) => p.reason !== "terminated" && p.reason !== "out-of-scope")
      .map((p) => `${p.reason}: ${named(p.name)}`),
  };
}

/** Expects exactly these people in each place, in this order, and nobody shown as "(no name)". */
export function expectSorted(file: RosterFile, expected: RosterSummary): void {
  const summary = summarize(file);
  expect(summary.inScope).toEqual(expected.inScope);
  expect(summary.terminated).toEqual(expected.terminated);
  expect(summary.outOfScope).toEqual(expected.outOfScope);
  expect(summary.problems).toEqual(expected.problems);
  const everyone = [...summary.inScope, ...summary.terminated, ...summary.outOfScope, ...summary.problems];
  expect(everyone.join("\n")).not.toContain("(no name)");
}
