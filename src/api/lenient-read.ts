/**
 * Tolerant field readers for records whose field names the spec does not show: a value of the
 * wrong type is read as absent instead of failing the parse. Each reader takes candidates in
 * order of preference, so one call covers the likely aliases of a field.
 */

export type Loose = Record<string, unknown>;

export function isRecord(value: unknown): value is Loose {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** First candidate that is a non-empty string (after trim). */
export function readString(...candidates: unknown[]): string | undefined {
  for (const c of candidates) if (typeof c === "string" && c.trim() !== "") return c;
  return undefined;
}

/** First candidate that is a finite number, or a numeric string. */
export function readNumber(...candidates: unknown[]): number | undefined {
  for (const c of candidates) {
    if (typeof c === "number" && Number.isFinite(c)) return c;
    if (typeof c === "string" && c.trim() !== "" && Number.isFinite(Number(c))) return Number(c);
  }
  return undefined;
}

/** First candidate that is an integer (or an integer string). */
export function readInteger(...candidates: unknown[]): number | undefined {
  for (const c of candidates) {
    const n = readNumber(c);
    if (n !== undefined && Number.isInteger(n)) return n;
  }
  return undefined;
}

/** First candidate that is a boolean (or the strings "true"/"false"). */
export function readBoolean(...candidates: unknown[]): boolean | undefined {
  for (const c of candidates) {
    if (typeof c === "boolean") return c;
    if (c === "true" || c === "false") return c === "true";
  }
  return undefined;
}

/** First candidate that is an array of strings (non-strings dropped), or one string as a list of one. */
export function readStringList(...candidates: unknown[]): string[] | undefined {
  for (const c of candidates) {
    if (Array.isArray(c)) return c.filter((x): x is string => typeof x === "string");
    if (typeof c === "string" && c.trim() !== "") return [c];
  }
  return undefined;
}

/** First candidate that is a plain object. */
export function readRecord(...candidates: unknown[]): Loose | undefined {
  for (const c of candidates) if (isRecord(c)) return c;
  return undefined;
}

/** Copies the defined entries only, so optional properties stay absent (exactOptionalPropertyTypes). */
export function definedOnly<T extends Record<string, unknown>>(
  value: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
