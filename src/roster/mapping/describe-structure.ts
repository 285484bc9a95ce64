import type { StructureEntry } from "../json-scan-types.js";

const SHOWN_ENTRIES = 8;
/** Members that hold the record itself in an envelope (Finch's `body`, JSON:API's `attributes`). */
const ENVELOPES = new Set(["body", "data", "attributes", "fields", "node", "record"]);

function what(entry: StructureEntry): string {
  if (entry.kind === "object") return `an object with keys ${entry.keys.join(", ") || "(none)"}`;
  const kinds = [...entry.elementKinds];
  const of = kinds.length === 1 ? `${kinds[0]}s` : kinds.length === 0 ? "values" : "mixed values";
  return `a list of ${entry.elements} ${entry.elements === 1 ? of.replace(/s$/, "") : of}`;
}

/** "top level: an object with keys paging, responses; responses: a list of 12 objects; ..." */
export function describeStructure(structure: readonly StructureEntry[]): string {
  return structure
    .slice(0, SHOWN_ENTRIES)
    .map((entry) => `${entry.path === "" ? "top level" : entry.path}: ${what(entry)}`)
    .join("; ");
}

/**
 * The likeliest `roster.records`: the longest list of objects; when each of its objects is an
 * envelope around one larger object (Finch's `{individual_id, code, body}`), that object.
 */
export function suggestRecords(structure: readonly StructureEntry[]): string | undefined {
  const lists = structure.filter((e) => e.kind === "array" && e.elementKinds.has("object") && e.elements > 0);
  lists.sort((a, b) => b.elements - a.elements || a.path.split(".").length - b.path.split(".").length);
  const best = lists[0];
  if (best === undefined) return undefined;
  const element = structure.find((e) => e.path === `${best.path}.*` && e.kind === "object");
  const inner = structure.filter(
    (e) =>
      e.kind === "object" &&
      e.path.startsWith(`${best.path}.*.`) &&
      e.path.split(".").length === best.path.split(".").length + 2,
  );
  const envelope = inner.find(
    (e) => ENVELOPES.has(e.path.split(".").at(-1) ?? "") || e.keys.length > (element?.keys.length ?? 0),
  );
  return envelope?.path ?? best.path;
}
