import type { ChangeItem } from "../api/change-item.js";
import type { RetentionClient } from "../api/client.js";
import type { DeliveryService } from "../delivery/delivery-service.js";
import { exitCodeOf } from "../errors.js";
import type { Logger } from "../logger.js";
import type { KeyValueNamespace } from "../store/state-store.js";
import type { Alert } from "./alert.js";
import { oldestFirst } from "./dedupe.js";
import { ChangeEnricher, type HrisLookup } from "./enrich.js";
import { type Arrival, type HandOverDeps, handOver } from "./hand-over.js";
import { type Lens, lensKey } from "./lens.js";
import { currentLenses, type LensList } from "./lens-list.js";
import { minRiskScoreForLens } from "./min-risk-score.js";
import type { PersonDirectory } from "./person-directory.js";
import type { LensReport, PollReport } from "./poll-report.js";
import { lookbackStartKey, passCursor, pollWindow } from "./poll-window.js";
import { POACHING_UNROUTED_WHY, splitUnrouted, unroutedSentences } from "./unrouted.js";

export const CURSOR_NAMESPACE = "alerts.cursor";

export type PollClient = Pick<RetentionClient, "me" | "iterateChanges" | "getEmployee" | "listEmployees">;

export interface PollDeps extends HandOverDeps {
  readonly client: PollClient;
  readonly logger: Logger;
  readonly cursors: KeyValueNamespace;
  readonly delivery: DeliveryService<Alert>;
  readonly hris?: HrisLookup | undefined;
  /** Person details for changes without an embedded person, from roster list pages (kept across passes). */
  readonly directory?: PersonDirectory | undefined;
  /** The lens list kept across passes; without it (a one-shot caller) every pass reads the list. */
  readonly lenses?: LensList | undefined;
}

