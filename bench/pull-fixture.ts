import {
  type BambooHrFake,
  type FakeRecord,
  samplePeople,
  startBambooHrFake,
} from "../test/helpers/fakes/bamboohr-fake.js";
import { type HttpsFake, type ReportRow, startHttpsFake, workdayRows } from "../test/helpers/fakes/https-fake.js";
import { type MergeFake, type MergeFakePerson, startMergeFake } from "../test/helpers/fakes/merge-fake.js";
import { joinerSlug, profileUrl, type RosterShape, serviceSlug } from "./roster-fixture.js";

/**
 * The people of the plan section's HRIS file (`writeHrisCsv`: everyone on the service but the
 * leavers, then the joiners), seeded into each vendor's fake in that vendor's own shape: the same
 * LinkedIn URLs, so every source plans the same steps. The rows come from the fakes' own
 * generators (`workdayRows`, `samplePeople`), with the URL (and, for joiners, the ids) replaced.
 */
export interface PullPerson {
  readonly slug: string;
  /** Unique across the roster: the CSV's `E<n>`. */
  readonly n: number;
}

export function hrisPeople(shape: RosterShape): PullPerson[] {
  const people: PullPerson[] = [];
  for (let i = 0; i < shape.size - shape.leavers; i += 1) people.push({ slug: serviceSlug(i), n: i });
  for (let i = 0; i < shape.joiners; i += 1) people.push({ slug: joinerSlug(i), n: shape.size + i });
  return people;
}

/** Workday RaaS rows (`Report_Entry`), `LinkedIn_Profile_URL` flat, as the workday preset reads it. */
export function raasRows(people: readonly PullPerson[]): ReportRow[] {
  return people.map((p) => {
    const [row] = workdayRows(1, "person", p.n);
    return { ...row, LinkedIn_Profile_URL: profileUrl(p.slug) };
  });
}

/** BambooHR people (field id -> value), the LinkedIn URL in the custom field `customLinkedInURL`. */
export function bambooPeople(people: readonly PullPerson[]): FakeRecord[] {
  return people.map((p) => {
    const [row] = samplePeople(1, p.n);
    return { ...row, customLinkedInURL: profileUrl(p.slug) };
  });
}

const DEPARTMENTS = ["Engineering", "Sales", "Marketing", "Support", "Finance"];

/** Merge people: full-time, active, the LinkedIn URL through the organisation's Field Mapping. */
export function mergeFakePeople(people: readonly PullPerson[]): MergeFakePerson[] {
  return people.map((p) => ({
    remoteId: `E${String(p.n).padStart(7, "0")}`,
    employeeNumber: `E${String(p.n).padStart(7, "0")}`,
    firstName: "Person",
    lastName: String(p.n),
    workEmail: `${p.slug}@example.com`,
    employmentStatus: "ACTIVE",
    employmentType: "FULL_TIME",
    jobTitle: "Engineer",
    department: DEPARTMENTS[p.n % DEPARTMENTS.length] ?? "Engineering",
    location: "Berlin",
    linkedin: profileUrl(p.slug),
  }));
}

/** The HTTP sources measured: `bamboohr-report` is BambooHR with the dataset refused (its fallback). */
export const PULL_SOURCES = ["https", "bamboohr", "bamboohr-report", "merge"] as const;
export type PullSourceName = (typeof PULL_SOURCES)[number];

/** How each source gets the people from its fake (the vendors' documented page sizes). */
export const PULL_LABELS: Record<PullSourceName, string> = {
  https: "https: Workday RaaS JSON, one answer",
  bamboohr: "bamboohr: dataset, 1,000 a page",
  "bamboohr-report": "bamboohr: custom report, one answer (dataset refused)",
  merge: "merge: 100 a page, 4 relations expanded",
};

/** A running fake: the `roster.source` settings and environment that point a source at it. */
export interface StartedFake {
  readonly source: PullSourceName;
  readonly rosterSource: Record<string, unknown>;
  readonly env: Record<string, string>;
  /** Requests the fake answered so far. */
  requests(): number;
  close(): Promise<void>;
}

/**
 * Starts the fake of `source` on 127.0.0.1, seeded with `people`, in this process. Merge's fake
 * answers each of its 1,000 pages `mergePageDelayMs` late (a real API's latency; the others answer
 * at once: one or a hundred answers, where a wait changes little).
 */
export async function startFake(
  source: PullSourceName,
  people: readonly PullPerson[],
  mergePageDelayMs = 0,
): Promise<StartedFake> {
  switch (source) {
    case "https": {
      const fake: HttpsFake = await startHttpsFake({ rows: raasRows(people) });
      return {
        source,
        rosterSource: { type: "https", url: fake.raasUrl("json"), username: fake.user },
        env: { HRIS_PASSWORD: fake.password },
        requests: () => fake.requests.length,
        close: () => fake.close(),
      };
    }
    case "bamboohr":
    case "bamboohr-report": {
      const fake: BambooHrFake = await startBambooHrFake({
        employees: bambooPeople(people),
        ...(source === "bamboohr-report" ? { datasetRefusal: 404 as const } : {}),
      });
      return {
        source,
        rosterSource: { type: "bamboohr", companyDomain: fake.companyDomain, baseUrl: fake.url },
        env: { BAMBOOHR_API_KEY: fake.apiKey },
        requests: () => fake.requests.length,
        close: () => fake.close(),
      };
    }
    case "merge": {
      const fake: MergeFake = await startMergeFake(mergeFakePeople(people), { pageDelayMs: mergePageDelayMs });
      return {
        source,
        rosterSource: { type: "merge", baseUrl: fake.url },
        env: { MERGE_API_KEY: fake.apiKey, MERGE_ACCOUNT_TOKEN: fake.accountToken },
        requests: () => fake.requests.length,
        close: () => fake.close(),
      };
    }
  }
}
