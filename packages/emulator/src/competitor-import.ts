import { trialRoom } from "./admission.js";
import { recordSeat } from "./billing.js";
import type { EmulatorWorld } from "./emulator-world.js";
import type { OrganizationRecord } from "./model.js";
import { generatedPerson, matchesRoleFilters, personaFor } from "./persona.js";
import { Rng } from "./rng.js";

/** The people the "network" lists for a company page: deterministic per company slug. */
export function companyRoster(companySlug: string): Array<{ name: string; slug: string }> {
  const rng = new Rng(`roster:${companySlug}`);
  const size = 30 + rng.int(30);
  return Array.from({ length: size }, (_, n) => generatedPerson(rng, n));
}

/**
 * Background roster import of a competitor workspace (spec 3.2): adds the people matching the
 * role filters who are not there yet, tracked unless the workspace is paused or the trial has no
 * room left (its 100 in total or the workspace's allowance, `trialRoom`). People imported while
 * paused join those tracked again on resume. Imports do not count against the API allowances.
 */
export function runRosterImport(em: EmulatorWorld, org: OrganizationRecord, now: number): number {
  const slug = org.networkId ?? "";
  const acc = em.account(org.companyId);
  let added = 0;
  for (const person of companyRoster(slug)) {
    const canonicalUrl = `https://www.linkedin.com/in/${person.slug}`;
    if (em.state.findByUrl(org.id, canonicalUrl)) continue;
    if (!matchesRoleFilters(personaFor(person.slug), org.roleFilters)) continue;
    const tracked = !org.paused && trialRoom(em, org, now) > 0;
    const emp = em.state.insertEmployee({
      organizationId: org.id,
      networkUrl: canonicalUrl,
      canonicalUrl,
      slug: person.slug,
      name: person.name,
      tracked,
      now,
      importReadyAt: null,
    });
    if (tracked) recordSeat(acc, now, false);
    // Imported while paused: tracked when the workspace resumes (monitoring and billing return).
    else if (org.paused) org.pausedTrackedIds.push(emp.id);
    added++;
  }
  return added;
}
