import type { ChangeItem } from "../api/change-item.js";
import type { RetentionClient } from "../api/client.js";
import type { Config } from "../config/schema.js";
import type { Logger } from "../logger.js";
import type { Outbox, OutboxDraft } from "../slack/outbox.js";
import type { FlushReport, OutboxSender } from "../slack/outbox-sender.js";
import type { KeyValueNamespace } from "../store/state-store.js";
import type { Alert } from "./alert.js";
import type { AlertCommitLog } from "./alert-commit.js";
import { MAX_CLOCK_SKEW_MS, nextCursor, oldestFirst, pollStart, selectFresh } from "./dedupe.js";
import type { DeliveryLedger } from "./delivery-ledger.js";
import { ChangeEnricher, type HrisLookup } from "./enrich.js";
import { type Lens, lensKey } from "./lens.js";
import { minRiskScoreForLens } from "./min-risk-score.js";
import { planDeliveries } from "./plan-deliveries.js";
import type { RoutingConfig } from "./route-alert.js";

export const CURSOR_NAMESPACE = "alerts.cursor";

export type PollClient = Pick<RetentionClient, "me" | "listCompetitors" | "iterateChanges" | "getEmployee">;

export interface PollDeps {
  readonly client: PollClient;
  readonly config: Pick<Config, "alerts" | "slack">;
  readonly logger: Logger;
  readonly cursors: KeyValueNamespace;
  readonly ledger: DeliveryLedger;
  readonly outbox: Outbox;
  /** Hands each pass's messages, handled changes and cursors over as one unit. */
  readonly commits: AlertCommitLog;
  /** Absent in a dry run. */
  readonly sender?: OutboxSender | undefined;
  readonly hris?: HrisLookup | undefined;
}

export interface LensReport {
  readonly lens: string;
  readonly since?: string;
  readonly minRiskScore?: number;
  fetched: number;
  fresh: number;
  duplicates: number;
  cursor?: string | undefined;
  skipped?: string;
  error?: string;
}

export interface PollReport {
  readonly lenses: LensReport[];
  alerts: number;
  unrouted: number;
  enqueued: number;
  digestChannels: string[];
  /** The messages planned in this pass (what a dry run prints). */
  drafts: OutboxDraft[];
  flush?: FlushReport;
  /** Set when the pass could not even list its lenses. */
  error?: string;
}

export function routingOf(config: Pick<Config, "alerts" | "slack">): RoutingConfig {
  return { routes: config.alerts.routes, defaultChannel: config.slack.channel };
}

