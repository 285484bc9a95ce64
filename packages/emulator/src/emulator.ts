import { randomBytes } from "node:crypto";
import { newAccount, rollPeriod } from "./billing.js";
import { VirtualClock } from "./clock.js";
import { runRosterImport } from "./competitor-import.js";
import { type FaultSettings, noFaults } from "./faults.js";
import { notFound } from "./http-error.js";
import type { EmulatorLogger } from "./logger.js";
import type { BillingAccount, ChangeRecord, KeyRecord, OrganizationRecord, Scope } from "./model.js";
import { RateLimiter } from "./rate-limit.js";
import { Rng } from "./rng.js";
import { buildSeed, type SeedName } from "./seed.js";
import { EmulatorState } from "./state.js";
import { dashboardUrl } from "./views.js";
import { WebhookDispatcher } from "./webhook-delivery.js";
import { admittedAt, eventBody, reduceEvent } from "./webhooks.js";

export interface EmulatorConfig {
  seed: SeedName;
  rateLimitPerMinute: number;
  allowLoopbackWebhooks: boolean;
  importDelayMs: number;
  concurrentAddLimit: number;
  addHoldMs: number;
  /** Overrides of the daily allowances (benchmarks); default 200 and 1000. */
  apiSeatsPerDay?: number | undefined;
  rowsPerDay?: number | undefined;
  logger: EmulatorLogger;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  query: string;
  status: number;
  time: string;
  keyId: string | null;
  durationMs: number;
  /** Set when a `lostResponseRate` fault cut the connection after the operation ran. */
  responseLost?: boolean;
}

const MAX_LOG = 10_000;

/** The emulator's whole mutable world: state, clock, limits, faults, deliveries and the request log. */
export class Emulator {
  state = new EmulatorState();
  readonly clock = new VirtualClock();
  readonly limiter: RateLimiter;
  faults: FaultSettings = noFaults();
  faultRng: Rng;
  signalRng: Rng;
  readonly dispatcher: WebhookDispatcher;
  requests: RequestLogEntry[] = [];
  companyId = 0;
  origin = "";
  readonly inFlightAdds = new Map<number, number>();
  /** Aborted by close(): ends held (timeout-fault) responses. */
  readonly closing = new AbortController();
  private readonly startupKeys: KeyRecord[] = [];

  constructor(readonly config: EmulatorConfig) {
    this.limiter = new RateLimiter(config.rateLimitPerMinute);
    this.faultRng = new Rng(`${config.seed}:faults`);
    this.signalRng = new Rng(`${config.seed}:signals`);
    this.dispatcher = new WebhookDispatcher(() => this.state.webhooks, this.clock, config.logger);
    this.loadSeed();
  }

  private loadSeed(): void {
    // Versions keep growing across resets so list caches keyed on them never serve the old world.
    const version = this.state.version + 1;
    this.state = new EmulatorState();
    this.state.version = version;
    this.companyId = buildSeed(this.state, this.config.seed, this.clock.now());
    for (const acc of this.state.billing.values()) this.applyLimits(acc);
    for (const k of this.startupKeys) this.state.keys.set(k.key, { ...k, revoked: false });
  }

  /** Back to the seed: state, clock offset, faults, limits, log; startup keys keep working. */
  reset(): void {
    this.dispatcher.clear();
    this.clock.reset();
    this.faults = noFaults();
    this.faultRng = new Rng(`${this.config.seed}:faults`);
    this.signalRng = new Rng(`${this.config.seed}:signals`);
    this.limiter.reset();
    this.requests = [];
    this.loadSeed();
  }

