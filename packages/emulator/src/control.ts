import { z } from "zod";
import { TRIAL_DAYS } from "./billing.js";
import { DAY } from "./clock.js";
import type { Emulator } from "./emulator.js";
import { HttpError, notFound } from "./http-error.js";
import { CHANGE_TYPES, type ChangeRecord, type EmployeeRecord } from "./model.js";
import type { RouteResult } from "./router.js";
import { generateChange, pickTracked } from "./signals.js";
import { parseWith } from "./validate.js";
import { changeView, employeeView } from "./views.js";

/** The `/_emulator/*` control API (packages/emulator/README.md), plus a bulk people seeder for benchmarks. */

const rate = z.number().min(0).max(1);
const keysBody = z.object({
  scopes: z.array(z.enum(["read", "write"])).optional(),
  organizationId: z.number().int().optional(),
  revoked: z.boolean().optional(),
  key: z.string().min(6).optional(),
  id: z.string().optional(),
});
const clockBody = z.object({ advanceSeconds: z.number().min(0) });
const billingBody = z.object({
  status: z.enum(["active", "trialing", "past_due", "canceled", "none"]).optional(),
  chargeFails: z.union([z.boolean(), z.literal("retryable")]).optional(),
  trial: z.boolean().optional(),
  trialDaysLeft: z.number().min(0).optional(),
  apiSeatsPerDay: z.number().int().min(0).optional(),
  rowsPerDay: z.number().int().min(0).optional(),
  organizationId: z.number().int().optional(),
});
const signalsBody = z.object({
  count: z.number().int().min(1).max(1000).optional(),
  organizationId: z.number().int().optional(),
  employeeId: z.number().int().optional(),
  changeType: z.enum(CHANGE_TYPES).optional(),
  riskScore: z.number().min(0).max(1).optional(),
});
const faultsBody = z.object({
  errorRate: rate.optional(),
  timeoutRate: rate.optional(),
  malformedRate: rate.optional(),
  lostResponseRate: rate.optional(),
  statuses: z.array(z.number().int().min(400).max(599)).optional(),
  timeoutDelayMs: z.number().int().min(0).optional(),
  latencyMs: z.number().int().min(0).optional(),
  reducedEventRate: rate.optional(),
});
const peopleBody = z.object({
  count: z.number().int().min(1).max(500_000),
  organizationId: z.number().int().optional(),
  tracked: z.boolean().optional(),
  slugPrefix: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .optional(),
});

const body = (b: unknown) => (b === undefined || b === null ? {} : b);