async function fetchLens(deps: PollDeps, lens: Lens, report: LensReport, since: string, minRiskScore: number) {
  const items: ChangeItem[] = [];
  for await (const item of deps.client.iterateChanges({
    ...(lens.kind === "poaching" ? { organizationId: lens.organizationId } : {}),
    since,
    minRiskScore,
    pageSize: 100,
  })) {
    items.push(item);
  }
  report.fetched = items.length;
  return oldestFirst(items);
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One polling pass over every lens: fetch each lens's changes since its cursor, then hand them over
 * (dedupe, enrich, route, plan, commit with the cursors) and flush the outbox. A dry run plans and
 * returns the messages, and writes nothing. When `signal` aborts (shutdown), the pass stops at the
 * next safe point: in-flight requests are cancelled, a lens not fully read commits nothing, and
 * the outbox keeps whatever was not posted for the next start.
 */
export async function pollOnce(
  deps: PollDeps,
  options: { now: Date; dryRun: boolean; signal?: AbortSignal | undefined },
): Promise<PollReport> {
  const { settings, logger } = deps;
  const { signal } = options;
  const directory = deps.directory;
  const enricher = new ChangeEnricher({
    getEmployee: (id) => deps.client.getEmployee(id),
    findPerson: directory ? (id, lens) => directory.find(id, lens, signal) : undefined,
    hris: deps.hris,
    dashboardUrl: settings.dashboardUrl,
    logger,
    signal,
  });
  const report: PollReport = {
    lenses: [],
    alerts: 0,
    unrouted: 0,
    unroutedPoaching: 0,
    caughtAll: 0,
    enqueued: 0,
    digestChannels: [],
    drafts: [],
  };
  const gathered: Array<{
    lens: Lens;
    items: ChangeItem[];
    report: LensReport;
    cursor: string | undefined;
    lookbackStart: string | undefined;
  }> = [];

  let lenses: readonly Lens[] = [];
  try {
    lenses = deps.lenses ? await deps.lenses.current(options.now.getTime()) : await currentLenses(deps.client);
  } catch (error) {
    if (signal?.aborted) return stopped(report, logger);
    // The service is unreachable: still deliver what waits in the outbox, then report the failure.
    report.error = describeError(error);
    report.errorExitCode = exitCodeOf(error);
    logger.warn({ err: error }, "could not list the lenses (GET /me); no changes read this pass");
  }
  const planned = lenses.map((lens) => ({
    lens,
    key: lensKey(lens),
    minRiskScore: minRiskScoreForLens(lens, settings.routing),
  }));
  // Every polled lens's cursor (and look-back start) in one read, not one per lens.
  const storedCursors = await deps.cursors.getMany<string>(
    planned.filter((p) => p.minRiskScore !== null).flatMap((p) => [p.key, lookbackStartKey(p.key)]),
  );
  for (const { lens, key, minRiskScore } of planned) {
    if (signal?.aborted) return stopped(report, logger);
    if (minRiskScore === null) {
      report.lenses.push({
        lens: key,
        fetched: 0,
        fresh: 0,
        duplicates: 0,
        skipped:
          lens.kind === "poaching"
            ? POACHING_UNROUTED_WHY
            : "no route and no catch-all (slack.channel) takes this lens",
      });
      continue;
    }
    const stored = storedCursors.get(key);
    const lookback = settings.initialLookbackSeconds;
    const window = pollWindow({
      stored,
      storedLookbackStart: storedCursors.get(lookbackStartKey(key)),
      nowMs: options.now.getTime(),
      lookbackMs: lookback * 1000,
      overlapMs: settings.cursorOverlapSeconds * 1000,
    });
    const { since, reason } = window;
    // A cursor that cannot be trusted is dropped, so the cursor this pass computes replaces it.
    const cursor = window.cursor;
    if (reason === "first-poll") {
      logger.info(
        { lens: key, since },
        `first poll of ${key}: starting ${lookback} s back (alerts.initialLookback), not from the whole history`,
      );
    } else if (reason !== undefined) {
      logger.warn(
        { lens: key, storedCursor: stored, since },
        `the stored cursor of ${key} is ${reason === "cursor-in-future" ? "in the future" : "unreadable"}; polling again from ${lookback} s back (handled changes are not posted twice)`,
      );
    }
    const lensReport: LensReport = { lens: key, since, minRiskScore, fetched: 0, fresh: 0, duplicates: 0, cursor };
    report.lenses.push(lensReport);
    try {
      gathered.push({
        lens,
        items: await fetchLens(deps, lens, lensReport, since, minRiskScore),
        report: lensReport,
        cursor,
        lookbackStart: window.lookbackStart,
      });
    } catch (error) {
      if (signal?.aborted) return stopped(report, logger);
      // One lens failing (a competitor deleted mid-pass, an outage) must not hold back the others.
      lensReport.error = describeError(error);
      logger.warn({ lens: key, err: error }, "could not read changes for this lens; its cursor stays put");
      // The workspace may be gone or out of reach: the next pass lists the lenses again.
      deps.lenses?.invalidate();
    }
  }

  // Every lens read to the end advances its cursor, an empty one too: the next pass starts there.
  const cursors: Record<string, string> = {};
  for (const g of gathered) {
    const nowMs = options.now.getTime();
    const next = passCursor({ cursor: g.cursor, items: g.items, passStartMs: nowMs, nowMs });
    if (next !== g.cursor) cursors[lensKey(g.lens)] = next;
    // While the look-back still bounds the window, the next pass must know where it began.
    if (g.lookbackStart !== undefined) cursors[lookbackStartKey(lensKey(g.lens))] = g.lookbackStart;
    g.report.cursor = next;
  }
  const arrivals = gathered.flatMap((g) => g.items.map((item): Arrival => ({ item, lens: g.lens, keys: [item.key] })));
  if (signal?.aborted) return stopped(report, logger);
  let handed: Awaited<ReturnType<typeof handOver>>;
  try {
    handed = await handOver(deps, {
      arrivals,
      enricher,
      cursors: options.dryRun ? {} : cursors,
      nowMs: options.now.getTime(),
      dryRun: options.dryRun,
    });
  } catch (error) {
    // Shutdown during enrichment: nothing was committed, the next pass reads the same changes.
    if (signal?.aborted) return stopped(report, logger);
    throw error;
  }
  for (const g of gathered) {
    g.report.fresh = handed.fresh.filter((a) => a.lens === g.lens).length;
    g.report.duplicates = g.items.length - g.report.fresh;
  }
  report.alerts = handed.alerts.length;
  report.unrouted = handed.plan.unrouted.length;
  report.caughtAll = handed.plan.caughtAll;
  const unrouted = splitUnrouted(handed.plan.unrouted);
  report.unroutedPoaching = unrouted.poaching.length;
  logUnrouted(logger, unrouted, report.lenses);
  report.digestChannels = handed.plan.digestChannels;
  report.drafts = handed.plan.drafts;
  report.enqueued = handed.enqueued;
  if (handed.snoozed.length > 0) report.snoozed = handed.snoozed.length;

  if (!options.dryRun) {
    const flush = await deps.delivery.flush();
    if (flush) report.flush = flush;
    if (flush?.stopped) report.stopped = true;
  }
  logger.info(
    {
      alerts: report.alerts,
      unrouted: report.unrouted,
      caughtAll: report.caughtAll,
      enqueued: report.enqueued,
      snoozed: report.snoozed,
      digestChannels: report.digestChannels,
      sent: report.flush?.sent,
      pending: report.flush?.pending,
      lenses: report.lenses.map((l) => ({ lens: l.lens, fetched: l.fetched, fresh: l.fresh, error: l.error })),
    },
    options.dryRun ? "poll pass (dry run): nothing posted, no cursor committed" : "poll pass done",
  );
  return report;
}

/**
 * Once per pass: retention alerts no route took (a gap in the routes: a warning), and the poaching
 * lens left alone by default (read and not posted, or not even read: a note, not an error).
 */
function logUnrouted(logger: Logger, unrouted: ReturnType<typeof splitUnrouted>, lenses: readonly LensReport[]) {
  const { warning, note } = unroutedSentences({
    retention: unrouted.retention.length,
    poaching: unrouted.poaching.length,
  });
  if (warning) logger.warn({ changes: unrouted.retention.slice(0, 5).map((a) => a.key) }, warning);
  const unread = lenses.filter((l) => l.lens.startsWith("poaching") && l.skipped !== undefined).map((l) => l.lens);
  if (note) logger.info({ unrouted: unrouted.poaching.length, notPolled: unread }, note);
  else if (unread.length > 0) logger.info({ notPolled: unread }, `poaching lens not polled: ${POACHING_UNROUTED_WHY}`);
}

function stopped(report: PollReport, logger: Logger): PollReport {
  report.stopped = true;
  logger.info("poll pass stopped by shutdown before its hand-over; nothing of it was committed");
  return report;
}
