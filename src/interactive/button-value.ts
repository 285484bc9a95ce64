import { createHash } from "node:crypto";
import { z } from "zod";

/**
 * What a button press is about, carried in the element's `value` so that the daemon needs no
 * lookup to act: the lens, the organization (competitor workspaces have their own), the employee
 * id (the PATCH of Stop tracking), the canonical profile URL (the reconcile hold), the person's
 * reference (snoozes and acknowledgements, derived from the thread key) and the change.
 */
export interface ActionTarget {
  readonly lens: "retention" | "poaching";
  readonly organizationId: number;
  readonly employeeId?: number | undefined;
  /** Canonical profile URL (`canonicalProfileUrl`); absent in the compact form of menu options. */
  readonly profileUrl?: string | undefined;
  /** `personRef(threadKey)`: the key of snoozes and acknowledgements. */
  readonly personRef: string;
  readonly changeKey: string;
  /** The person's name, for journal lines and updated messages (clipped; absent in menu options). */
  readonly name?: string | undefined;
}

/** Slack's limits: a button's value, a menu option's value. */
export const MAX_BUTTON_VALUE = 2000;
export const MAX_OPTION_VALUE = 150;

const PREFIX = "rs1:";
const COMPACT_PREFIX = "rs1|";
const MAX_NAME = 80;
const MAX_PLAIN_REF = 48;

const hashed = (text: string, length: number): string =>
  `h:${createHash("sha256").update(text).digest("hex").slice(0, length)}`;

/**
 * The key a person's snooze and acknowledgement are stored under: the thread key (`personKey`,
 * `<org>:<employee id | profile URL | name>`) when short and free of `|`, else its hash. The
 * hand-over computes the same from each alert.
 */
export function personRef(threadKey: string): string {
  return threadKey.length <= MAX_PLAIN_REF && !threadKey.includes("|") && !threadKey.startsWith("h:")
    ? threadKey
    : hashed(threadKey, 24);
}

/** A change key as a menu option carries it (hashed when long or holding `|`). */
export const compactChangeKey = (key: string): string =>
  key.length <= 40 && !key.includes("|") ? key : hashed(key, 16);

/** A person's name as values and records carry it: its first 80 characters. */
export const clippedName = (name: string): string => [...name].slice(0, MAX_NAME).join("");

/** Slack's message ts: seconds, a dot, microseconds. */
const TS = /^\d{1,12}\.\d{1,8}$/;

const jsonValueSchema = z.object({
  v: z.literal(1),
  l: z.enum(["r", "p"]),
  o: z.number().int().nonnegative(),
  e: z.number().int().positive().optional(),
  u: z
    .url({ protocol: /^https$/ })
    .max(MAX_BUTTON_VALUE)
    .optional(),
  p: z.string().min(1).max(80),
  c: z.string().min(1).max(200),
  n: z
    .string()
    .max(MAX_NAME * 4)
    .optional(),
  m: z.string().regex(TS).optional(),
});

const LENS_CODE = { retention: "r", poaching: "p" } as const;
const lensOf = (code: "r" | "p") => (code === "r" ? "retention" : "poaching");

/**
 * The value of a button: JSON after a version prefix, never over 2,000 characters (the name, then
 * the URL go first). `answersTs`: the button of an ephemeral confirmation, which names the
 * message it answers (a digest in the same channel), the message a press of it is checked against.
 */
export function encodeButtonValue(target: ActionTarget, answersTs?: string): string {
  const base = {
    v: 1,
    l: LENS_CODE[target.lens],
    o: target.organizationId,
    ...(target.employeeId !== undefined ? { e: target.employeeId } : {}),
    p: target.personRef,
    c: compactChangeKey(target.changeKey),
    ...(answersTs !== undefined ? { m: answersTs } : {}),
  };
  const name = target.name === undefined ? undefined : clippedName(target.name);
  const candidates = [
    { ...base, ...(target.profileUrl ? { u: target.profileUrl } : {}), ...(name ? { n: name } : {}) },
    { ...base, ...(target.profileUrl ? { u: target.profileUrl } : {}) },
    base,
  ];
  for (const candidate of candidates) {
    const value = PREFIX + JSON.stringify(candidate);
    if (value.length <= MAX_BUTTON_VALUE) return value;
  }
  return PREFIX + JSON.stringify(base);
}

