import { z } from "zod";
import type { Emulator } from "../emulator.js";
import { CHANGE_TYPES, type ChangeRecord } from "../model.js";
import { ok, type Route } from "../router.js";
import { dateTimeParam, intParam, numberParam, pageEnvelope, pageQuery, parseWith, queryObject } from "../validate.js";
import { changeView, changeVisible } from "../views.js";

const changesQuery = z.object({
  organizationId: intParam(1).optional(),
  minRiskScore: numberParam(0, 1).optional(),
  since: dateTimeParam.optional(),
  changeType: z.enum(CHANGE_TYPES, { error: `expected one of ${CHANGE_TYPES.join(", ")}` }).optional(),
  ...pageQuery,
});

const cache = new WeakMap<Emulator, Map<string, { version: number; list: ChangeRecord[] }>>();

/** Visible changes of an organization matching the filters, newest first (cached per state version). */
function matching(em: Emulator, orgId: number, q: z.output<typeof changesQuery>): ChangeRecord[] {
  let byQuery = cache.get(em);
  if (!byQuery) {
    byQuery = new Map();
    cache.set(em, byQuery);
  }
  const k = `${orgId}|${q.minRiskScore}|${q.since}|${q.changeType}`;
  const hit = byQuery.get(k);
  if (hit && hit.version === em.state.version) return hit.list;
  const ids = em.state.changeIdsOf(orgId);
  const list: ChangeRecord[] = [];
  for (let i = ids.length - 1; i >= 0; i--) {
    const c = em.state.changes.get(ids[i] ?? 0);
    if (!c) continue;
    if (q.since !== undefined && c.detectedAt < q.since) break;
    if (q.changeType !== undefined && c.changeType !== q.changeType) continue;
    if (q.minRiskScore !== undefined && c.riskScore !== null && c.riskScore < q.minRiskScore) continue;
    const emp = em.state.employees.get(c.employeeId);
    if (!emp || !changeVisible(emp, c)) continue;
    list.push(c);
  }
  if (byQuery.size > 50) byQuery.clear();
  byQuery.set(k, { version: em.state.version, list });
  return list;
}

export const changeRoutes: Route[] = [
  {
    method: "GET",
    pattern: "/changes",
    handler: ({ em, key, query }) => {
      const q = parseWith(changesQuery, queryObject(query), "query");
      const org = em.reachableOrg(key, q.organizationId);
      const list = matching(em, org.id, q);
      return ok(
        pageEnvelope(list.length, { page: q.page ?? 1, pageSize: q.pageSize ?? 25 }, (i) =>
          changeView(em, list[i] as ChangeRecord),
        ),
      );
    },
  },
];
