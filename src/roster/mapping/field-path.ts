/**
 * Paths into a JSON record, as `roster.mapping` and `roster.records` write them:
 * - dot-separated keys: `work.department`, `attributes.first_name.value`;
 * - a number indexes an array (on an object it is a key): `personalInfoNav.results.0.firstName`;
 * - `[key=value]` picks the first element of an array whose `key` (itself a dotted path) reads
 *   `value`, ignoring case and surrounding spaces: `custom_fields[name=LinkedIn URL].value`;
 * - `*` (in `roster.records` only) stands for every element of an array: `responses.*.body`.
 * Keys compare like CSV headers (case, spaces, `_` and `-` ignored), an exact key first.
 */

export type Segment =
  | { readonly kind: "key"; readonly name: string; readonly norm: string }
  | { readonly kind: "select"; readonly path: readonly Segment[]; readonly value: string }
  | { readonly kind: "any" };

/** Header and key comparison: case-insensitive, ignoring spaces, `_` and `-`. */
export function normalizeName(name: string): string {
  return name
    .replace(/^\uFEFF/, "")
    .toLowerCase()
    .replace(/[\s_-]+/g, "");
}

export class FieldPathError extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`path "${path}": ${problem}`);
    this.name = "FieldPathError";
  }
}

function keySegment(name: string): Segment {
  return { kind: "key", name, norm: normalizeName(name) };
}

/** Splits `a.b[c.d=x y].e` into `a`, `b[c.d=x y]`, `e`: dots inside brackets belong to the selector. */
function splitTopLevel(path: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of path) {
    if (ch === "[") depth += 1;
    if (ch === "]") depth -= 1;
    if (depth < 0) throw new FieldPathError(path, 'a "]" without its "["');
    if (ch === "." && depth === 0) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  if (depth !== 0) throw new FieldPathError(path, 'a "[" is not closed');
  parts.push(current);
  return parts;
}

function selector(path: string, body: string): Segment {
  const eq = body.indexOf("=");
  if (eq <= 0) {
    if (/^\d+$/.test(body.trim())) return keySegment(body.trim());
    throw new FieldPathError(path, `"[${body}]" must be [key=value] or [number]`);
  }
  const key = body.slice(0, eq).trim();
  const inner = parsePath(key, { allowAny: false });
  return {
    kind: "select",
    path: inner,
    value: body
      .slice(eq + 1)
      .trim()
      .toLowerCase(),
  };
}

/** Parses a path; throws FieldPathError naming what is wrong. */
export function parsePath(path: string, options: { allowAny: boolean }): Segment[] {
  if (path.trim() === "") throw new FieldPathError(path, "is empty");
  const segments: Segment[] = [];
  for (const part of splitTopLevel(path)) {
    const open = part.indexOf("[");
    const head = (open === -1 ? part : part.slice(0, open)).trim();
    if (head === "" && (open === -1 || segments.length === 0)) {
      throw new FieldPathError(path, "has an empty key (two dots in a row, or a dot at an end)");
    }
    if (head === "*") {
      if (!options.allowAny)
        throw new FieldPathError(path, '"*" is for roster.records only; use a number or [key=value]');
      segments.push({ kind: "any" });
    } else if (head !== "") segments.push(keySegment(head));
    if (open === -1) continue;
    const rest = part.slice(open);
    for (const match of rest.matchAll(/\[([^\]]*)\]|([^[\]]+)/g)) {
      if (match[2] !== undefined) throw new FieldPathError(path, `unexpected "${match[2]}" after "]"`);
      segments.push(selector(path, match[1] ?? ""));
    }
  }
  return segments;
}

/** Whether the path is one plain key (`Employee_ID`): such entries also match a key holding dots. */
export function isPlainKey(segments: readonly Segment[]): boolean {
  return segments.length === 1 && segments[0]?.kind === "key";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The member of `object` named like `segment`: the exact key first, then one that compares equal. */
export function member(object: Record<string, unknown>, name: string, norm: string): unknown {
  if (Object.hasOwn(object, name)) return object[name];
  for (const key of Object.keys(object)) {
    if (normalizeName(key) === norm) return object[key];
  }
  return undefined;
}

function step(value: unknown, segment: Segment): unknown {
  if (segment.kind === "key") {
    if (Array.isArray(value)) {
      if (!/^\d+$/.test(segment.name)) return undefined;
      return value[Number(segment.name)];
    }
    return isObject(value) ? member(value, segment.name, segment.norm) : undefined;
  }
  if (segment.kind === "select") {
    if (!Array.isArray(value)) return undefined;
    for (const element of value) {
      if (!isObject(element)) continue;
      const found = evaluatePath(element, segment.path);
      if (textOf(found)?.trim().toLowerCase() === segment.value) return element;
    }
    return undefined;
  }
  return undefined;
}

/** Reads a path from a value; undefined where any step finds nothing. */
export function evaluatePath(value: unknown, segments: readonly Segment[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (current === undefined || current === null) return undefined;
    current = step(current, segment);
  }
  return current;
}

function textOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/**
 * The keys a path reads, normalized, with `*` for an array step (a number, a selector): what the
 * unread-status guard compares with the keys a record has.
 */
export function pathShape(segments: readonly Segment[]): string[] {
  const shape: string[] = [];
  for (const segment of segments) {
    if (segment.kind === "key") shape.push(/^\d+$/.test(segment.name) ? "*" : segment.norm);
    else shape.push("*");
  }
  return shape;
}
