import type { Config } from "../config/schema.js";
import { canonicalProfileUrl } from "../roster/canonical-profile-url.js";
import { readRoster, rosterReadOptions } from "../roster/read-roster.js";
import type { HrisDetails, HrisLookup } from "./enrich.js";

/** Builds the department/manager lookup from the HRIS export, keyed by canonical profile URL. */
export async function loadHrisLookup(roster: Config["roster"], now: Date): Promise<HrisLookup | undefined> {
  if (!roster.file || !roster.enabled) return undefined;
  const file = await readRoster(rosterReadOptions(roster, roster.file, now));
  const byUrl = new Map<string, HrisDetails>();
  for (const person of [...file.excluded, ...file.people]) {
    const canonical = canonicalProfileUrl(person.profileUrl);
    if (canonical.ok) byUrl.set(canonical.url, { department: person.department, managerEmail: person.managerEmail });
  }
  return (networkUrl) => {
    const canonical = canonicalProfileUrl(networkUrl);
    return canonical.ok ? byUrl.get(canonical.url) : undefined;
  };
}
