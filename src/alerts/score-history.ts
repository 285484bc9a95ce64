import type { KeyValueNamespace } from "../store/state-store.js";
import { type Alert, personKey } from "./alert.js";

export const SCORES_NAMESPACE = "alerts.scores";

/** The last delivered score of one person in one lens. */
interface StoredScore {
  readonly score: number;
  /** The change it came from (`chg:<id>`), so a replayed change never counts as its own predecessor. */
  readonly key: string;
  /** Its `detectedAt`, so a late arrival neither shows a newer score as "previous" nor overwrites it. */
  readonly at: string | undefined;
}

function historyKey(alert: Alert): string {
  return `${alert.lens.kind}:${personKey(alert)}`;
}

function older(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return true;
  const ms = Date.parse(a);
  const other = Date.parse(b);
  return Number.isNaN(ms) || Number.isNaN(other) || ms <= other;
}

/**
 * Each person's last delivered score (namespace `alerts.scores`, kept for `alerts.dedupeRetention`),
 * so an alert can say "0.52 → 0.81" without asking the service for the person's history.
 */
export class ScoreHistory {
  constructor(
    private readonly namespace: KeyValueNamespace,
    private readonly retentionMs: number,
  ) {}

  /**
   * The alerts with `previousScore` set from the store; within the batch, a person's earlier
   * alert is the previous of the later one. Reads only.
   */
  async withPrevious(alerts: readonly Alert[]): Promise<Alert[]> {
    const stored = await this.namespace.getMany<StoredScore>([...new Set(alerts.map(historyKey))]);
    const latest = new Map<string, StoredScore | undefined>(stored);
    const out: Alert[] = [];
    for (const alert of alerts) {
      const key = historyKey(alert);
      const previous = latest.get(key);
      const usable = previous !== undefined && previous.key !== alert.key && older(previous.at, alert.detectedAt);
      out.push(usable ? { ...alert, previousScore: previous.score } : alert);
      if (alert.riskScore !== null && (previous === undefined || older(previous.at, alert.detectedAt))) {
        latest.set(key, { score: alert.riskScore, key: alert.key, at: alert.detectedAt });
      }
    }
    return out;
  }

  /** Remembers the scores of delivered alerts (the newest per person wins; departures carry none). One read, one write. */
  async record(alerts: readonly Alert[]): Promise<void> {
    const newest = new Map<string, StoredScore>();
    for (const alert of alerts) {
      if (alert.riskScore === null) continue;
      const key = historyKey(alert);
      const seen = newest.get(key);
      if (seen === undefined || older(seen.at, alert.detectedAt)) {
        newest.set(key, { score: alert.riskScore, key: alert.key, at: alert.detectedAt });
      }
    }
    if (newest.size === 0) return;
    const stored = await this.namespace.getMany<StoredScore>([...newest.keys()]);
    const changed = [...newest].filter(([key, value]) => {
      const before = stored.get(key);
      return before === undefined || older(before.at, value.at);
    });
    await this.namespace.setMany(changed, this.retentionMs);
  }
}