/** What a menu option stands for: a verb with its argument (snooze days). */
export type OptionVerb = "ack" | "snooze" | "untrack";

/**
 * The value of a menu option (≤ 150 characters): `rs1|<verb>|<days>|<lens>|<org>|<employee>|<person ref>|<change>`.
 * It cannot carry the profile URL; Stop tracking reads it from the service when it needs it.
 */
export function encodeOptionValue(verb: OptionVerb, days: number | undefined, target: ActionTarget): string {
  const parts = [
    verb,
    days === undefined ? "" : String(days),
    LENS_CODE[target.lens],
    String(target.organizationId),
    target.employeeId === undefined ? "" : String(target.employeeId),
    target.personRef,
    compactChangeKey(target.changeKey),
  ];
  const value = COMPACT_PREFIX + parts.join("|");
  return value.length <= MAX_OPTION_VALUE
    ? value
    : COMPACT_PREFIX + [...parts.slice(0, 5), target.personRef, ""].join("|");
}

export type DecodedValue =
  | {
      readonly ok: true;
      readonly target: ActionTarget;
      readonly verb?: OptionVerb;
      readonly days?: number;
      /** The message an ephemeral confirmation answers (`encodeButtonValue`'s `answersTs`). */
      readonly answersTs?: string;
    }
  | { readonly ok: false; readonly reason: string };

const compactSchema = z.tuple([
  z.enum(["ack", "snooze", "untrack"]),
  z.union([z.literal(""), z.string().regex(/^\d{1,4}$/)]),
  z.enum(["r", "p"]),
  z.string().regex(/^\d{1,15}$/),
  z.union([z.literal(""), z.string().regex(/^\d{1,15}$/)]),
  z.string().min(1).max(80),
  z.string().max(60),
]);

function decodeJson(text: string): DecodedValue {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, reason: "the value is not JSON" };
  }
  const parsed = jsonValueSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, reason: "the value is not one this program made (or a newer one's)" };
  const v = parsed.data;
  return {
    ok: true,
    target: {
      lens: lensOf(v.l),
      organizationId: v.o,
      ...(v.e !== undefined ? { employeeId: v.e } : {}),
      ...(v.u !== undefined ? { profileUrl: v.u } : {}),
      personRef: v.p,
      changeKey: v.c,
      ...(v.n !== undefined ? { name: v.n } : {}),
    },
    ...(v.m !== undefined ? { answersTs: v.m } : {}),
  };
}

function decodeCompact(text: string): DecodedValue {
  const parsed = compactSchema.safeParse(text.split("|"));
  if (!parsed.success) return { ok: false, reason: "the option value is not one this program made" };
  const [verb, days, lens, org, employee, ref, change] = parsed.data;
  return {
    ok: true,
    verb,
    ...(days !== "" ? { days: Number(days) } : {}),
    target: {
      lens: lensOf(lens),
      organizationId: Number(org),
      ...(employee !== "" ? { employeeId: Number(employee) } : {}),
      personRef: ref,
      changeKey: change === "" ? "unknown" : change,
    },
  };
}

/** Reads a button or option value back; anything this program did not make is refused with a reason. */
export function decodeValue(value: unknown): DecodedValue {
  if (typeof value !== "string" || value.length > MAX_BUTTON_VALUE) return { ok: false, reason: "no usable value" };
  if (value.startsWith(PREFIX)) return decodeJson(value.slice(PREFIX.length));
  if (value.startsWith(COMPACT_PREFIX)) return decodeCompact(value.slice(COMPACT_PREFIX.length));
  return { ok: false, reason: "the value does not carry this program's prefix" };
}
