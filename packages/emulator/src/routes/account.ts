import { z } from "zod";
import { billingView } from "../billing.js";
import { invalid } from "../http-error.js";
import { ok, type Route } from "../router.js";
import { intParam, objectBody, orgIdBody, parseWith, queryObject } from "../validate.js";
import { organizationView } from "../views.js";

/** Snaps thresholds strictly between 0.5 and 0.75 to the nearer one; the midpoint 0.625 snaps to 0.5 (alerts more). */
export function snapThreshold(value: number): number {
  if (value <= 0.5 || value >= 0.75) return value;
  return value - 0.5 <= 0.75 - value ? 0.5 : 0.75;
}

const orgQuery = z.object({ organizationId: intParam(1).optional() });

const orgPatch = z.object({
  name: z.string().trim().min(1, "must not be empty").optional(),
  website: z.url({ error: "expected a URI" }).nullable().optional(),
  companyInfo: z.string().nullable().optional(),
  alertRiskThreshold: z.number({ error: "expected a number" }).min(0, "must be >= 0").max(1, "must be <= 1").optional(),
  organizationId: orgIdBody.optional(),
});

export const accountRoutes: Route[] = [
  {
    method: "GET",
    pattern: "/me",
    handler: ({ em, key }) => {
      const company = em.company(key);
      return ok({
        organization: { id: company.id, name: company.name },
        competitors: em.state.competitorsOf(company.id).map((c) => ({ id: c.id, name: c.name })),
        scopes: key.scopes,
      });
    },
  },
  {
    method: "GET",
    pattern: "/organization",
    handler: ({ em, key, query }) => {
      const q = parseWith(orgQuery, queryObject(query), "query");
      return ok(organizationView(em, em.reachableOrg(key, q.organizationId)));
    },
  },
  {
    method: "PATCH",
    pattern: "/organization",
    handler: ({ em, key, body }) => {
      const patch = parseWith(orgPatch, objectBody(body), "body");
      const { organizationId, ...fields } = patch;
      if (Object.values(fields).every((v) => v === undefined)) {
        throw invalid('Invalid parameter "body": send at least one of name, website, companyInfo, alertRiskThreshold.');
      }
      const org = em.reachableOrg(key, organizationId);
      if (fields.name !== undefined) org.name = fields.name;
      if (fields.website !== undefined) org.website = fields.website;
      if (fields.companyInfo !== undefined) org.companyInfo = fields.companyInfo;
      if (fields.alertRiskThreshold !== undefined) org.alertRiskThreshold = snapThreshold(fields.alertRiskThreshold);
      em.state.version++;
      return ok(organizationView(em, org));
    },
  },
  {
    method: "GET",
    pattern: "/billing",
    handler: ({ em, key, now }) => {
      const company = em.company(key);
      const ids = [company.id, ...em.state.competitorsOf(company.id).map((c) => c.id)];
      return ok(
        billingView(em.account(company.id), now, company.id, {
          billable: em.state.companyTracked(company.id),
          inThisOrganization: em.state.trackedIn(company.id),
          organizationIds: ids,
        }),
      );
    },
  },
];
