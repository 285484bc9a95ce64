import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { checkAdd, commitAdd, pausedRefusal } from "../admission.js";
import type { Emulator } from "../emulator.js";
import { HttpError, invalid, notFound } from "../http-error.js";
import type { EmployeeRecord, KeyRecord } from "../model.js";
import { parseProfileUrl } from "../profile-url.js";
import { ok, type Route } from "../router.js";
import {
  boolParam,
  intParam,
  objectBody,
  orgIdBody,
  pageEnvelope,
  pageQuery,
  parseWith,
  queryObject,
} from "../validate.js";
import { changeView, changeVisible, employeeView } from "../views.js";

const listQuery = z.object({
  organizationId: intParam(1).optional(),
  q: z.string().optional(),
  tracked: boolParam.optional(),
  ...pageQuery,
});
const addBody = z.object({
  networkUrl: z.string({ error: "required, a public profile URL" }),
  tracked: z.boolean({ error: "expected a boolean" }).optional(),
  name: z.string({ error: "expected a string" }).optional(),
  organizationId: orgIdBody.optional(),
});
const patchBody = z.object({
  tracked: z.boolean({ error: "expected a boolean" }).optional(),
  status: z.enum(["active", "archived"], { error: "expected active or archived" }).optional(),
});
const deleteQuery = z.object({ permanent: boolParam.optional() });
const idParam = z.object({ id: intParam(1) });

/** Filtered newest-first id lists, cached per query until the state changes (paging 100k rows stays linear). */
const listCache = new WeakMap<Emulator, Map<string, { version: number; ids: number[] }>>();

function filteredIds(
  em: Emulator,
  orgId: number,
  q: string | undefined,
  tracked: boolean | undefined,
): readonly number[] | null {
  if (q === undefined && tracked === undefined) return null;
  let cache = listCache.get(em);
  if (!cache) {
    cache = new Map();
    listCache.set(em, cache);
  }
  const cacheKey = `${orgId}|${tracked}|${q ?? ""}`;
  const hit = cache.get(cacheKey);
  if (hit && hit.version === em.state.version) return hit.ids;
  const needle = q?.trim().toLowerCase() ?? "";
  const all = em.state.employeeIdsOf(orgId);
  const ids: number[] = [];
  for (let i = all.length - 1; i >= 0; i--) {
    const emp = em.state.employees.get(all[i] ?? 0);
    if (!emp) continue;
    if (tracked !== undefined && emp.tracked !== tracked) continue;
    if (needle !== "" && !`${emp.name}\n${emp.title ?? ""}\n${emp.location ?? ""}`.toLowerCase().includes(needle))
      continue;
    ids.push(emp.id);
  }
  if (cache.size > 50) cache.clear();
  cache.set(cacheKey, { version: em.state.version, ids });
  return ids;
}

/** A person the key may reach (own company or its competitor workspaces), else 404. */
export function reachableEmployee(em: Emulator, key: KeyRecord, rawId: string | undefined): EmployeeRecord {
  const { id } = parseWith(idParam, { id: rawId }, "path");
  const emp = em.state.employees.get(id);
  const org = emp ? em.state.orgs.get(emp.organizationId) : undefined;
  if (!emp || !org || org.companyId !== key.organizationId) throw notFound("Employee");
  return emp;
}

async function addEmployee(em: Emulator, key: KeyRecord, body: unknown, now: number) {
  const input = parseWith(addBody, objectBody(body), "body");
  const org = em.reachableOrg(key, input.organizationId);
  const url = parseProfileUrl(input.networkUrl);
  if (!url.ok) throw invalid(url.reason);
  const tracked = input.tracked ?? true;
  if (tracked) {
    const paused = pausedRefusal(org);
    if (paused) throw paused;
  }
  // Concurrent adds hold a per-company reservation for a moment; over the limit answers 503.
  const busy = em.inFlightAdds.get(org.companyId) ?? 0;
  if (busy >= em.config.concurrentAddLimit) {
    throw new HttpError(
      503,
      "Too many concurrent adds for this company; retry after the number of seconds in Retry-After.",
      "SEAT_RESERVATION_BUSY",
      { "Retry-After": "1" },
    );
  }
  em.inFlightAdds.set(org.companyId, busy + 1);
  try {
    if (em.config.addHoldMs > 0) await sleep(em.config.addHoldMs);
    const existing = em.state.findByUrl(org.id, url.canonical);
    if (existing && existing.status !== "archived") {
      throw new HttpError(
        409,
        `This profile is already on the roster (employee ${existing.id}).`,
        "EMPLOYEE_EXISTS",
        {},
        { employeeId: existing.id },
      );
    }
    const refusal = checkAdd(em, org, now, { tracked, newRow: !existing });
    if (refusal) throw refusal.error;
    commitAdd(em, org, now, { tracked, newRow: !existing });
    if (existing) {
      reviveEmployee(em, existing, tracked, now);
      return ok(employeeView(em, existing), 201);
    }
    const emp = insertNew(em, org.id, url, tracked, input.name, now);
    return ok(employeeView(em, emp), 201);
  } finally {
    em.inFlightAdds.set(org.companyId, (em.inFlightAdds.get(org.companyId) ?? 1) - 1);
  }
}

/** Spec 3.1: an archived profile added again is the same row revived, history and window back. */
export function reviveEmployee(em: Emulator, emp: EmployeeRecord, tracked: boolean, now: number): void {
  em.state.setStatus(emp, emp.importReadyAt === null ? "active" : "importing");
  if (!tracked) return;
  const started = emp.trackingStartedAt;
  em.state.setTracked(emp, true, now);
  // The tracking window comes back: the person counts as tracked since the original start.
  if (started !== null) emp.trackingStartedAt = started;
}