/** The lenses of this pass: the own company plus every competitor workspace listed right now. */
export async function currentLenses(client: PollClient): Promise<Lens[]> {
  const [me, competitors] = await Promise.all([client.me(), client.listCompetitors()]);
  return [
    { kind: "retention", organizationId: me.organization.id },
    ...competitors.map(
      (c): Lens => ({
        kind: "poaching",
        organizationId: c.id,
        competitor: { id: c.id, name: c.name ?? `Competitor #${c.id}` },
      }),
    ),
  ];
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

/**
 * One polling pass over every lens: fetch each lens's changes since its cursor, drop those handled
 * before, enrich, route, plan messages (digests for bursts), put them in the outbox, then commit
 * the cursors and flush the outbox. A dry run plans and returns the messages, and writes nothing.
 */
export async function pollOnce(deps: PollDeps, options: { now: Date; dryRun: boolean }): Promise<PollReport> {
  const { config, logger } = deps;
  const routing = routingOf(config);
  const enricher = new ChangeEnricher({
    getEmployee: (id) => deps.client.getEmployee(id),
    hris: deps.hris,
    dashboardUrl: config.alerts.dashboardUrl,
    logger,
  });
  const report: PollReport = { lenses: [], alerts: 0, unrouted: 0, enqueued: 0, digestChannels: [], drafts: [] };
  const gathered: Array<{ lens: Lens; items: ChangeItem[]; report: LensReport; cursor: string | undefined }> = [];

  let lenses: Lens[] = [];
  try {
    lenses = await currentLenses(deps.client);
  } catch (error) {
    // The service is unreachable: still deliver what waits in the outbox, then report the failure.
    report.error = error instanceof Error ? error.message : String(error);
    logger.warn({ err: error }, "could not list the lenses (GET /me, /competitors); no changes read this pass");
  }
  for (const lens of lenses) {
    const key = lensKey(lens);
    const minRiskScore = minRiskScoreForLens(lens, routing);
    if (minRiskScore === null) {
      report.lenses.push({ lens: key, fetched: 0, fresh: 0, duplicates: 0, skipped: "no route takes this lens" });
      continue;
    }
    const stored = await deps.cursors.get<string>(key);
    const lookbackStart = new Date(options.now.getTime() - config.alerts.initialLookback * 1000).toISOString();
    const { since, reason } = pollStart(stored, lookbackStart, options.now.getTime() + MAX_CLOCK_SKEW_MS);
    // A cursor that cannot be trusted is dropped, so the first cursor this pass computes replaces it.
    const cursor = reason === undefined ? stored : undefined;
    if (reason === "first-poll") {
      logger.info(
        { lens: key, since },
        `first poll of ${key}: starting ${config.alerts.initialLookback} s back (alerts.initialLookback), not from the whole history`,
      );
    } else if (reason !== undefined) {
      logger.warn(
        { lens: key, storedCursor: stored, since },
        `the stored cursor of ${key} is ${reason === "cursor-in-future" ? "in the future" : "unreadable"}; polling again from ${config.alerts.initialLookback} s back (handled changes are not posted twice)`,
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
      });
    } catch (error) {
      // One lens failing (a competitor deleted mid-pass, an outage) must not hold back the others.
      lensReport.error = error instanceof Error ? error.message : String(error);
      logger.warn({ lens: key, err: error }, "could not read changes for this lens; its cursor stays put");
    }
  }

  await deps.ledger.exclusive(async () => {
    if (!options.dryRun) await deps.commits.recover();
    const alerts: Alert[] = [];
    const handledKeys = await deps.ledger.handled(gathered.flatMap((g) => g.items.map((i) => i.key)));
    for (const g of gathered) {
      const { fresh, duplicates } = selectFresh(g.items, (i) => i.key, handledKeys);
      for (const item of fresh) handledKeys.add(item.key);
      g.report.fresh = fresh.length;
      g.report.duplicates = duplicates;
      for (const item of fresh) alerts.push(await enricher.toAlert(item, g.lens));
    }
    const plan = planDeliveries({
      alerts,
      routing,
      digestThreshold: config.alerts.digestThreshold,
      managerDm: config.alerts.managerDm.enabled,
    });
    report.alerts = alerts.length;
    report.unrouted = plan.unrouted.length;
    report.digestChannels = plan.digestChannels;
    report.drafts = plan.drafts;
    if (options.dryRun) return;
    const cursors: Record<string, string> = {};
    for (const g of gathered) {
      const next = nextCursor(g.cursor, g.items, options.now.getTime() + MAX_CLOCK_SKEW_MS);
      if (next !== undefined && next !== g.cursor) cursors[lensKey(g.lens)] = next;
      g.report.cursor = next;
    }
    report.enqueued = await deps.commits.commit({
      drafts: plan.drafts,
      keys: alerts.map((a) => a.key),
      cursors,
      nowMs: options.now.getTime(),
    });
  });

  if (!options.dryRun && deps.sender) report.flush = await deps.sender.flush();
  logger.info(
    {
      alerts: report.alerts,
      unrouted: report.unrouted,
      enqueued: report.enqueued,
      digestChannels: report.digestChannels,
      sent: report.flush?.sent,
      pending: report.flush?.pending,
      lenses: report.lenses.map((l) => ({ lens: l.lens, fetched: l.fetched, fresh: l.fresh, error: l.error })),
    },
    options.dryRun ? "poll pass (dry run): nothing posted, no cursor committed" : "poll pass done",
  );
  return report;
}
