import type { RosterField } from "../roster-columns.js";

/**
 * A vendor's export as its public documentation describes it: which header (CSV) or path (JSON)
 * holds each roster field, how `mapping: auto` recognises the export, and the vendor's status words.
 * One file per vendor in this folder; `presets/index.ts` lists them.
 */
export interface RosterPreset {
  /** What `roster.mapping` (or `mapping.preset`) names it by. */
  readonly name: string;
  /** Shown by `check`, the report and the log: "BambooHR (custom report, datasets API or directory)". */
  readonly title: string;
  /**
   * Per field, the header names (CSV) or paths (JSON) to try, the first present wins. Names compare
   * ignoring case, spaces, `_` and `-`. A path is dot-separated keys, a number indexes an array, and
   * `[key=value]` picks the first array element whose `key` (a dotted path) equals `value`
   * (`custom_fields[name=LinkedIn URL].value`).
   */
  readonly fields: Partial<Record<RosterField, readonly string[]>>;
  /**
   * Status-like keys this vendor sends that say nothing about whether the person works here now
   * (an onboarding status, a marital status...), so that the unread-status guard lets them pass.
   * Paths, with `*` for any array element.
   */
  readonly ignore?: readonly string[];
  /**
   * Vendor codes read as the words `roster.include.statuses` and the left-words compare
   * (`SALARIED_FT` -> `full-time`, `T` -> `terminated`); keys compare ignoring case, spaces, `_` and `-`.
   */
  readonly values?: Readonly<Record<string, string>>;
  /** Where the records are in a JSON document when `roster.records` is unset and this preset is named. */
  readonly records?: string;
  /**
   * How `mapping: auto` recognises the export: any one signature whose every condition holds. The
   * preset whose matching signature has the most conditions wins.
   */
  readonly recognise: readonly Signature[];
}

export interface Signature {
  /** CSV: header names that must all be present (compared like names). */
  readonly headers?: readonly string[];
  /** JSON: paths that must all be present in the first record (compared like names). */
  readonly keys?: readonly string[];
  /** JSON: where the records were found, one of these (`Report_Entry`, `d.results`, `responses.*.body`). */
  readonly recordsAt?: readonly string[];
}
