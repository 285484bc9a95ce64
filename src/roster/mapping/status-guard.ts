import { normalizeName, parsePath, pathShape } from "./field-path.js";

/**
 * The unread-status guard: a column or key that looks like a status or an end date, and that the
 * mapping does not read, refuses the file. Left unread, such a column is how a terminated person
 * becomes a joiner (a billed seat): "no terminated person is ever planned as a joiner because of
 * how the file was named".
 */
const STATUS_LIKE =
  /status|terminat|active|deleted|separat|employmenttype|employeetype|workertype|lifecycle|enddate|exitdate|lastworking|leavingdate|leftdate|dateleft/;
/** Statuses that say nothing about whether someone works here. */
const NOT_EMPLOYMENT =
  /marital|veteran|tax|filing|flsa|exempt|citizen|immigration|visa|disab|military|smok|student|ethnic|benefit|i9|everify|background|verification|approval|payment|request|sync|document|interactive|directory/;

/** A normalized key (or header) that looks like a status or an end date. */
export function looksLikeStatus(name: string): boolean {
  const norm = normalizeName(name);
  return STATUS_LIKE.test(norm) && !NOT_EMPLOYMENT.test(norm);
}

/** A key path found in a record: as shown to the user, and as compared (normalized, `*` for arrays). */
export interface FoundKey {
  readonly shown: string;
  readonly shape: readonly string[];
}

const MAX_DEPTH = 6;
const ELEMENTS_LOOKED_AT = 3;

/** The status-like keys of a record, at any depth (array elements as `*`). */
export function statusLikeKeys(record: unknown): FoundKey[] {
  const found: FoundKey[] = [];
  const walk = (value: unknown, shown: string[], shape: string[]): void => {
    if (shape.length >= MAX_DEPTH || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const element of value.slice(0, ELEMENTS_LOOKED_AT)) walk(element, [...shown, "*"], [...shape, "*"]);
      return;
    }
    for (const [key, inner] of Object.entries(value)) {
      const norm = normalizeName(key);
      if (looksLikeStatus(key)) found.push({ shown: [...shown, key].join("."), shape: [...shape, norm] });
      walk(inner, [...shown, key], [...shape, norm]);
    }
  };
  walk(record, [], []);
  return found;
}

/** Compiled paths that read a key (mapping entries) or excuse it (ignore entries). */
export class KeyCover {
  private readonly shapes: string[][];

  constructor(paths: readonly string[]) {
    this.shapes = [];
    for (const path of paths) {
      try {
        this.shapes.push(pathShape(parsePath(path, { allowAny: true })));
      } catch {
        // An entry that is no path (a CSV header with brackets) is a name: compared as one key.
        this.shapes.push([normalizeName(path)]);
      }
    }
  }

  /** A key is covered by a path through it (it reads the key or inside it) or above it. */
  covers(shape: readonly string[]): boolean {
    return this.shapes.some((read) => isPrefix(read, shape) || isPrefix(shape, read));
  }
}

function isPrefix(prefix: readonly string[], of: readonly string[]): boolean {
  if (prefix.length > of.length) return false;
  for (let i = 0; i < prefix.length; i += 1) {
    const a = prefix[i];
    const b = of[i];
    if (a !== b && a !== "*" && b !== "*") return false;
  }
  return true;
}

/** The fix, in a sentence, for an unread status-like key. */
export function unreadStatusHint(shown: string, unit: "column" | "key"): string {
  const asPath = shown.replace(/\.\*(?=\.|$)/g, ".0");
  return (
    `has a status ${unit} that the mapping does not read: "${shown}" looks like a status or an end date, ` +
    "and unread, people who left could be planned as joiners, so nothing is read from this file. " +
    `Read it under the field it is, e.g. mapping: { preset: auto, status: ["${asPath}"] } ` +
    "(status: Active/Inactive or a true/false active flag; employmentStatus: Full-Time, Contractor...; " +
    `left: a true/false "has left" flag; terminationDate: a date), or, if it says nothing about whether ` +
    `someone works here, add "${shown}" to roster.ignoreColumns.`
  );
}
