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
