/**
 * Reads a termination date as HRIS systems write it. Returns the time in ms, `undefined` for "no
 * date" (empty, BambooHR's `0000-00-00`), or `"unreadable"`: a value that is there but cannot be
 * read is never taken as "still employed".
 */
export type HrisDate = number | undefined | "unreadable";

const NO_DATE = new Set(["", "0000-00-00", "null", "none", "n/a", "-"]);

/** `/Date(1700000000000)/`, `/Date(1700000000000+0000)/`: OData v2 (SuccessFactors). */
const ODATA = /^\/Date\((-?\d+)(?:[+-]\d{4})?\)\/$/;
/** `2026-10-31-07:00`, `2026-10-31+01:00`: Workday writes a date with its offset. */
const DATE_WITH_OFFSET = /^(\d{4}-\d{2}-\d{2})[+-]\d{2}:?\d{2}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ].*)?$/;
/** `31.10.2026` (German and most of Europe). */
const DOTTED = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/;
/** `10/31/2026` (US); `31/10/2026` when the first number cannot be a month. */
const SLASHED = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;

function utc(year: number, month: number, day: number): number | "unreadable" {
  const at = Date.UTC(year, month - 1, day);
  const check = new Date(at);
  return check.getUTCMonth() === month - 1 && check.getUTCDate() === day ? at : "unreadable";
}

export function parseHrisDate(text: string | undefined): HrisDate {
  const value = text?.trim() ?? "";
  if (NO_DATE.has(value.toLowerCase())) return undefined;
  const odata = ODATA.exec(value);
  if (odata) return Number(odata[1]);
  const offset = DATE_WITH_OFFSET.exec(value);
  if (offset) return Date.parse(offset[1] as string);
  if (ISO_DATE.test(value)) {
    const at = Date.parse(value);
    return Number.isNaN(at) ? "unreadable" : at;
  }
  const dotted = DOTTED.exec(value);
  if (dotted) return utc(Number(dotted[3]), Number(dotted[2]), Number(dotted[1]));
  const slashed = SLASHED.exec(value);
  if (slashed) {
    const [first, second, year] = [Number(slashed[1]), Number(slashed[2]), Number(slashed[3])];
    return first > 12 ? utc(year, second, first) : utc(year, first, second);
  }
  if (/^\d{10,13}$/.test(value)) return Number(value) * (value.length <= 10 ? 1000 : 1);
  return "unreadable";
}
