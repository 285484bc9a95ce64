import { z } from "zod";
import { RISK_LEVELS } from "../../api/spec-records.js";

/** The value types more than one section of the configuration uses. */

const DURATION_UNITS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

/** A duration as seconds: a number of seconds, or a string like `90s`, `5m`, `24h`, `7d`. */
export const durationSeconds = z.union([z.number().nonnegative(), z.string()]).transform((value, ctx) => {
  if (typeof value === "number") return value;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(value);
  if (!match) {
    ctx.addIssue({ code: "custom", message: `expected a duration such as 90s, 5m, 24h or 7d, got "${value}"` });
    return z.NEVER;
  }
  return Number(match[1]) * (DURATION_UNITS[match[2] ?? "s"] ?? 1);
});

export const riskLevel = z.enum(RISK_LEVELS);

export const slackChannel = z
  .string()
  .min(1)
  .regex(/^[#@]?[A-Za-z0-9._-]+$/, "expected a channel name like #hr-alerts or a channel id like C0123456789");
