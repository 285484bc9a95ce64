import type {
  BillingAccount,
  ChangeRecord,
  EmployeeRecord,
  KeyRecord,
  OrganizationRecord,
  WebhookEndpointRecord,
} from "./model.js";
import { personaFor, profileImageFor } from "./persona.js";
import { personNameFromSlug } from "./profile-url.js";

export interface RosterImportJob {
  orgId: number;
  readyAt: number;
}

/**
 * The in-memory model with the indexes a 100,000-person roster needs: by id, by canonical URL
 * within an organization, per-organization id lists in creation order, and tracked counts kept
 * incrementally. Every mutation goes through a method here so the indexes never drift.
 */
export class EmulatorState {
  readonly orgs = new Map<number, OrganizationRecord>();
  readonly employees = new Map<number, EmployeeRecord>();
  readonly changes = new Map<number, ChangeRecord>();
  readonly keys = new Map<string, KeyRecord>();
  readonly webhooks = new Map<string, WebhookEndpointRecord>();
  readonly billing = new Map<number, BillingAccount>();
  private readonly byUrl = new Map<string, number>();
  private readonly orgEmployees = new Map<number, number[]>();
  private readonly orgChanges = new Map<number, number[]>();
  private readonly tracked = new Map<number, number>();
  /** Ids whose profile import is running, in completion order (the delay is constant). */
  pendingImports: number[] = [];
  rosterImports: RosterImportJob[] = [];
  nextEmployeeId = 10_001;
  nextChangeId = 500_001;
  nextOrgId = 3_001;
  nextKeyId = 1;
  nextWebhookId = 1;
  nextDeliveryId = 1;
  /** Bumped on every mutation; list caches are keyed on it. */
  version = 0;

  addOrg(org: OrganizationRecord): void {
    this.orgs.set(org.id, org);
    this.orgEmployees.set(org.id, []);
    this.orgChanges.set(org.id, []);
    this.tracked.set(org.id, 0);
    this.version++;
  }

  competitorsOf(companyId: number): OrganizationRecord[] {
    return [...this.orgs.values()].filter((o) => o.kind === "competitor" && o.companyId === companyId);
  }

  employeeIdsOf(orgId: number): readonly number[] {
    return this.orgEmployees.get(orgId) ?? [];
  }

  changeIdsOf(orgId: number): readonly number[] {
    return this.orgChanges.get(orgId) ?? [];
  }

  trackedIn(orgId: number): number {
    return this.tracked.get(orgId) ?? 0;
  }

  findByUrl(orgId: number, canonicalUrl: string): EmployeeRecord | undefined {
    const id = this.byUrl.get(`${orgId} ${canonicalUrl}`);
    return id === undefined ? undefined : this.employees.get(id);
  }

  insertEmployee(init: {
    organizationId: number;
    networkUrl: string;
    canonicalUrl: string;
    slug: string;
    name: string;
    tracked: boolean;
    now: number;
    importReadyAt: number | null;
  }): EmployeeRecord {
    const id = this.nextEmployeeId++;
    const ready = init.importReadyAt === null;
    const persona = ready ? personaFor(init.slug) : null;
    const emp: EmployeeRecord = {
      id,
      organizationId: init.organizationId,
      name: init.name,
      title: persona?.title ?? null,
      location: persona?.location ?? null,
      department: persona?.department ?? null,
      networkUrl: init.networkUrl,
      canonicalUrl: init.canonicalUrl,
      slug: init.slug,
      profileImageUrl: ready ? profileImageFor(init.slug) : null,
      tracked: false,
      status: ready ? "active" : "importing",
      trackingStartedAt: null,
      createdAt: init.now,
      importReadyAt: init.importReadyAt,
      windows: [],
      changeIds: [],
    };
    this.employees.set(id, emp);
    this.byUrl.set(`${emp.organizationId} ${emp.canonicalUrl}`, id);
    this.orgEmployees.get(emp.organizationId)?.push(id);
    if (!ready) this.pendingImports.push(id);
    if (init.tracked) this.setTracked(emp, true, init.now);
    this.version++;
    return emp;
  }

