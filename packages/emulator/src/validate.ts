import { z } from "zod";
import { invalid } from "./http-error.js";

/** zod at the edge: every failure becomes 400 INVALID_BODY naming the parameter. */

function describe(error: z.ZodError, where: string): string {
  const issue = error.issues[0];
  if (!issue) return `Invalid ${where}.`;
  const name = issue.path.length > 0 ? issue.path.join(".") : where;
  return `Invalid parameter "${name}": ${issue.message}`;
}

export function parseWith<S extends z.ZodType>(schema: S, input: unknown, where: string): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw invalid(describe(result.error, where));
  return result.data;
}

/** Query parameters as a plain object (first value of each name). */
export function queryObject(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of query) if (!(k in out)) out[k] = v;
  return out;
}

export const intParam = (min: number, max = 2_147_483_647) =>
  z
    .string()
    .trim()
    .regex(/^[+-]?\d+$/, "expected an integer")
    .transform(Number)
    .pipe(z.number().int().min(min, `must be >= ${min}`).max(max, `must be <= ${max}`));

export const numberParam = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^[+-]?(\d+\.?\d*|\.\d+)$/, "expected a number")
    .transform(Number)
    .pipe(z.number().min(min, `must be >= ${min}`).max(max, `must be <= ${max}`));

export const boolParam = z.enum(["true", "false"], { error: "expected true or false" }).transform((v) => v === "true");

export const dateTimeParam = z.iso
  .datetime({ offset: true, error: "expected an ISO 8601 date-time" })
  .transform((s) => Date.parse(s));

export const pageQuery = {
  page: intParam(1).optional(),
  pageSize: intParam(1, 100).optional(),
};

export const orgIdBody = z.number({ error: "expected an integer" }).int("expected an integer").min(1, "must be >= 1");

/** Rejects bodies that are not JSON objects. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw invalid('Invalid parameter "body": expected a JSON object.');
  return body as Record<string, unknown>;
}

export interface PageWindow {
  page: number;
  pageSize: number;
}

/** Builds the page envelope of spec 2.9 from a newest-first accessor. */
export function pageEnvelope<T>(
  total: number,
  w: PageWindow,
  at: (indexNewestFirst: number) => T,
): {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
  hasMore: boolean;
} {
  const start = (w.page - 1) * w.pageSize;
  const end = Math.min(total, start + w.pageSize);
  const items: T[] = [];
  for (let i = start; i < end; i++) items.push(at(i));
  return { items, total, page: w.page, pageSize: w.pageSize, hasMore: end < total };
}
