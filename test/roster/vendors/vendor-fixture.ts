import { join } from "node:path";
import { type ConfigInput, configSchema } from "../../../src/config/schema.js";
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
