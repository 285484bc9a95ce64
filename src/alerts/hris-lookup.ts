import type { Config } from "../config/schema.js";
import { canonicalProfileUrl } from "../roster/canonical-profile-url.js";
import { readRoster, rosterReadOptions } from "../roster/read-roster.js";
import type { KeptExport } from "../roster/sources/last-pull.js";
import type { HrisLookup } from "./enrich.js";
import type { HrisDetails } from "./hris-details.js";

/**
 * Builds the HR data lookup (department, manager, employee id, HR title) from the HRIS export,
 * keyed by canonical profile URL: `roster.file`, or the last complete pull when the roster is pulled.
 */
export async function loadHrisLookup(
  roster: Config["roster"],
  now: Date,
  pulled?: KeptExport,
): Promise<HrisLookup | undefined> {
  const path = pulled?.file ?? roster.file;
  if (!path || !roster.enabled) return undefined;
  const options = rosterReadOptions(roster, path, now);
  // Read as reconcile reads a pull: in the format its source names.
  const file = await readRoster(pulled && pulled.format !== "auto" ? { ...options, format: pulled.format } : options);
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