  createKey(init: {
    key?: string | undefined;
    scopes: Scope[];
    organizationId?: number | undefined;
    permanent?: boolean;
    revoked?: boolean;
  }): KeyRecord {
    const rec: KeyRecord = {
      id: `key_${this.state.nextKeyId++}`,
      key: init.key ?? `rsk_emu_${randomBytes(16).toString("hex")}`,
      organizationId: init.organizationId ?? this.companyId,
      scopes: init.scopes,
      revoked: init.revoked ?? false,
      createdAt: this.clock.now(),
      permanent: init.permanent ?? false,
    };
    this.state.keys.set(rec.key, rec);
    if (rec.permanent) this.startupKeys.push({ ...rec });
    return rec;
  }

  account(companyId: number): BillingAccount {
    let acc = this.state.billing.get(companyId);
    if (!acc) {
      acc = newAccount(this.clock.now());
      this.applyLimits(acc);
      this.state.billing.set(companyId, acc);
    }
    return acc;
  }

  private applyLimits(acc: BillingAccount): void {
    if (this.config.apiSeatsPerDay !== undefined) acc.apiSeatsPerDay = this.config.apiSeatsPerDay;
    if (this.config.rowsPerDay !== undefined) acc.rowsPerDay = this.config.rowsPerDay;
  }

  /** Lazy background work due on the virtual clock: profile imports, roster imports, billing periods. */
  settle(): void {
    const now = this.clock.now();
    this.state.settleImports(now);
    // A roster import adds people: while its company's adds are blocked (spec 3.4) it waits.
    const runs = (j: { orgId: number; readyAt: number }) => {
      const org = this.state.orgs.get(j.orgId);
      return j.readyAt <= now && !(org && this.account(org.companyId).chargeFailed);
    };
    const due = this.state.rosterImports.filter(runs);
    if (due.length > 0) {
      this.state.rosterImports = this.state.rosterImports.filter((j) => !runs(j));
      for (const job of due) {
        const org = this.state.orgs.get(job.orgId);
        if (org) runRosterImport(this, org, now);
      }
    }
    for (const acc of this.state.billing.values()) rollPeriod(acc, now);
  }

  /** The organization a key may reach: its company or one of that company's competitor workspaces. */
  reachableOrg(key: KeyRecord, organizationId?: number): OrganizationRecord {
    const id = organizationId ?? key.organizationId;
    const org = this.state.orgs.get(id);
    if (!org || org.companyId !== key.organizationId) throw notFound("Organization");
    return org;
  }

  company(key: KeyRecord): OrganizationRecord {
    const org = this.state.orgs.get(key.organizationId);
    if (!org) throw notFound("Organization");
    return org;
  }

  /** Records a detected change and sends it to the owning company's enabled webhook endpoints. */
  emitChange(change: ChangeRecord): Promise<void>[] {
    this.state.addChange(change);
    const org = this.state.orgs.get(change.organizationId);
    const emp = this.state.employees.get(change.employeeId);
    if (!org || !emp) return [];
    const company = this.state.orgs.get(org.companyId);
    if (!company) return [];
    const sent: Promise<void>[] = [];
    for (const ep of this.state.webhooks.values()) {
      if (ep.companyId !== company.id || !ep.enabled) continue;
      const poaching = org.kind === "competitor";
      if (poaching ? !ep.poachingOpportunities : !ep.employeeWarnings) continue;
      const level = poaching ? ep.poachingOpportunitySensitivity : ep.employeeWarningSensitivity;
      if (!admittedAt(level, change)) continue;
      const body = eventBody({
        company,
        org,
        employee: emp,
        change,
        dashboardUrl: dashboardUrl(this, emp.id),
        level,
        now: this.clock.now(),
      });
      const reduced = this.faults.reducedEventRate > 0 && this.faultRng.next() < this.faults.reducedEventRate;
      const wire = JSON.stringify(reduced ? reduceEvent(body) : body);
      sent.push(this.dispatcher.enqueue(ep, body.id, body.type, wire));
    }
    return sent;
  }

  log(entry: RequestLogEntry): void {
    this.requests.push(entry);
    if (this.requests.length > MAX_LOG) this.requests.splice(0, this.requests.length - MAX_LOG);
  }
}