  /** Starts or ends a tracking window; keeps tracked counts. */
  setTracked(emp: EmployeeRecord, tracked: boolean, now: number): void {
    if (emp.tracked === tracked) return;
    emp.tracked = tracked;
    this.tracked.set(emp.organizationId, this.trackedIn(emp.organizationId) + (tracked ? 1 : -1));
    if (tracked) {
      emp.trackingStartedAt = now;
      emp.windows.push({ from: now, to: null });
    } else {
      const open = emp.windows[emp.windows.length - 1];
      if (open && open.to === null) open.to = now;
    }
    this.version++;
  }

  setStatus(emp: EmployeeRecord, status: EmployeeRecord["status"]): void {
    emp.status = status;
    this.version++;
  }

  /** Completes profile imports that are due: the network's name, photo and attributes fill in. */
  settleImports(now: number): void {
    let done = 0;
    for (const id of this.pendingImports) {
      const emp = this.employees.get(id);
      if (emp && emp.importReadyAt !== null && emp.importReadyAt > now) break;
      done++;
      if (emp) this.finishImport(emp);
    }
    if (done > 0) {
      this.pendingImports.splice(0, done);
      this.version++;
    }
  }

  /** Completes one person's first profile fetch now (no-op when it is done): name, photo and attributes. */
  finishImport(emp: EmployeeRecord): void {
    if (emp.importReadyAt === null) return;
    const persona = personaFor(emp.slug);
    emp.name = personNameFromSlug(emp.slug);
    emp.title = persona.title;
    emp.department = persona.department;
    emp.location = persona.location;
    emp.profileImageUrl = profileImageFor(emp.slug);
    emp.importReadyAt = null;
    if (emp.status === "importing") emp.status = "active";
    this.version++;
  }

  addChange(change: ChangeRecord): void {
    this.changes.set(change.id, change);
    this.orgChanges.get(change.organizationId)?.push(change.id);
    this.employees.get(change.employeeId)?.changeIds.push(change.id);
    this.version++;
  }

  /** Erases a person and their change history. */
  eraseEmployee(emp: EmployeeRecord): void {
    if (emp.tracked) this.tracked.set(emp.organizationId, this.trackedIn(emp.organizationId) - 1);
    this.employees.delete(emp.id);
    this.byUrl.delete(`${emp.organizationId} ${emp.canonicalUrl}`);
    removeValue(this.orgEmployees.get(emp.organizationId), emp.id);
    if (emp.changeIds.length > 0) {
      const gone = new Set(emp.changeIds);
      for (const id of emp.changeIds) this.changes.delete(id);
      const list = this.orgChanges.get(emp.organizationId);
      if (list)
        this.orgChanges.set(
          emp.organizationId,
          list.filter((id) => !gone.has(id)),
        );
    }
    this.version++;
  }

  /** Erases a competitor workspace with its people and history. */
  eraseOrg(orgId: number): void {
    for (const id of this.employeeIdsOf(orgId)) {
      const emp = this.employees.get(id);
      if (!emp) continue;
      this.employees.delete(id);
      this.byUrl.delete(`${orgId} ${emp.canonicalUrl}`);
    }
    for (const id of this.changeIdsOf(orgId)) this.changes.delete(id);
    this.orgs.delete(orgId);
    this.orgEmployees.delete(orgId);
    this.orgChanges.delete(orgId);
    this.tracked.delete(orgId);
    this.rosterImports = this.rosterImports.filter((j) => j.orgId !== orgId);
    this.version++;
  }

  /** Tracked seats across a company and its competitor workspaces. */
  companyTracked(companyId: number): number {
    let total = this.trackedIn(companyId);
    for (const c of this.competitorsOf(companyId)) total += this.trackedIn(c.id);
    return total;
  }
}

function removeValue(list: number[] | undefined, value: number): void {
  if (!list) return;
  const i = list.lastIndexOf(value);
  if (i >= 0) list.splice(i, 1);
}
