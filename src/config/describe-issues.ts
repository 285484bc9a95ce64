import type { z } from "zod";
import type { ConfigIssue } from "../errors.js";

/**
 * Turns zod issues into operator-facing config issues: a readable path, where the value came
 * from (file line or env variable), what is expected, and a "did you mean" for misspelt keys.
 */

export type PathSegment = string | number;

export interface IssueContext {
  /** The schema validated, used to list the known keys of an object. */
  readonly schema: z.ZodType;
  /** The raw input that was validated, to echo the offending value. */
  readonly input: unknown;
  /** Dotted config path -> env variable that supplied it. */
  readonly envOrigins: ReadonlyMap<string, string>;
  /** `file:line:col` of a path in the config file, when it came from there. */
  readonly locate: (path: readonly PathSegment[]) => string | undefined;
}

/** `alerts.routes[0].channel` */
export function formatPath(path: readonly PathSegment[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out.length === 0 ? segment : `.${segment}`;
  }
  return out.length === 0 ? "(top level)" : out;
}

/** Edit distance, for suggesting the closest known key. */
export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The closest known key, if it is close enough to be a plausible typo. */
export function closestKey(unknown: string, known: readonly string[]): string | undefined {
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = levenshtein(unknown.toLowerCase(), key.toLowerCase());
    if (!best || distance < best.distance) best = { key, distance };
  }
  if (!best) return undefined;
  return best.distance <= Math.max(2, Math.floor(unknown.length / 3)) ? best.key : undefined;
}

interface ZodInternals {
  _zod: { def: { type: string; innerType?: z.ZodType; element?: z.ZodType; options?: z.ZodType[]; in?: z.ZodType } };
  shape?: Record<string, z.ZodType>;
}

/** The object keys the schema allows at `path` (through defaults, optionals, arrays and unions). */
export function knownKeysAt(schema: z.ZodType, path: readonly PathSegment[]): string[] {
  const keys = new Set<string>();
  const visit = (node: z.ZodType, rest: readonly PathSegment[]): void => {
    const internals = node as unknown as ZodInternals;
    const def = internals._zod.def;
    if (def.innerType) {
      visit(def.innerType, rest);
    } else if (def.type === "pipe" && def.in) {
      visit(def.in, rest);
    } else if (def.type === "union") {
      for (const option of def.options ?? []) visit(option, rest);
    } else if (def.type === "array" && def.element) {
      if (rest.length > 0 && typeof rest[0] === "number") visit(def.element, rest.slice(1));
    } else if (def.type === "object" && internals.shape) {
      if (rest.length === 0) {
        for (const key of Object.keys(internals.shape)) keys.add(key);
      } else {
        const next = internals.shape[String(rest[0])];
        if (next) visit(next, rest.slice(1));
      }
    }
  };
  visit(schema, path);
  return [...keys];
}

/**
 * Option names that hold a secret, by name, so that a secret option added later is covered: API
 * keys, tokens, signing and webhook secrets (lists too), passwords, credentials. The state's
 * Postgres URL may carry a password. A problem with such an option never shows its value, whatever
 * its type (a number, a list, an object), and no echoed value shows one nested inside it.
 */
const SECRET_NAME = /(key|keys|token|tokens|secret|secrets|password|passwd|passphrase|credential|credentials|dsn)$/i;
const SECRET_DOTTED = /^state\.url$/;
/** The password of a URL's `user:password@`. */
const URL_PASSWORD = /(\/\/[^/:@\s"]*:)[^@/\s"]*@/g;

/** Whether a config path is, or sits inside, an option that holds a secret. */
export function isSecretPath(path: readonly PathSegment[]): boolean {
  const names = path.filter((segment): segment is string => typeof segment === "string");
  if (SECRET_DOTTED.test(names.join("."))) return true;
  return names.some((name) => SECRET_NAME.test(name));
}

function valueAt(input: unknown, path: readonly PathSegment[]): unknown {
  let node = input;
  for (const segment of path) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}

/** `(got ...)`: the offending value, short, with every secret option inside it replaced. */
function echo(value: unknown, path: readonly PathSegment[]): string {
  // Where each object met during the walk sits in the config, so a nested `state.url` is known too.
  const at = new WeakMap<object, readonly PathSegment[]>();
  const shown = JSON.stringify(value, function (this: unknown, key: string, inner: unknown) {
    const parent = key === "" ? undefined : at.get(this as object);
    const here = parent === undefined ? path : [...parent, Array.isArray(this) ? Number(key) : key];
    if (parent !== undefined && isSecretPath(here)) return "[redacted]";
    if (typeof inner === "object" && inner !== null) at.set(inner, here);
    return inner;
  });
  if (shown === undefined) return "";
  // A URL anywhere in the value (`api.url`, a route) may carry a password: `user:...@`.
  const masked = shown.replace(URL_PASSWORD, "$1[redacted]@");
  return ` (got ${masked.length > 60 ? `${masked.slice(0, 57)}...` : masked})`;
}

function where(ctx: IssueContext, path: readonly PathSegment[], dotted: string): string {
  const env = ctx.envOrigins.get(dotted) ?? ctx.envOrigins.get(dotted.replace(/\[\d+\]$/, ""));
  if (env) return `${dotted} (from ${env})`;
  const location = ctx.locate(path);
  return location ? `${dotted} (${location})` : dotted;
}

/** One ConfigIssue per problem; unknown keys are split into one issue each with a suggestion. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], ctx: IssueContext): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const issue of issues) {
    const path = issue.path.filter((s): s is PathSegment => typeof s !== "symbol");
    if (issue.code === "unrecognized_keys") {
      const known = knownKeysAt(ctx.schema, path);
      for (const key of issue.keys) {
        const keyPath = [...path, key];
        const suggestion = closestKey(key, known);
        out.push({
          path: where(ctx, keyPath, formatPath(keyPath)),
          message: suggestion
            ? `unknown option — did you mean ${suggestion}?`
            : `unknown option (known options here: ${known.join(", ")})`,
        });
      }
      continue;
    }
    const dotted = formatPath(path);
    const value = valueAt(ctx.input, path);
    const shown = value === undefined || isSecretPath(path) ? "" : echo(value, path);
    out.push({ path: where(ctx, path, dotted), message: `${issue.message}${shown}` });
  }
  return out;
}
