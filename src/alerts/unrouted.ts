import type { Alert } from "./alert.js";

/**
 * What routing left unposted, said the same way by both doors and by `poll --once`. The two lenses
 * are told apart because they mean different things: a retention alert nobody takes is a gap in the
 * routes (a warning), a poaching alert nobody takes is the safe default (docs/privacy.md), noted once.
 */

/** Why the poaching lens goes nowhere, and how to change it. */
export const POACHING_UNROUTED_WHY =
  "no route or slack.poachingChannel (SLACK_POACHING_CHANNEL) takes the poaching lens; settle with legal first (docs/privacy.md)";

/** Why a retention alert went nowhere, and how to change it. */
export const RETENTION_UNROUTED_WHY =
  "matched no route and no catch-all is set: set slack.channel (SLACK_CHANNEL) or widen alerts.routes";

export interface UnroutedSplit {
  readonly retention: readonly Alert[];
  readonly poaching: readonly Alert[];
}

export function splitUnrouted(alerts: readonly Alert[]): UnroutedSplit {
  return {
    retention: alerts.filter((a) => a.lens.kind === "retention"),
    poaching: alerts.filter((a) => a.lens.kind === "poaching"),
  };
}

/** The sentences of one pass (or one drain of webhook events): empty when everything was routed. */
export function unroutedSentences(counts: { readonly retention: number; readonly poaching: number }): {
  readonly warning?: string;
  readonly note?: string;
} {
  return {
    ...(counts.retention > 0
      ? { warning: `${counts.retention} retention alert(s) not posted: ${RETENTION_UNROUTED_WHY}` }
      : {}),
    ...(counts.poaching > 0
      ? { note: `${counts.poaching} poaching alert(s) not posted: ${POACHING_UNROUTED_WHY}` }
      : {}),
  };
}
