import { LocalValidationError } from "../errors.js";
import { CHANGE_TYPES } from "./change-types.js";

/**
 * Checks of request input against the limits of spec parts 4 and 8, done before sending so a
 * bad value costs no request (and no token of the shared budget). Each throws LocalValidationError
 * naming the parameter.
 */

function describe(value: unknown): string {
  if (typeof value === "string") return `"${value}"`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export function requireIntegerInRange(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `${min}..${max}`;
    throw new LocalValidationError(name, `expected an integer ${range}, got ${describe(value)}`);
  }
  return value;
}

export function requireNumberInRange(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw new LocalValidationError(name, `expected a number ${min}..${max}, got ${describe(value)}`);
  }
  return value;
}

/** Positive integer id (employee, competitor workspace, organization). */
export function requireId(name: string, value: unknown): number {
  return requireIntegerInRange(name, value, 1, 2_147_483_647);
}

export function requireNonEmptyString(name: string, value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new LocalValidationError(name, `expected a non-empty string, got ${describe(value)}`);
  }
  return value;
}

export function requireBoolean(name: string, value: unknown): boolean {
  if (typeof value !== "boolean")
    throw new LocalValidationError(name, `expected true or false, got ${describe(value)}`);
  return value;
}

export function requireStringList(name: string, value: unknown, min: number, max: number): string[] {
  if (!Array.isArray(value) || value.length < min || value.length > max) {
    const count = Array.isArray(value) ? `${value.length} items` : describe(value);
    throw new LocalValidationError(name, `expected a list of ${min} to ${max} strings, got ${count}`);
  }
  value.forEach((item, i) => {
    requireNonEmptyString(`${name}[${i}]`, item);
  });
  return value as string[];
}

/** Page and page size of spec 4 / 8: page >= 1, pageSize 1..100. */
export function validatePageQuery(query: { page?: number | undefined; pageSize?: number | undefined }): void {
  if (query.page !== undefined) requireIntegerInRange("page", query.page, 1, Number.MAX_SAFE_INTEGER);
  if (query.pageSize !== undefined) requireIntegerInRange("pageSize", query.pageSize, 1, 100);
}

/** A `since` instant: an ISO string (sent as given) or a Date (sent as ISO). */
export function requireInstant(name: string, value: unknown): string {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  if (typeof value === "string" && value.trim() !== "" && !Number.isNaN(Date.parse(value))) return value;
  throw new LocalValidationError(name, `expected an ISO 8601 date-time, got ${describe(value)}`);
}

export function requireChangeType(name: string, value: unknown): string {
  if (typeof value !== "string" || !(CHANGE_TYPES as readonly string[]).includes(value)) {
    throw new LocalValidationError(name, `expected one of ${CHANGE_TYPES.join(", ")}, got ${describe(value)}`);
  }
  return value;
}

/** PATCH bodies need at least one property (spec 4.2, 4.3, 4.5, 4.6). Returns the body without undefined entries. */
export function requireNonEmptyPatch<T extends object>(name: string, patch: T): Partial<T> {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) {
    throw new LocalValidationError(name, `expected an object, got ${describe(patch)}`);
  }
  const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
  if (Object.keys(defined).length === 0) {
    throw new LocalValidationError(name, "expected at least one property to change");
  }
  return defined;
}

export function requireSensitivity(name: string, value: unknown): number {
  return requireIntegerInRange(name, value, 1, 5);
}

export function requireOneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw new LocalValidationError(name, `expected one of ${allowed.join(", ")}, got ${describe(value)}`);
  }
  return value as T;
}