export async function handleControl(
  em: Emulator,
  method: string,
  path: string,
  query: URLSearchParams,
  raw: unknown,
): Promise<RouteResult> {
  const now = em.clock.now();
  const route = `${method} ${path.replace(/\/+$/, "")}`;
  switch (route) {
    case "POST /_emulator/keys": {
      const b = parseWith(keysBody, body(raw), "body");
      const existing = b.key ? em.state.keys.get(b.key) : [...em.state.keys.values()].find((k) => k.id === b.id);
      if (existing && b.revoked !== undefined) {
        existing.revoked = existing.revoked || b.revoked; // revocation cannot be undone
        return { status: 200, body: keyView(existing) };
      }
      if (b.id && !existing) throw notFound("Key");
      if (b.organizationId !== undefined && em.state.orgs.get(b.organizationId)?.kind !== "primary") {
        throw new HttpError(
          400,
          "organizationId: keys belong to a company (a primary organization), not a competitor workspace.",
          "INVALID_BODY",
        );
      }
      const rec = em.createKey({
        key: b.key,
        scopes: b.scopes ?? ["read", "write"],
        organizationId: b.organizationId,
        revoked: b.revoked ?? false,
      });
      if (!rec.scopes.includes("read")) rec.scopes.unshift("read");
      return { status: 201, body: keyView(rec) };
    }
    case "POST /_emulator/clock": {
      const b = parseWith(clockBody, body(raw), "body");
      em.clock.advance(b.advanceSeconds);
      em.settle();
      await em.dispatcher.runDue();
      return {
        status: 200,
        body: { now: new Date(em.clock.now()).toISOString(), offsetSeconds: em.clock.offsetSeconds },
      };
    }
    case "POST /_emulator/billing": {
      const b = parseWith(billingBody, body(raw), "body");
      const acc = em.account(b.organizationId ?? em.companyId);
      if (b.trial === true) {
        acc.status = "trialing";
        acc.trialEndsAt = now + (b.trialDaysLeft ?? TRIAL_DAYS) * DAY;
      } else if (b.trial === false && acc.status === "trialing") {
        acc.status = "active";
        acc.trialEndsAt = null;
      }
      if (b.status !== undefined) acc.status = b.status;
      if (acc.status === "trialing" && acc.trialEndsAt === null)
        acc.trialEndsAt = now + (b.trialDaysLeft ?? TRIAL_DAYS) * DAY;
      if (b.apiSeatsPerDay !== undefined) acc.apiSeatsPerDay = b.apiSeatsPerDay;
      if (b.rowsPerDay !== undefined) acc.rowsPerDay = b.rowsPerDay;
      if (b.chargeFails === "retryable") {
        acc.chargeRetryableNext = true;
      } else if (b.chargeFails === true) {
        acc.chargeFailsNext = true;
      } else if (b.chargeFails === false) {
        // A payment clears: the pending batch is retried and succeeds, lifting the block (spec 3.4).
        acc.chargeFailsNext = false;
        if (acc.chargeFailed || acc.unbilledSeats > 0) {
          acc.charges.push({ at: now, seats: acc.unbilledSeats, usd: acc.unbilledUsd, outcome: "succeeded" });
          acc.unbilledSeats = 0;
          acc.unbilledUsd = 0;
          acc.chargeFailed = false;
          acc.chargeFailedAt = null;
        }
      }
      em.state.version++;
      return { status: 200, body: acc };
    }
    case "POST /_emulator/signals": {
      const b = parseWith(signalsBody, body(raw), "body");
      const made: ChangeRecord[] = [];
      const sent: Promise<void>[] = [];
      const candidates = b.employeeId === undefined ? trackedCandidates(em, b.organizationId) : [];
      if (b.employeeId !== undefined) {
        const emp = em.state.employees.get(b.employeeId);
        if (!emp) throw notFound("Employee");
        if (!emp.tracked)
          throw new HttpError(409, `Employee ${emp.id} is not tracked; signals are only detected for tracked people.`);
        candidates.push(emp);
      }
      if (candidates.length === 0) throw new HttpError(409, "No tracked person to raise a signal for.");
      for (let i = 0; i < (b.count ?? 1); i++) {
        const emp = b.employeeId !== undefined ? candidates[0] : pickTracked(em.signalRng, candidates);
        if (!emp) break;
        const change = generateChange(em.signalRng, emp, em.state.nextChangeId++, em.clock.now(), {
          changeType: b.changeType,
          riskScore: b.riskScore,
        });
        made.push(change);
        sent.push(...em.emitChange(change));
      }
      await Promise.all(sent);
      return { status: 201, body: { changes: made.map((c) => changeView(em, c)) } };
    }
    case "POST /_emulator/faults": {
      const b = parseWith(faultsBody, body(raw), "body");
      em.faults = { ...em.faults, ...Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined)) };
      if (b.statuses) em.faults.statuses = [...b.statuses];
      return { status: 200, body: em.faults };
    }
    case "GET /_emulator/state":
      em.settle();
      return { status: 200, body: stateDump(em, query.get("summary") === "true") };
    case "GET /_emulator/requests":
      return { status: 200, body: { requests: em.requests } };
    case "DELETE /_emulator/requests":
      em.requests = [];
      return { status: 200, body: { requests: [] } };
    case "POST /_emulator/reset":
      em.reset();
      return { status: 200, body: { reset: true, seed: em.config.seed } };
    case "POST /_emulator/employees": {
      const b = parseWith(peopleBody, body(raw), "body");
      const orgId = b.organizationId ?? em.companyId;
      if (!em.state.orgs.has(orgId)) throw notFound("Organization");
      const prefix = b.slugPrefix ?? `bench-${em.state.nextEmployeeId}`;
      for (let i = 0; i < b.count; i++) {
        const slug = `${prefix}-${i}`;
        const url = `https://www.linkedin.com/in/${slug}`;
        if (em.state.findByUrl(orgId, url)) continue;
        em.state.insertEmployee({
          organizationId: orgId,
          networkUrl: url,
          canonicalUrl: url,
          slug,
          name: `Person ${prefix} ${i}`,
          tracked: b.tracked ?? true,
          now,
          importReadyAt: null,
        });
      }
      return { status: 201, body: { organizationId: orgId, employeeCount: em.state.employeeIdsOf(orgId).length } };
    }
    default: {
      const ping = /^POST \/_emulator\/webhooks\/([^/]+)\/ping$/.exec(route);
      if (ping) {
        const ep = em.state.webhooks.get(decodeURIComponent(ping[1] ?? ""));
        if (!ep) throw notFound("Webhook endpoint");
        const company = em.state.orgs.get(ep.companyId);
        const n = em.state.nextDeliveryId++;
        // The dashboard's send-test button: payload shape "not shown"; signed like every delivery.
        const event = {
          id: `evt_ping_${n}`,
          type: "ping",
          createdAt: new Date(now).toISOString(),
          organization: { id: company?.id, name: company?.name },
          data: {},
        };
        await em.dispatcher.enqueue(ep, event.id, "ping", JSON.stringify(event));
        return { status: 201, body: { event, health: ep.recentDeliveries[0] ?? null } };
      }
      throw new HttpError(404, `No control endpoint ${method} ${path}.`);
    }
  }
}

