import type { RetentionClient } from "../api/client.js";
import type { Employee } from "../api/spec-records.js";
import type { Logger } from "../logger.js";
import type { Lens } from "./lens.js";

export type DirectoryClient = Pick<RetentionClient, "listEmployees" | "getEmployee">;

/** How long a roster read from list pages is trusted before it is read again. */
export const PERSON_CACHE_TTL_MS = 60 * 60_000;
const PAGE_SIZE = 100;

interface OrgRoster {
  readonly people: Map<number, Employee>;
  /** Ids neither the list nor a single look-up found, not asked again until the roster is read again. */
  readonly unknown: Set<number>;
  filledAt: number;
}

/** Requests made, for the pass report and tests: list pages and single look-ups. */
export interface DirectoryCounts {
  listPages: number;
  singleReads: number;
}

/**
 * The people of each organization, read from `GET /employees` list pages (100 a page) instead of
 * one `GET /employees/{id}` per change without an embedded person: a burst of 1,000 such changes
 * costs the roster's pages (3 for 300 people), not 1,000 requests. A roster is read whole when
 * first needed and again after `PERSON_CACHE_TTL_MS`; a person missing from a fresh copy (a
 * joiner) is looked for on the newest pages (the list is newest first), and only then fetched
 * alone. Kept in memory only: nothing about people is written to the state database.
 */
export class PersonDirectory {
  private readonly orgs = new Map<number, OrgRoster>();
  private readonly pending = new Map<number, Promise<OrgRoster>>();
  readonly counts: DirectoryCounts = { listPages: 0, singleReads: 0 };

  constructor(
    private readonly client: DirectoryClient,
    private readonly options: { readonly logger: Logger; readonly now?: () => number; readonly ttlMs?: number },
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Person `id` of the lens's organization; undefined when the service does not know them. Throws only on abort. */
  async find(id: number, lens: Lens, signal?: AbortSignal): Promise<Employee | undefined> {
    const org = lens.organizationId;
    let roster = this.orgs.get(org);
    const fresh = roster !== undefined && this.now() - roster.filledAt < (this.options.ttlMs ?? PERSON_CACHE_TTL_MS);
    try {
      if (!roster || !fresh) roster = await this.fill(lens);
      else if (!roster.people.has(id) && !roster.unknown.has(id)) await this.readNewest(lens, roster, id);
    } catch (error) {
      if (signal?.aborted) throw error;
      this.options.logger.warn(
        { organizationId: org, err: error },
        "could not read the roster list for person details; looking the person up alone",
      );
    }
    const current = this.orgs.get(org);
    const known = current?.people.get(id);
    if (known) return known;
    if (current?.unknown.has(id)) return undefined;
    const found = await this.single(id, signal);
    if (found) current?.people.set(id, found);
    else current?.unknown.add(id);
    return found;
  }

  /** A person by id from any roster already read, else one `GET /employees/{id}` (the webhook door). */
  async get(id: number): Promise<Employee> {
    for (const roster of this.orgs.values()) {
      const known = roster.people.get(id);
      if (known) return known;
    }
    this.counts.singleReads += 1;
    return this.client.getEmployee(id);
  }

  private async single(id: number, signal: AbortSignal | undefined): Promise<Employee | undefined> {
    try {
      return await this.get(id);
    } catch (error) {
      if (signal?.aborted) throw error;
      this.options.logger.warn(
        { employeeId: id, err: error },
        "could not fetch employee details; alerting without them",
      );
      return undefined;
    }
  }

  private query(lens: Lens, page: number) {
    return {
      ...(lens.kind === "poaching" ? { organizationId: lens.organizationId } : {}),
      page,
      pageSize: PAGE_SIZE,
    };
  }

  /** Reads the organization's whole roster (once at a time per organization). */
  private fill(lens: Lens): Promise<OrgRoster> {
    const org = lens.organizationId;
    let pending = this.pending.get(org);
    if (!pending) {
      pending = (async () => {
        const people = new Map<number, Employee>();
        const startedAt = this.now();
        for (let page = 1; ; page += 1) {
          const result = await this.client.listEmployees(this.query(lens, page));
          this.counts.listPages += 1;
          for (const person of result.items) people.set(person.id, person);
          if (!result.hasMore || result.items.length === 0 || page >= 10_000) break;
        }
        const roster = { people, unknown: new Set<number>(), filledAt: startedAt };
        this.orgs.set(org, roster);
        return roster;
      })().finally(() => this.pending.delete(org));
      this.pending.set(org, pending);
    }
    return pending;
  }

  /** Looks for a joiner on the newest pages, stopping at the first page with nobody new. */
  private async readNewest(lens: Lens, roster: OrgRoster, id: number): Promise<void> {
    for (let page = 1; page <= 10_000; page += 1) {
      const result = await this.client.listEmployees(this.query(lens, page));
      this.counts.listPages += 1;
      let unknown = 0;
      for (const person of result.items) {
        if (!roster.people.has(person.id)) unknown += 1;
        roster.people.set(person.id, person);
      }
      if (roster.people.has(id) || unknown === 0 || !result.hasMore) return;
    }
  }
}
