import { join } from "node:path";
import { startEmulator } from "@retention-sync/emulator";
import { RetentionClient } from "../src/api/client.js";
import { configSchema } from "../src/config/schema.js";
import { silentLogger } from "../src/logger.js";
import { reconcileOnce } from "../src/roster/reconcile-once.js";
import type { ReconcileReport } from "../src/roster/report.js";
import { openStateStore } from "../src/store/state-store.js";
import {
  apiRequests,
  clearRequests,
  type RosterShape,
  requestRate,
  seedServiceRoster,
  writeHrisCsv,
} from "./roster-fixture.js";

const PAGE_SIZE = 100;
const BULK_CHUNK = 50;
/** Allowances raised so the benchmark measures the client, not the service's daily caps. */
const UNCAPPED = 100_000_000;

export interface ReconcileRun {
  readonly shape: RosterShape;
  readonly serverLimitPerMinute: number;
  readonly clientLimitPerMinute: number;
  readonly fileRows: number;
  readonly planned: ReconcileReport["planned"];
  readonly applied: ReconcileReport["applied"] | undefined;
  readonly deferred: number;
  readonly failures: number;
  /** Counted by the emulator, retries included. */
  readonly requestsUsed: number;
  /** Counted by reconcile itself. */
  readonly requestsReported: number;
  /** list pages + ceil(adds/50) + one per revive/track/untrack/archive/erase + billing. */
  readonly floor: number;
  readonly status429: number;
  readonly otherErrors: number;
  readonly wallMs: number;
  /** What the client-side limit alone forces: requests / limit. */
  readonly minimumMsAtLimit: number;
  readonly maxRequestsIn60s: number;
  readonly meanRequestsPerMinute: number;
  readonly exitCode: number;
  /** The emulator keeps the last 10,000 requests: beyond that the counts above are a floor. */
  readonly requestLogFull: boolean;
}

/**
 * The request floor of a plan, from its counts and the size of the service roster: GET /me (the
 * scope check before any write), the list pages, one bulk add per 50 adds, one request per other
 * step, and GET /billing.
 */
export function requestFloor(serviceRows: number, planned: ReconcileReport["planned"]): number {
  const pages = Math.max(1, Math.ceil(serviceRows / PAGE_SIZE));
  const perPerson = planned.revive + planned.track + planned.untrack + planned.archive + planned.erase;
  return 1 + pages + Math.ceil(planned.add / BULK_CHUNK) + perPerson + 1;
}

/**
 * One reconcile of a generated roster against a fresh emulator: the service roster is seeded
 * through the control API, the HRIS file written to `dir`, and `reconcileOnce` run with leavers
 * archived on the first missing export (archiveAfterMissingExports 1, archiveUnknown true, mass-archive
 * guard lifted: the bench's 5 % leavers would otherwise be held back for approval).
 */
export async function runReconcile(input: {
  readonly shape: RosterShape;
  readonly dir: string;
  readonly serverLimitPerMinute: number;
  readonly clientLimitPerMinute: number;
}): Promise<ReconcileRun> {
  const { shape } = input;
  const emu = await startEmulator({
    port: 0,
    seed: "empty",
    rateLimitPerMinute: input.serverLimitPerMinute,
    apiSeatsPerDay: UNCAPPED,
    rowsPerDay: UNCAPPED,
    importDelayMs: 0,
  });
  const store = await openStateStore(":memory:");
  try {
    await seedServiceRoster(emu, shape);
    const file = join(input.dir, `hris-${shape.size}.csv`);
    const fileRows = await writeHrisCsv(file, shape);
    await clearRequests(emu);
    const config = configSchema.parse({
      api: { url: emu.baseUrl, key: emu.writeKey },
      roster: { file, archiveAfterMissingExports: 1, archiveUnknown: true, approveMassArchive: true },
    });
    const client = new RetentionClient({
      baseUrl: emu.baseUrl,
      apiKey: emu.writeKey,
      requestsPerMinute: input.clientLimitPerMinute,
      priority: "bulk",
      timeoutMs: 60_000,
    });
    const t0 = performance.now();
    const report = await reconcileOnce(
      { config, client, store, logger: silentLogger() },
      { file, allowMassArchive: true },
    );
    const wallMs = performance.now() - t0;
    const log = await apiRequests(emu);
    const rate = requestRate(log);
    return {
      shape,
      serverLimitPerMinute: input.serverLimitPerMinute,
      clientLimitPerMinute: input.clientLimitPerMinute,
      fileRows,
      planned: report.planned,
      applied: report.applied,
      deferred: report.deferred.total,
      failures: report.failures.length,
      requestsUsed: log.length,
      requestsReported: report.requests,
      floor: requestFloor(shape.size, report.planned),
      status429: log.filter((r) => r.status === 429).length,
      otherErrors: log.filter((r) => r.status >= 400 && r.status !== 429).length,
      wallMs,
      minimumMsAtLimit: (log.length / input.clientLimitPerMinute) * 60_000,
      maxRequestsIn60s: rate.maxIn60s,
      meanRequestsPerMinute: rate.meanPerMinute,
      exitCode: report.exitCode,
      requestLogFull: log.length >= 10_000,
    };
  } finally {
    await store.close();
    await emu.close();
  }
}