function trackedCandidates(em: Emulator, organizationId: number | undefined): EmployeeRecord[] {
  const orgIds =
    organizationId !== undefined
      ? [organizationId]
      : [em.companyId, ...em.state.competitorsOf(em.companyId).map((c) => c.id)];
  if (organizationId !== undefined && !em.state.orgs.has(organizationId)) throw notFound("Organization");
  const out: EmployeeRecord[] = [];
  for (const orgId of orgIds) {
    for (const id of em.state.employeeIdsOf(orgId)) {
      const emp = em.state.employees.get(id);
      if (emp?.tracked) out.push(emp);
    }
  }
  return out;
}

function keyView(k: { id: string; key: string; scopes: string[]; organizationId: number; revoked: boolean }) {
  return { id: k.id, key: k.key, scopes: k.scopes, organizationId: k.organizationId, revoked: k.revoked };
}

function stateDump(em: Emulator, summary: boolean) {
  const orgs = [...em.state.orgs.values()].map((o) => ({
    ...o,
    employeeCount: em.state.employeeIdsOf(o.id).length,
    trackedEmployeeCount: em.state.trackedIn(o.id),
  }));
  const base = {
    now: new Date(em.clock.now()).toISOString(),
    clockOffsetSeconds: em.clock.offsetSeconds,
    seed: em.config.seed,
    companyId: em.companyId,
    organizations: orgs,
    billing: Object.fromEntries(em.state.billing),
    keys: [...em.state.keys.values()].map((k) => ({
      id: k.id,
      organizationId: k.organizationId,
      scopes: k.scopes,
      revoked: k.revoked,
    })),
    webhooks: [...em.state.webhooks.values()],
    pendingDeliveries: em.dispatcher.pending().map((p) => ({
      endpointId: p.endpointId,
      eventId: p.eventId,
      attempt: p.attempt,
      dueAt: new Date(p.dueAt).toISOString(),
    })),
    faults: em.faults,
    counts: { employees: em.state.employees.size, changes: em.state.changes.size },
  };
  if (summary) return base;
  return {
    ...base,
    employees: [...em.state.employees.values()].map((e) => ({ ...employeeView(em, e), windows: e.windows })),
    changes: [...em.state.changes.values()].map((c) => changeView(em, c)),
  };
}
