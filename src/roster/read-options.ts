import type { Config } from "../config/schema.js";

export type IncludeRules = Config["roster"]["include"];

/**
 * How one HRIS file is read: the file, the roster rules that shape its rows, and the time.
 * `rosterReadOptions` (read-roster.ts) makes it from the config once; readRoster, the CSV and JSON
 * readers and the RosterRowCollector each take this same value, so no rule is dropped or
 * defaulted differently on the way.
 */
export interface RosterReadOptions {
  readonly file: string;
  /** `roster.format`: `auto` goes by extension, then by the first bytes. */
  readonly format: Config["roster"]["format"];
  /** `roster.mapping`: `auto`, a preset name, or fields (over an optional preset). */
  readonly mapping: Config["roster"]["mapping"];
  /** `roster.records`: where the records are in a JSON document; found when unset. */
  readonly records?: string;
  /** `roster.ignoreColumns`: status-like columns that say nothing about employment. */
  readonly ignoreColumns: readonly string[];
  /** `roster.include`: statuses, departments and locations in scope. */
  readonly include: IncludeRules;
  /** `roster.untrackedDepartments`: people of these departments are on the roster untracked. */
  readonly untrackedDepartments: readonly string[];
  /** `roster.maxRows`: a file with more rows is refused as soon as the reader gets there. */
  readonly maxRows: number;
  /** Decides whether a termination date has passed. */
  readonly now: Date;
  /**
   * Canonical profile URLs whose status and termination cells are kept on their RosterPerson (the
   * people held untracked, for their row signature); nobody else's, so a million rows stay small.
   */
  readonly keepStatusOf?: ReadonlySet<string>;
}
