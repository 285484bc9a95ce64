import type { ChangeItem } from "../api/change-item.js";
import { personRef } from "../interactive/button-value.js";
import type { PersonMark } from "../interactive/person-marks.js";
import { type Alert, DEPARTURE, personKey } from "./alert.js";
import type { AlertCommitLog } from "./alert-commit.js";
import type { AlertSettings } from "./alert-settings.js";
import { selectFresh } from "./dedupe.js";
import type { DeliveryLedger } from "./delivery-ledger.js";
import type { ChangeEnricher } from "./enrich.js";
import type { Lens } from "./lens.js";
import { type DeliveryPlan, planDeliveries } from "./plan-deliveries.js";
import type { ScoreHistory } from "./score-history.js";

/** A change that came in by either door (a poll pass or a webhook event). */
export interface Arrival {
  readonly item: ChangeItem;
  readonly lens: Lens;
  /** Every identity it is known by and recorded under: its change key, plus the event key of a webhook event. */
  readonly keys: readonly string[];
}

export interface HandOverInput {
  readonly arrivals: readonly Arrival[];
  /** Enriches the fresh arrivals (the webhook door bounds its employee look-ups in time). */
  readonly enricher: ChangeEnricher;
  /** Lens key -> cursor reached (poll passes only), committed with the messages. */
  readonly cursors: Readonly<Record<string, string>>;
  readonly nowMs: number;
  /** Plans and returns the messages; records nothing. */
  readonly dryRun: boolean;
  /** Queue items this hand-over consumes, acked in its transaction (webhook events from the inbox). */
  readonly consumed?: { readonly queue: string; readonly ids: readonly string[] } | undefined;
}

export interface HandOverResult {
  /** The arrivals not handled before, in order. */
  readonly fresh: readonly Arrival[];
  readonly alerts: readonly Alert[];
  readonly plan: DeliveryPlan;
  /** Drafts new to the outbox (0 in a dry run). */
  readonly enqueued: number;
  /** Alerts not posted because someone snoozed the person (handled all the same: they do not come back). */
  readonly snoozed: readonly Alert[];
}

/** The Slack buttons' marks of people (`interactive.acks`, `interactive.snoozes`). */
export interface PersonMarksLookup {
  lookup(refs: readonly string[], nowMs: number): Promise<ReadonlyMap<string, PersonMark>>;
}

export interface HandOverDeps {
  readonly settings: AlertSettings;
  readonly ledger: DeliveryLedger;
  readonly commits: AlertCommitLog;
  /** Each person's last delivered score, for "0.52 → 0.81" (read before planning, written after the commit). */
  readonly scores?: ScoreHistory | undefined;
  /** Snoozed people's alerts are dropped (departures excepted); acknowledged people's say so. */
  readonly marks?: PersonMarksLookup | undefined;
}

/** Drops the alerts of snoozed people, except departures; marks the alerts of acknowledged people. */
async function applyMarks(
  alerts: readonly Alert[],
  marks: PersonMarksLookup | undefined,
  nowMs: number,
): Promise<{ kept: Alert[]; snoozed: Alert[] }> {
  if (!marks || alerts.length === 0) return { kept: [...alerts], snoozed: [] };
  const refOf = (alert: Alert) => personRef(personKey(alert));
  const found = await marks.lookup(alerts.map(refOf), nowMs);
  const kept: Alert[] = [];
  const snoozed: Alert[] = [];
  for (const alert of alerts) {
    const mark = found.get(refOf(alert));
    if (mark?.snoozedUntil !== undefined && alert.changeType !== DEPARTURE) {
      snoozed.push(alert);
      continue;
    }
    kept.push(mark?.acknowledged ? { ...alert, acknowledged: mark.acknowledged } : alert);
  }
  return { kept, snoozed };
}

/**
 * The one hand-over both doors share: drop what was handled before, enrich, plan the messages and
 * commit them with the handled keys and cursors as one unit. Runs under the ledger's lock, so the
 * poller and the webhook receiver of one process never both enqueue the same change.
 */
export function handOver(deps: HandOverDeps, input: HandOverInput): Promise<HandOverResult> {
  const { ledger, commits, settings } = deps;
  return ledger.exclusive(async () => {
    const handled = await ledger.handled(input.arrivals.flatMap((a) => a.keys));
    const { fresh } = selectFresh(input.arrivals, (a) => a.keys, handled);
    const enriched: Alert[] = [];
    for (const arrival of fresh) enriched.push(await input.enricher.toAlert(arrival.item, arrival.lens));
    const scored = deps.scores ? await deps.scores.withPrevious(enriched) : enriched;
    const { kept: alerts, snoozed } = await applyMarks(scored, deps.marks, input.nowMs);
    const plan = planDeliveries({
      alerts,
      routing: settings.routing,
      digestThreshold: settings.digestThreshold,
      managerDm: settings.managerDm,
      format: settings.format,
    });
    if (input.dryRun) return { fresh, alerts, plan, enqueued: 0, snoozed };
    const enqueued = await commits.commit({
      drafts: plan.drafts,
      keys: fresh.flatMap((a) => a.keys),
      cursors: input.cursors,
      nowMs: input.nowMs,
      consumed: input.consumed,
    });
    const unrouted = new Set(plan.unrouted);
    await deps.scores?.record(alerts.filter((alert) => !unrouted.has(alert)));
    return { fresh, alerts, plan, enqueued, snoozed };
  });
}
