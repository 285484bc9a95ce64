import { statSync } from "node:fs";
import type { Config } from "../config/schema.js";
import { canonicalProfileUrl } from "../roster/canonical-profile-url.js";
import { readRoster, rosterReadOptions } from "../roster/read-roster.js";
import type { HrisDetails, HrisLookup } from "./enrich.js";

/** Builds the HR data lookup (department, manager, employee id, HR title) from the HRIS export, keyed by canonical profile URL. */
export async function loadHrisLookup(roster: Config["roster"], now: Date): Promise<HrisLookup | undefined> {
  if (!roster.file || !roster.enabled) return undefined;
  const file = await readRoster(rosterReadOptions(roster, roster.file, now));
  const byUrl = new Map<string, HrisDetails>();
  const rows = [...file.excluded, ...file.people];
  const nameByEmail = new Map(rows.flatMap((p) => (p.email && p.name ? [[p.email.toLowerCase(), p.name]] : [])));
  for (const person of rows) {
    const canonical = canonicalProfileUrl(person.profileUrl);
    if (!canonical.ok) continue;
    const { department, managerEmail, employeeId, title } = person;
    const managerName = managerEmail ? nameByEmail.get(managerEmail.toLowerCase()) : undefined;
    byUrl.set(canonical.url, { department, managerEmail, employeeId, title, managerName });
  }
  return (networkUrl) => {
    const canonical = canonicalProfileUrl(networkUrl);
    return canonical.ok ? byUrl.get(canonical.url) : undefined;
  };
}

/** What identifies a version of the export without reading it: changed by any rewrite or replacement. */
function fileVersion(path: string): string | undefined {
  try {
    const stat = statSync(path);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * The lookup of the current export, read again only when the file changed (another inode, size or
 * modification time): every poll pass asks for it, and parsing a large export each time costs
 * seconds of CPU and a transient copy of every row.
 */
export function cachedHrisLookup(roster: Config["roster"]): (now: Date) => Promise<HrisLookup | undefined> {
  let cached: { version: string; lookup: HrisLookup | undefined } | undefined;
  return async (now) => {
    if (!roster.file || !roster.enabled) return undefined;
    const version = fileVersion(roster.file);
    if (version !== undefined && cached?.version === version) return cached.lookup;
    const lookup = await loadHrisLookup(roster, now);
    // A file changing while it was read gets read again next time.
    if (version !== undefined && fileVersion(roster.file) === version) cached = { version, lookup };
    return lookup;
  };
}
