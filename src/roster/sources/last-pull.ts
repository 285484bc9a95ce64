import type { Config } from "../../config/schema.js";
import { pullDirFor } from "./open-source.js";
import { PullStore } from "./pull-store.js";
import type { PulledExport } from "./roster-source.js";

/** The file of a pull as the store keeps it, and how to read it. */
export type KeptExport = Pick<PulledExport, "file" | "format">;

/** The names a source's meta may give its kept file: its own prefix and an extension, no folder. */
const KEPT_NAME: Record<"https" | "sftp", RegExp> = {
  https: /^https\.(json|csv|ndjson|export)$/,
  sftp: /^sftp\.(csv|tsv|txt|json|ndjson|jsonl|export)$/,
};

/**
 * The last complete pull of the configured source, as reconcile last read it, without pulling:
 * what the HR fields of alerts are read from when `roster.source` is a pull. Undefined for the
 * file source, or before the first complete pull. Only complete pulls are ever in the store (a
 * pull in progress has a temporary name), so whatever is found here was whole.
 */
export async function lastPulledExport(config: Pick<Config, "roster" | "state">): Promise<KeptExport | undefined> {
  const source = config.roster.source;
  const store = new PullStore(pullDirFor(config));
  switch (source.type) {
    case "file":
      return undefined;
    case "bamboohr":
    case "merge":
      return { file: store.path(`${source.type}.json`), format: "json" };
    case "https":
    case "sftp": {
      const name = (await store.meta<{ name?: unknown }>(source.type))?.name;
      if (typeof name !== "string" || !KEPT_NAME[source.type].test(name)) return undefined;
      return { file: store.path(name), format: source.format };
    }
  }
}
