import type { RetentionClient } from "../api/client.js";
import { paginate } from "../api/paginate.js";
import type { Billing } from "../api/schemas.js";
import { canonicalProfileUrl } from "./canonical-profile-url.js";
import type { ServicePerson } from "./diff-roster.js";
import type { ExportInfo } from "./report.js";

// The reads of a reconcile run besides the export: the service's roster and billing, and how old
// the export is. Apart from reconcile-once.ts, which calls every step in order.

const PAGE_SIZE = 100;

/**
 * The service's side of the run: its whole roster (all pages, archived included) and /billing.
 * `reads.count` counts the calls as they are made, so a call the service refuses is counted too.
 */
export async function readService(
  client: Pick<RetentionClient, "listEmployees" | "getBilling">,
  reads: { count: number },
  inExport: (url: string) => boolean,
): Promise<{ people: ServicePerson[]; billing: Billing }> {
  const people: ServicePerson[] = [];
  // paginate ends a walk that never ends (hasMore forever, repeated or empty pages, rows past the
  // announced total) with an ApiResponseError: a half-read roster must stop the run, not shape it.
  const rows = paginate(
    (page) => {
      reads.count += 1;
      return client.listEmployees({ page, pageSize: PAGE_SIZE });
    },
    { method: "GET", path: "/employees", identity: (e) => e.id },
  );
  for await (const e of rows) {
    const canonical = canonicalProfileUrl(e.networkUrl);
    if (!canonical.ok) continue;
    // The service's name names only someone the export does not: not kept for the others (a
    // million names are about 40 MB).
    const name = e.name && !inExport(canonical.url) ? { name: e.name } : {};
    people.push({
      id: e.id,
      profileUrl: canonical.url,
      tracked: e.tracked,
      archived: e.status === "archived",
      ...name,
    });
  }
  reads.count += 1;
  const billing = await client.getBilling();
  return { people, billing };
}

/** How old the export is and whether it is stale: written, or first read, longer ago than `staleAfter`. */
export function exportInfo(
  roster: { fingerprint: string; modifiedAt: string },
  memory: { lastFingerprint?: string; exportSeenAt?: string },
  resumed: boolean,
  now: Date,
  staleAfterSeconds: number,
): ExportInfo {
  const same = memory.lastFingerprint === roster.fingerprint;
  const firstReadAt = same ? (memory.exportSeenAt ?? now.toISOString()) : now.toISOString();
  const since = Math.min(Date.parse(roster.modifiedAt), Date.parse(firstReadAt));
  const ageSeconds = Number.isFinite(since) ? Math.max(0, (now.getTime() - since) / 1000) : 0;
  return {
    fingerprint: roster.fingerprint,
    modifiedAt: roster.modifiedAt,
    firstReadAt,
    newExport: !same || resumed,
    ageDays: Math.floor(ageSeconds / 86_400),
    ageSeconds: Math.round(ageSeconds),
    stale: staleAfterSeconds > 0 && ageSeconds > staleAfterSeconds,
  };
}