export function insertNew(
  em: Emulator,
  orgId: number,
  url: { canonical: string; slug: string },
  tracked: boolean,
  name: string | undefined,
  now: number,
): EmployeeRecord {
  const delay = em.config.importDelayMs;
  return em.state.insertEmployee({
    organizationId: orgId,
    networkUrl: url.canonical,
    canonicalUrl: url.canonical,
    slug: url.slug,
    name: name?.trim() || `Importing ${url.slug}`,
    tracked,
    now,
    importReadyAt: delay > 0 ? now + delay : now,
  });
}

function patchEmployee(em: Emulator, emp: EmployeeRecord, body: unknown, now: number) {
  const patch = parseWith(patchBody, objectBody(body), "body");
  if (patch.tracked === undefined && patch.status === undefined)
    throw invalid('Invalid parameter "body": send at least one of tracked, status.');
  const org = em.state.orgs.get(emp.organizationId);
  if (!org) throw notFound("Employee");
  if (patch.tracked === true) {
    const paused = pausedRefusal(org);
    if (paused) throw paused;
  }
  if (patch.status === "archived") {
    em.state.setTracked(emp, false, now);
    em.state.setStatus(emp, "archived");
    return ok(employeeView(em, emp));
  }
  if (patch.status === "active" && emp.status === "archived") {
    // Spec 3.1: archived + status:active -> active. A first profile fetch still running completes now.
    em.state.finishImport(emp);
    if (patch.tracked === true) {
      const refusal = checkAdd(em, org, now, { tracked: true, newRow: false });
      if (refusal) throw refusal.error;
      commitAdd(em, org, now, { tracked: true, newRow: false });
    }
    reviveEmployee(em, emp, patch.tracked === true, now);
    return ok(employeeView(em, emp));
  }
  if (patch.tracked === true && emp.status === "archived") {
    // Archiving always untracks (spec 3.1); an archived person is revived first, not tracked as archived.
    throw invalid(
      'Invalid parameter "tracked": this person is archived and cannot be tracked; revive them with status:active and tracked:true in the same request.',
    );
  }
  if (patch.tracked === true && !emp.tracked) {
    const refusal = checkAdd(em, org, now, { tracked: true, newRow: false });
    if (refusal) throw refusal.error;
    commitAdd(em, org, now, { tracked: true, newRow: false });
    em.state.setTracked(emp, true, now);
  } else if (patch.tracked === false) {
    em.state.setTracked(emp, false, now);
    // Untracked on purpose while the workspace is paused: not tracked again on resume.
    if (org.paused) org.pausedTrackedIds = org.pausedTrackedIds.filter((id) => id !== emp.id);
  }
  return ok(employeeView(em, emp));
}

export const employeeRoutes: Route[] = [
  {
    method: "GET",
    pattern: "/employees",
    handler: ({ em, key, query }) => {
      const q = parseWith(listQuery, queryObject(query), "query");
      const org = em.reachableOrg(key, q.organizationId);
      const w = { page: q.page ?? 1, pageSize: q.pageSize ?? 25 };
      const filtered = filteredIds(em, org.id, q.q, q.tracked);
      const all = em.state.employeeIdsOf(org.id);
      const total = filtered ? filtered.length : all.length;
      const idAt = (i: number) => (filtered ? filtered[i] : all[all.length - 1 - i]) ?? 0;
      return ok(pageEnvelope(total, w, (i) => employeeView(em, em.state.employees.get(idAt(i)) as EmployeeRecord)));
    },
  },
  { method: "POST", pattern: "/employees", handler: ({ em, key, body, now }) => addEmployee(em, key, body, now) },
  {
    method: "GET",
    pattern: "/employees/:id",
    handler: ({ em, key, params }) => ok(employeeView(em, reachableEmployee(em, key, params.id))),
  },
  {
    method: "PATCH",
    pattern: "/employees/:id",
    handler: ({ em, key, params, body, now }) => patchEmployee(em, reachableEmployee(em, key, params.id), body, now),
  },
  {
    method: "DELETE",
    pattern: "/employees/:id",
    handler: ({ em, key, params, query, now }) => {
      const emp = reachableEmployee(em, key, params.id);
      const q = parseWith(deleteQuery, queryObject(query), "query");
      if (q.permanent) {
        // Choice: permanent=true erases a non-archived person too (archive and erase in one step).
        em.state.eraseEmployee(emp);
        return ok({ id: emp.id, deleted: true });
      }
      em.state.setTracked(emp, false, now);
      em.state.setStatus(emp, "archived");
      return ok(employeeView(em, emp));
    },
  },
  {
    method: "GET",
    pattern: "/employees/:id/changes",
    handler: ({ em, key, params, query }) => {
      const emp = reachableEmployee(em, key, params.id);
      const q = parseWith(z.object(pageQuery), queryObject(query), "query");
      const visible = emp.changeIds
        .map((id) => em.state.changes.get(id))
        .filter((c) => c !== undefined && changeVisible(emp, c))
        .reverse();
      return ok(
        pageEnvelope(visible.length, { page: q.page ?? 1, pageSize: q.pageSize ?? 25 }, (i) =>
          changeView(em, visible[i] as NonNullable<(typeof visible)[number]>),
        ),
      );
    },
  },
];
