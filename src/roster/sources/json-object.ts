import { z } from "zod";

/**
 * A JSON object, checked for its kind only: the record of a page is read field by field later by
 * the preset, and `z.record` would copy every record of every page (seconds for 100,000 people).
 */
export const jsonObject = z.custom<Record<string, unknown>>(
  (value) => value !== null && typeof value === "object" && !Array.isArray(value),
  "expected an object",
);
