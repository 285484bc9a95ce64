import { newAccount } from "./billing.js";
import { DAY, HOUR } from "./clock.js";
import { companyRoster } from "./competitor-import.js";
import type { OrganizationRecord } from "./model.js";
import { generatedPerson, matchesRoleFilters, personaFor } from "./persona.js";
import { Rng } from "./rng.js";
import { generateChange } from "./signals.js";
import type { EmulatorState } from "./state.js";

export type SeedName = "demo" | "empty";
export const SEED_NAMES: readonly SeedName[] = ["demo", "empty"];

export const COMPANY_ID = 1001;
export const OUTSIDER_ID = 9001;

function org(
  init: Partial<OrganizationRecord> & Pick<OrganizationRecord, "id" | "name" | "kind" | "companyId">,
  now: number,
): OrganizationRecord {
  return {
    website: null,
    networkId: null,
    companyInfo: null,
    alertRiskThreshold: 0.5,
    createdAt: now - 120 * DAY,
    companyNetworkUrl: null,
    roleFilters: [],
    paused: false,
    pausedTrackedIds: [],
    ...init,
  };
}

/** Adds one seeded person, created `ageMs` ago, tracked from creation when `tracked`. */
function seedPerson(
  state: EmulatorState,
  orgId: number,
  name: string,
  slug: string,
  tracked: boolean,
  createdAt: number,
) {
  const canonicalUrl = `https://www.linkedin.com/in/${slug}`;
  const emp = state.insertEmployee({
    organizationId: orgId,
    networkUrl: canonicalUrl,
    canonicalUrl,
    slug,
    name,
    tracked,
    now: createdAt,
    importReadyAt: null,
  });
  return emp;
}

/**
 * Builds the seeded world deterministically and returns the primary company id. Both seeds also
 * hold an unrelated company (Initech, id 9001) with a few people, so "outside the key's reach" is testable.
 */
export function buildSeed(state: EmulatorState, seed: SeedName, now: number): number {
  const rng = new Rng(`seed:${seed}`);
  state.addOrg(
    org(
      {
        id: COMPANY_ID,
        name: "Northwind Labs",
        kind: "primary",
        companyId: COMPANY_ID,
        website: "https://northwind.example",
        networkId: "northwind-labs",
      },
      now,
    ),
  );
  state.billing.set(COMPANY_ID, newAccount(now, "active"));
  state.addOrg(
    org({ id: OUTSIDER_ID, name: "Initech", kind: "primary", companyId: OUTSIDER_ID, networkId: "initech" }, now),
  );
  state.billing.set(OUTSIDER_ID, newAccount(now, "active"));
  for (let n = 0; n < 5; n++) {
    const p = generatedPerson(rng, 9000 + n);
    seedPerson(state, OUTSIDER_ID, p.name, `initech-${p.slug}`, true, now - 60 * DAY);
  }
  if (seed === "empty") return COMPANY_ID;

  const trackedPeople = [];
  for (let n = 0; n < 300; n++) {
    const p = generatedPerson(rng, n);
    const createdAt = now - (90 - Math.floor((n * 60) / 300)) * DAY;
    const tracked = n % 10 !== 3;
    const emp = seedPerson(state, COMPANY_ID, p.name, p.slug, tracked, createdAt);
    if (n % 37 === 5) {
      state.setTracked(emp, false, now - 5 * DAY);
      state.setStatus(emp, "archived");
    } else if (emp.tracked) trackedPeople.push(emp);
  }
  const competitors = [
    { id: 2001, slug: "acme-corp", roleFilters: ["engineering", "product"] },
    { id: 2002, slug: "globex", roleFilters: [] as string[] },
  ];
  for (const c of competitors) {
    const name = c.slug
      .split("-")
      .map((w) => w[0]?.toUpperCase() + w.slice(1))
      .join(" ");
    state.addOrg(
      org(
        {
          id: c.id,
          name,
          kind: "competitor",
          companyId: COMPANY_ID,
          networkId: c.slug,
          companyNetworkUrl: `https://www.linkedin.com/company/${c.slug}`,
          roleFilters: c.roleFilters,
        },
        now,
      ),
    );
    for (const p of companyRoster(c.slug)) {
      if (!matchesRoleFilters(personaFor(p.slug), c.roleFilters)) continue;
      trackedPeople.push(seedPerson(state, c.id, p.name, p.slug, true, now - 60 * DAY));
    }
  }
  // History: 200 changes over the last 14 days, in detection order.
  const times = Array.from({ length: 200 }, () => now - Math.floor(rng.next() * 14 * DAY) - HOUR).sort((a, b) => a - b);
  for (const at of times) {
    const emp = trackedPeople[rng.int(trackedPeople.length)];
    if (emp) state.addChange(generateChange(rng, emp, state.nextChangeId++, at));
  }
  return COMPANY_ID;
}
