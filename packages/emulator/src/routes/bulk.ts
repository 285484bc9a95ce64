import { z } from "zod";
import { checkAdd, commitAdd, pausedRefusal, type SkipReason } from "../admission.js";
import { seatAllowance } from "../billing.js";
import type { EmployeeRecord } from "../model.js";
import { parseProfileUrl } from "../profile-url.js";
import { ok, type Route } from "../router.js";
import { objectBody, orgIdBody, parseWith } from "../validate.js";
import { employeeView } from "../views.js";
import { insertNew, reviveEmployee } from "./employees.js";

const bulkBody = z.object({
  networkUrls: z
    .array(z.string({ error: "expected a string" }), { error: "required, an array of 1 to 50 profile URLs" })
    .min(1, "must hold at least 1 URL")
    .max(50, "must hold at most 50 URLs"),
  tracked: z.boolean({ error: "expected a boolean" }).optional(),
  organizationId: orgIdBody.optional(),
});

/**
 * POST /employees/bulk (spec 4.3, 7 rule 2): everything that can be added is added, in order;
 * the rest is skipped with a reason. Archived profiles are revived and listed in `added`.
 * 201 when nothing was skipped, else 207; never a ceiling error for the batch.
 */
export const bulkRoutes: Route[] = [
  {
    method: "POST",
    pattern: "/employees/bulk",
    handler: ({ em, key, body, now }) => {
      const input = parseWith(bulkBody, objectBody(body), "body");
      const org = em.reachableOrg(key, input.organizationId);
      const tracked = input.tracked ?? true;
      const paused = tracked ? pausedRefusal(org) : null;
      if (paused) throw paused;
      const added: EmployeeRecord[] = [];
      const skipped: Array<{ networkUrl: string; reason: SkipReason; message: string }> = [];
      const seen = new Set<string>();
      for (const raw of input.networkUrls) {
        const url = parseProfileUrl(raw, "networkUrls[]");
        if (!url.ok) {
          skipped.push({ networkUrl: raw, reason: "invalid_url", message: url.reason });
          continue;
        }
        const existing = em.state.findByUrl(org.id, url.canonical);
        if (seen.has(url.canonical) || (existing && existing.status !== "archived")) {
          skipped.push({
            networkUrl: raw,
            reason: "duplicate",
            message: "This profile is already on the roster or earlier in this batch.",
          });
          continue;
        }
        seen.add(url.canonical);
        const opts = { tracked, newRow: !existing };
        const refusal = checkAdd(em, org, now, opts);
        if (refusal) {
          skipped.push({ networkUrl: raw, reason: refusal.reason, message: refusal.error.message });
          continue;
        }
        commitAdd(em, org, now, opts);
        if (existing) {
          reviveEmployee(em, existing, tracked, now);
          added.push(existing);
        } else added.push(insertNew(em, org.id, url, tracked, undefined, now));
      }
      return ok(
        {
          added: added.map((e) => employeeView(em, e)),
          skipped,
          seatAllowance: seatAllowance(em.account(org.companyId), now),
        },
        skipped.length === 0 ? 201 : 207,
      );
    },
  },
];
