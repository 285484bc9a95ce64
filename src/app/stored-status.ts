import { CURSOR_NAMESPACE } from "../alerts/poll-changes.js";
import type { Config } from "../config/schema.js";
import { LOCK_NAMESPACE, readInstanceLock } from "../daemon/instance-lock.js";
import { type LeaderRecord, readHeartbeat, readLeader } from "../daemon/leader-record.js";
import { Outbox } from "../delivery/outbox.js";
import { type ReconcileRunRecord, readLastRun } from "../roster/run-record.js";
import { rosterOrigin } from "../roster/sources/roster-puller.js";
import { channelAccessFix } from "../slack/classify-slack-error.js";
import type { StateStore } from "../store/state-store.js";

/**
 * What the state store says about the daemon, read without writing: the same answer whether the
 * daemon runs or not, on SQLite or Postgres. Ages are in whole seconds at `nowMs`.
 */
export interface StoredStatus {
  readonly state: string;
  /** SQLite (one daemon, an instance lock) or Postgres (replicas, an elected leader). */
  readonly engine: "sqlite" | "postgres";
  /** The last term recorded (who, since when, which epoch): a past record when nobody runs. */
  readonly leader?: LeaderRecord;
  /** SQLite: the single-instance lock as stored; `held` while its lease has not expired. */
  readonly lock?: {
    readonly host: string;
    readonly pid: number;
    readonly since?: string;
    readonly renewedAt: string;
    readonly held: boolean;
  };
  /** The last heartbeat of any process on this state (every 15 s while one runs). */
  readonly heartbeatAt?: string;
  readonly lenses: ReadonlyArray<{ readonly lens: string; readonly cursor: string; readonly ageSeconds: number }>;
  readonly outbox: readonly ChannelBacklog[];
  readonly reconcile?: ReconcileRunRecord;
  readonly roster?: RosterFreshness;
}

export interface ChannelBacklog {
  readonly channel: string;
  readonly waiting: number;
  readonly oldestAgeSeconds: number;
  /** Slack's last answer to a post of this channel that failed (`not_in_channel`, `ratelimited`). */
  readonly lastError?: string;
  /** The fix when the last error is one only a person can fix. */
  readonly fix?: string;
}

export interface RosterFreshness {
  /** `roster file /data/x.csv` or `the roster source bamboohr`. */
  readonly source: string;
  /** When an export was last read in full by a reconcile (absent: none recorded yet). */
  readonly lastCompleteAt?: string;
  /** When that export was written (its file time), or first read. */
  readonly exportWrittenAt?: string;
  readonly ageSeconds?: number;
  /** roster.staleAfter (0: no check). */
  readonly staleAfterSeconds: number;
  readonly stale: boolean;
}

const ageOf = (iso: string | undefined, nowMs: number): number | undefined => {
  const at = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.round((nowMs - at) / 1000));
};

export async function readStoredStatus(store: StateStore, config: Config, nowMs: number): Promise<StoredStatus> {
  const [leader, lock, heartbeatAt, cursors, waiting, reconcile] = await Promise.all([
    readLeader(store),
    store.election === undefined ? readInstanceLock(store.namespace(LOCK_NAMESPACE)) : Promise.resolve(undefined),
    readHeartbeat(store),
    store.namespace(CURSOR_NAMESPACE).entries<unknown>(),
    new Outbox(store).waiting(),
    readLastRun(store),
  ]);
  const roster = rosterFreshness(config, reconcile, nowMs);
  return {
    state: store.location,
    engine: store.election === undefined ? "sqlite" : "postgres",
    ...(leader ? { leader } : {}),
    ...(lock
      ? {
          lock: {
            host: lock.host,
            pid: lock.pid,
            ...(lock.since === undefined ? {} : { since: new Date(lock.since).toISOString() }),
            renewedAt: new Date(lock.renewedAt).toISOString(),
            held: lock.expiresAt > nowMs,
          },
        }
      : {}),
    ...(heartbeatAt ? { heartbeatAt } : {}),
    lenses: lensCursors(cursors, nowMs),
    outbox: backlogs(waiting, nowMs),
    ...(reconcile ? { reconcile } : {}),
    ...(roster ? { roster } : {}),
  };
}

/** Each lens's cursor (the look-back bookkeeping keys left out), oldest first. */
function lensCursors(entries: ReadonlyArray<[string, unknown]>, nowMs: number): StoredStatus["lenses"] {
  const lenses: Array<{ lens: string; cursor: string; ageSeconds: number }> = [];
  for (const [lens, cursor] of entries) {
    if (lens.endsWith(":lookback-start") || typeof cursor !== "string") continue;
    const ageSeconds = ageOf(cursor, nowMs);
    if (ageSeconds !== undefined) lenses.push({ lens, cursor, ageSeconds });
  }
  return lenses.sort((a, b) => b.ageSeconds - a.ageSeconds);
}

/** The outbox per channel: how many wait, the oldest's age, and the last error of the channel's posts. */
function backlogs(
  waiting: ReadonlyArray<{ channel: string; enqueuedAt: number; lastError?: string | undefined }>,
  nowMs: number,
): ChannelBacklog[] {
  const byChannel = new Map<string, { waiting: number; oldest: number; lastError?: string }>();
  for (const message of waiting) {
    const entry = byChannel.get(message.channel) ?? { waiting: 0, oldest: message.enqueuedAt };
    entry.waiting += 1;
    entry.oldest = Math.min(entry.oldest, message.enqueuedAt);
    if (message.lastError !== undefined) entry.lastError = message.lastError;
    byChannel.set(message.channel, entry);
  }
  return [...byChannel].map(([channel, entry]) => {
    const fix = entry.lastError === undefined ? undefined : channelAccessFix(entry.lastError, channel);
    return {
      channel,
      waiting: entry.waiting,
      oldestAgeSeconds: Math.max(0, Math.round((nowMs - entry.oldest) / 1000)),
      ...(entry.lastError === undefined ? {} : { lastError: entry.lastError }),
      ...(fix === undefined ? {} : { fix }),
    };
  });
}

/** The roster's freshness: the last complete read against roster.staleAfter; undefined when reconciliation is off. */
function rosterFreshness(
  config: Config,
  run: ReconcileRunRecord | undefined,
  nowMs: number,
): RosterFreshness | undefined {
  const source = config.roster.enabled ? rosterOrigin(config) : undefined;
  if (source === undefined) return undefined;
  const staleAfterSeconds = config.roster.staleAfter;
  const lastCompleteAt = run?.lastCompleteAt;
  // The export's own age: written or first read, whichever is older (as reconcile measures it).
  const written = [run?.export?.modifiedAt, run?.export?.firstReadAt]
    .filter((at): at is string => at !== undefined)
    .sort()[0];
  const ageSeconds = ageOf(written, nowMs);
  const sinceComplete = ageOf(lastCompleteAt, nowMs);
  const stale =
    staleAfterSeconds > 0 &&
    ((ageSeconds !== undefined && ageSeconds > staleAfterSeconds) ||
      (sinceComplete !== undefined && sinceComplete > staleAfterSeconds));
  return {
    source,
    ...(lastCompleteAt === undefined ? {} : { lastCompleteAt }),
    ...(written === undefined ? {} : { exportWrittenAt: written }),
    ...(ageSeconds === undefined ? {} : { ageSeconds }),
    staleAfterSeconds,
    stale,
  };
}
