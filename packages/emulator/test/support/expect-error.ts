/** Assertions on the Error shape of spec 2.1 / part 7. */
import { expect } from "vitest";
import type { WireResponse } from "./wire.js";

/** Asserts status, the Error shape, and the exact code (`null` = no code, as for 401, 404 and per-minute 429). */
export function expectError(res: WireResponse, status: number, code: string | null): void {
  expect({ status: res.status, body: res.json }, res.text).toMatchObject({ status });
  expect(typeof res.json.error, `error sentence in ${res.text}`).toBe("string");
  expect(String(res.json.error).length).toBeGreaterThan(0);
  if (code === null) expect(res.json.code, res.text).toBeUndefined();
  else expect(res.json.code, res.text).toBe(code);
  expect(res.headers.get("content-type") ?? "").toMatch(/application\/json/);
}

/** Asserts 400 INVALID_BODY whose message names the parameter. */
export function expectInvalid(res: WireResponse, parameter: string): void {
  expectError(res, 400, "INVALID_BODY");
  expect(String(res.json.error)).toContain(parameter);
}

/** Asserts an integer Retry-After of at least `min` seconds (spec 7 rule 3). */
export function expectRetryAfter(res: WireResponse, min = 1): number {
  const header = res.headers.get("retry-after");
  expect(header, "Retry-After header").toMatch(/^\d+$/);
  const seconds = Number(header);
  expect(seconds).toBeGreaterThanOrEqual(min);
  return seconds;
}
