import { z } from "zod";
import { chargeBlock, trialRoom } from "../admission.js";
import { recordSeat } from "../billing.js";
import type { Emulator } from "../emulator.js";
import { HttpError, invalid, notFound } from "../http-error.js";
import type { KeyRecord, OrganizationRecord } from "../model.js";
import { companyNameFromSlug, parseCompanyUrl, sameCompanyName } from "../profile-url.js";
import { ok, type Route } from "../router.js";
import { intParam, objectBody, parseWith } from "../validate.js";
import { competitorView } from "../views.js";

const roleFilters = z.array(z.string({ error: "expected a string" }), { error: "expected an array of strings" });
const addBody = z.object({
  companyNetworkUrl: z.string({ error: "required, a company page URL" }),
  roleFilters: roleFilters.optional(),
  name: z.string({ error: "expected a string" }).optional(),
  acknowledgeIdentityMismatch: z.boolean({ error: "expected a boolean" }).optional(),
});
const patchBody = z.object({
  paused: z.boolean({ error: "expected a boolean" }).optional(),
  roleFilters: roleFilters.optional(),
});

function reachableCompetitor(em: Emulator, key: KeyRecord, rawId: string | undefined): OrganizationRecord {
  const { id } = parseWith(z.object({ id: intParam(1) }), { id: rawId }, "path");
  const org = em.state.orgs.get(id);
  if (org?.kind !== "competitor" || org.companyId !== key.organizationId) throw notFound("Competitor workspace");
  return org;
}

function scheduleImport(em: Emulator, org: OrganizationRecord, now: number): void {
  // Runs on the first request at or after readyAt: the creation response always shows the import running.
  em.state.rosterImports.push({ orgId: org.id, readyAt: now + em.config.importDelayMs });
}

export const competitorRoutes: Route[] = [
  {
    method: "GET",
    pattern: "/competitors",
    handler: ({ em, key }) => ok(em.state.competitorsOf(key.organizationId).map((c) => competitorView(em, c))),
  },
  {
    method: "GET",
    pattern: "/competitors/:id",
    handler: ({ em, key, params }) => ok(competitorView(em, reachableCompetitor(em, key, params.id))),
  },
  {
    method: "POST",
    pattern: "/competitors",
    handler: ({ em, key, body, now }) => {
      const input = parseWith(addBody, objectBody(body), "body");
      const page = parseCompanyUrl(input.companyNetworkUrl);
      if (!page.ok) throw invalid(page.reason);
      const resolved = companyNameFromSlug(page.slug);
      if (
        input.name !== undefined &&
        !sameCompanyName(input.name, resolved) &&
        input.acknowledgeIdentityMismatch !== true
      ) {
        throw new HttpError(
          409,
          `The page ${page.canonical} resolves to "${resolved}", not "${input.name}"; resend with acknowledgeIdentityMismatch:true to track it anyway.`,
          "COMPETITOR_IDENTITY_MISMATCH",
          {},
          { resolvedCompany: { name: resolved } },
        );
      }
      // The page is tracked already: its workspace, unchanged (no second, double-billed one).
      const existing = em.state.competitorsOf(key.organizationId).find((c) => c.companyNetworkUrl === page.canonical);
      if (existing) return ok(competitorView(em, existing), 200);
      const blocked = chargeBlock(em, key.organizationId, now);
      if (blocked) throw blocked;
      const org: OrganizationRecord = {
        id: em.state.nextOrgId++,
        name: input.name?.trim() || resolved,
        kind: "competitor",
        website: null,
        networkId: page.slug,
        companyInfo: null,
        alertRiskThreshold: 0.5,
        createdAt: now,
        companyId: key.organizationId,
        companyNetworkUrl: page.canonical,
        roleFilters: input.roleFilters ?? [],
        paused: false,
        pausedTrackedIds: [],
      };
      em.state.addOrg(org);
      scheduleImport(em, org, now);
      return ok(competitorView(em, org), 201);
    },
  },
  {
    method: "PATCH",
    pattern: "/competitors/:id",
    handler: ({ em, key, params, body, now }) => {
      const org = reachableCompetitor(em, key, params.id);
      const patch = parseWith(patchBody, objectBody(body), "body");
      if (patch.paused === undefined && patch.roleFilters === undefined)
        throw invalid('Invalid parameter "body": send at least one of paused, roleFilters.');
      // Resuming re-tracks people and a role-filter change imports more: both are adds (spec 3.4).
      if (patch.roleFilters !== undefined || (patch.paused === false && org.paused)) {
        const blocked = chargeBlock(em, org.companyId, now);
        if (blocked) throw blocked;
      }
      if (patch.paused === true && !org.paused) {
        org.paused = true;
        org.pausedTrackedIds = [];
        for (const id of em.state.employeeIdsOf(org.id)) {
          const emp = em.state.employees.get(id);
          if (emp?.tracked) {
            org.pausedTrackedIds.push(id);
            em.state.setTracked(emp, false, now);
          }
        }
      } else if (patch.paused === false && org.paused) {
        org.paused = false;
        const acc = em.account(org.companyId);
        for (const id of org.pausedTrackedIds) {
          const emp = em.state.employees.get(id);
          // On a trial only as many as it has room for come back (spec 8 "through any door").
          if (emp && !emp.tracked && emp.status !== "archived" && trialRoom(em, org, now) > 0) {
            em.state.setTracked(emp, true, now);
            recordSeat(acc, now, false);
          }
        }
        org.pausedTrackedIds = [];
      }
      if (patch.roleFilters !== undefined) {
        org.roleFilters = patch.roleFilters;
        scheduleImport(em, org, now);
      }
      em.state.version++;
      return ok(competitorView(em, org));
    },
  },
  {
    method: "DELETE",
    pattern: "/competitors/:id",
    handler: ({ em, key, params }) => {
      const org = reachableCompetitor(em, key, params.id);
      em.state.eraseOrg(org.id);
      return ok({ id: org.id, deleted: true });
    },
  },
];
