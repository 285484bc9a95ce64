import type { Config } from "../../config/schema.js";
import { PRESETS } from "../presets/index.js";
import { type PresetName, VENDOR_PRESETS } from "../presets/names.js";
import type { RosterPreset, Signature } from "../presets/preset.js";
import { type FieldMapping, ROSTER_FIELDS } from "../roster-columns.js";
import { evaluatePath, normalizeName, parsePath } from "./field-path.js";

export type MappingSetting = Config["roster"]["mapping"];

/** The mapping a file is read with, and how it was chosen (shown by check, the report and the log). */
export interface MappingChoice {
  /** The preset the fields come from, or `explicit` for fields alone. */
  readonly preset: PresetName | "explicit";
  /** "recognised by its records at Report_Entry", "named in roster.mapping", ... */
  readonly how: string;
  readonly fields: FieldMapping;
  /** Status-like keys the preset knows to say nothing about employment, plus `roster.ignoreColumns`. */
  readonly ignore: readonly string[];
  /** Vendor codes read as words (normalized code -> word). */
  readonly values: ReadonlyMap<string, string>;
  /** When the mapping was named and the file looks like another vendor's: which preset would read it. */
  readonly hint?: string;
}

/** What a file shows before its mapping is chosen: a CSV header, or a JSON document's first record. */
export type FileShape =
  | { readonly kind: "csv"; readonly headers: readonly string[] }
  | {
      readonly kind: "json";
      readonly recordsAt: string | undefined;
      readonly record: Readonly<Record<string, unknown>>;
    };

/** The preset named by the setting, `auto`, or none (fields alone). */
export function namedPreset(setting: MappingSetting): PresetName | "auto" | undefined {
  return typeof setting === "string" ? setting : setting.preset;
}

/** The records path of the preset named outright (not `auto`): used when `roster.records` is unset. */
export function presetRecords(setting: MappingSetting): string | undefined {
  const name = namedPreset(setting);
  return name === undefined || name === "auto" ? undefined : PRESETS[name].records;
}

function signatureScore(signature: Signature, shape: FileShape): number {
  let score = 0;
  if (shape.kind === "csv") {
    if (signature.headers === undefined) return 0;
    const present = new Set(shape.headers.map(normalizeName));
    return signature.headers.every((h) => present.has(normalizeName(h))) ? signature.headers.length : 0;
  }
  if (signature.keys === undefined && signature.recordsAt === undefined) return 0;
  if (signature.recordsAt !== undefined) {
    const at = normalizeName(shape.recordsAt ?? "\u0000");
    if (!signature.recordsAt.some((r) => normalizeName(r) === at)) return 0;
    score += 1;
  }
  for (const key of signature.keys ?? []) {
    if (evaluatePath(shape.record, parsePath(key, { allowAny: false })) === undefined) return 0;
    score += 1;
  }
  return score;
}

/** The vendor whose signature matches the file best, and the signature's words; undefined if none. */
export function recognise(shape: FileShape): { preset: PresetName; by: string } | undefined {
  let best: { preset: PresetName; by: string; score: number } | undefined;
  for (const name of VENDOR_PRESETS) {
    for (const signature of PRESETS[name].recognise) {
      const score = signatureScore(signature, shape);
      if (score > 0 && (best === undefined || score > best.score)) {
        best = { preset: name, by: describeSignature(signature, shape), score };
      }
    }
  }
  return best;
}

function describeSignature(signature: Signature, shape: FileShape): string {
  if (shape.kind === "csv") return `its columns ${(signature.headers ?? []).join(", ")}`;
  const parts: string[] = [];
  if (signature.recordsAt !== undefined) parts.push(`its records at ${shape.recordsAt}`);
  if (signature.keys !== undefined) parts.push(`the keys ${signature.keys.join(", ")}`);
  return parts.join(" and ");
}

function fieldsOf(preset: RosterPreset | undefined, overrides: MappingSetting): FieldMapping {
  const own = typeof overrides === "string" ? {} : overrides;
  return Object.fromEntries(
    ROSTER_FIELDS.map((field) => [field, own[field] ?? preset?.fields[field] ?? []]),
  ) as unknown as FieldMapping;
}

function valuesOf(preset: RosterPreset | undefined): ReadonlyMap<string, string> {
  return new Map(Object.entries(preset?.values ?? {}).map(([code, word]) => [normalizeName(code), word]));
}

/** Chooses the mapping for a file: the named preset (with the setting's own fields over it), or by `auto`. */
export function chooseMapping(
  setting: MappingSetting,
  shape: FileShape,
  ignoreColumns: readonly string[],
): MappingChoice {
  const name = namedPreset(setting);
  const overridden = typeof setting === "string" ? "" : " (with the fields listed in roster.mapping over it)";
  let preset: PresetName | "explicit";
  let how: string;
  if (name === undefined) {
    preset = "explicit";
    how = "the fields listed in roster.mapping";
  } else if (name === "auto") {
    const found = recognise(shape);
    preset = found?.preset ?? "generic";
    how =
      found === undefined
        ? `mapping auto: no vendor export recognised, so the generic column names${overridden}`
        : `mapping auto: recognised by ${found.by}${overridden}`;
  } else {
    preset = name;
    how = `named in roster.mapping${overridden}`;
  }
  const base = preset === "explicit" ? undefined : PRESETS[preset];
  const hint = name === "auto" ? undefined : otherVendor(shape, preset);
  return {
    preset,
    how,
    fields: fieldsOf(base, setting),
    ignore: [...(base?.ignore ?? []), ...ignoreColumns],
    values: valuesOf(base),
    ...(hint === undefined ? {} : { hint }),
  };
}

/** "the file looks like a Workday export ...": when a named mapping is not the vendor the file shows. */
function otherVendor(shape: FileShape, chosen: PresetName | "explicit"): string | undefined {
  const found = recognise(shape);
  if (found === undefined || found.preset === chosen) return undefined;
  return (
    `the file looks like ${PRESETS[found.preset].title} (by ${found.by}): ` +
    `roster.mapping: ${found.preset} (or auto) reads it by the vendor's field names`
  );
}

/** "BambooHR (...)" for a message; the name itself for `explicit`. */
export function presetTitle(preset: PresetName | "explicit"): string {
  return preset === "explicit" ? "an explicit mapping" : `${PRESETS[preset].title} (preset ${preset})`;
}
