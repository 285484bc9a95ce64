import type { Alert } from "../src/alerts/alert.js";
import { alertSettings } from "../src/alerts/alert-settings.js";
import { ChangeEnricher } from "../src/alerts/enrich.js";
import { type AlertDraft, planDeliveries } from "../src/alerts/plan-deliveries.js";
import type { PollClient } from "../src/alerts/poll-changes.js";
import type { ChangeItem } from "../src/api/change-item.js";
import { CHANGE_TYPES } from "../src/api/change-types.js";
import type { Competitor } from "../src/api/loose-records.js";
import { type Employee, type Me, type Page, riskLevelOfScore } from "../src/api/spec-records.js";
import { configSchema } from "../src/config/schema.js";
import { silentLogger } from "../src/logger.js";
import { BOTH_LENS_ROUTES } from "./alert-routes.js";

/**
 * Changes made up in the bench process, shaped like the emulator's (same fields, similar text
 * lengths), for the runs that must not pay for HTTP: the growth scenario and the pending scan.
 */

export const OWN_ORG_ID = 1;
export const COMPETITOR = { id: 2, name: "Acme Corp" } as const;
export type LensKind = "retention" | "poaching";

/** A small seeded generator (mulberry32): the same seed gives the same changes. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SUMMARIES: Record<string, string> = {
  profile_update: "updated their profile",
  headline_change: "changed their headline",
  title_change: "changed their job title",
  open_to_work: "turned on Open to Work",
  new_skills: "added new skills",
  location_change: "changed their location",
  photo_or_summary: "updated their photo or summary",
  edit_activity: "edited their profile repeatedly",
  experience_change: "changed their experience section",
  employee_departed: "left the company",
};
const DEPARTMENTS = ["Engineering", "Sales", "Marketing", "Support", "Finance"];

/** One change about person `person` of a lens (slugs `own-<n>` and `rival-<n>`, like the emulator seeding). */
export function syntheticChange(
  id: number,
  lens: LensKind,
  person: number,
  detectedAt: string,
  random: () => number,
): ChangeItem {
  const changeType = CHANGE_TYPES[Math.floor(random() * (CHANGE_TYPES.length - 1))] ?? "profile_update";
  const riskScore = Math.round((0.2 + random() * 0.79) * 100) / 100;
  const slug = `${lens === "retention" ? "own" : "rival"}-${person}`;
  const organizationId = lens === "retention" ? OWN_ORG_ID : COMPETITOR.id;
  const employeeId = (lens === "retention" ? 100_000 : 200_000) + person;
  const summary = SUMMARIES[changeType] ?? "updated their profile";
  return {
    key: `chg:${id}`,
    id,
    organizationId,
    employeeId,
    changeType,
    riskScore,
    riskLevel: riskLevelOfScore(riskScore, changeType),
    detectedAt,
    summary: `Person ${slug} ${summary}`,
    factors: ["Headline no longer mentions the current employer", "Profile refreshed after a long quiet period"],
    changedFields: "headline,about",
    employee: {
      id: employeeId,
      name: `Person ${slug}`,
      title: "Senior Engineer",
      location: "Berlin, Germany",
      department: DEPARTMENTS[person % DEPARTMENTS.length] ?? "Engineering",
      networkUrl: `https://www.linkedin.com/in/${slug}`,
      profileImageUrl: `https://media.example.com/profile/${slug}.jpg`,
      url: `https://retention.example.com/employees/${employeeId}`,
    },
  };
}

/**
 * A PollClient without HTTP: the own company plus one competitor workspace, and the changes put in
 * with `add` (returned once by the next `iterateChanges` of their lens, as a service would after
 * the cursor). Never asked for an employee: every change carries its person.
 */
export class InMemoryPollClient implements PollClient {
  private readonly waiting: Record<LensKind, ChangeItem[]> = { retention: [], poaching: [] };

  add(lens: LensKind, items: readonly ChangeItem[]): void {
    this.waiting[lens].push(...items);
  }

  async me(): Promise<Me> {
    return {
      organization: { id: OWN_ORG_ID, name: "Own Company" },
      competitors: [{ id: COMPETITOR.id, name: COMPETITOR.name }],
      scopes: ["read"],
    };
  }

  async listCompetitors(): Promise<Competitor[]> {
    return [{ id: COMPETITOR.id, name: COMPETITOR.name }];
  }

  async *iterateChanges(query: { organizationId?: number | undefined } = {}): AsyncGenerator<ChangeItem> {
    const lens: LensKind = query.organizationId === COMPETITOR.id ? "poaching" : "retention";
    const items = this.waiting[lens];
    this.waiting[lens] = [];
    // Newest first, as the service lists them.
    for (let i = items.length - 1; i >= 0; i -= 1) {
      const item = items[i];
      if (item) yield item;
    }
  }

  async getEmployee(id: number): Promise<Employee> {
    throw new Error(`InMemoryPollClient: no employee look-up expected (asked for ${id})`);
  }

  /** An empty roster: every change carries its person, so the person directory is never needed. */
  async listEmployees(): Promise<Page<Employee>> {
    return { items: [], total: 0, page: 1, pageSize: 100, hasMore: false };
  }
}

/** `count` single-alert drafts as a hand-over plans them (half per lens, one channel per lens). */
export async function singleDrafts(count: number, firstId: number): Promise<AlertDraft[]> {
  const random = seededRandom(firstId);
  const enricher = new ChangeEnricher({
    getEmployee: () => Promise.reject(new Error("not asked")),
    logger: silentLogger(),
  });
  const alerts: Alert[] = [];
  const now = new Date().toISOString();
  for (let i = 0; i < count; i += 1) {
    const kind: LensKind = i % 2 === 0 ? "retention" : "poaching";
    const lens =
      kind === "retention"
        ? { kind, organizationId: OWN_ORG_ID }
        : { kind, organizationId: COMPETITOR.id, competitor: { ...COMPETITOR } };
    alerts.push(await enricher.toAlert(syntheticChange(firstId + i, kind, i % 20_000, now, random), lens));
  }
  const { routing } = alertSettings(configSchema.parse({ alerts: { routes: BOTH_LENS_ROUTES } }));
  // A threshold above the count: every alert is a message of its own (the largest entries).
  return planDeliveries({ alerts, routing, digestThreshold: count + 1, managerDm: false }).drafts;
}
