import { hostname } from "node:os";
import { z } from "zod";
import type { StateStore } from "../store/state-store.js";

/**
 * Who leads, written by the daemon at the start of each term, so that `status` can say it from the
 * store alone. A record of the past: a leader that crashed leaves its record behind, which is why
 * `status` shows it with the instance lock (SQLite) or the daemon's own answer (ops server).
 */
export const DAEMON_META_NAMESPACE = "daemon.meta";
const LEADER_KEY = "leader";

const leaderRecordSchema = z.object({
  host: z.string(),
  pid: z.number().int(),
  /** The fencing epoch of the term (Postgres replicas); absent for a single instance. */
  epoch: z.number().int().optional(),
  /** When the term began (ISO). */
  since: z.string(),
});
export type LeaderRecord = z.infer<typeof leaderRecordSchema>;

export async function recordLeader(store: StateStore, epoch: number | undefined, now = new Date()): Promise<void> {
  const record: LeaderRecord = {
    host: hostname(),
    pid: process.pid,
    ...(epoch === undefined ? {} : { epoch }),
    since: now.toISOString(),
  };
  await store.namespace(DAEMON_META_NAMESPACE).set(LEADER_KEY, record);
}

/** The last leader recorded, or undefined (none yet, or a record this release cannot read). */
export async function readLeader(store: StateStore): Promise<LeaderRecord | undefined> {
  const parsed = leaderRecordSchema.safeParse(await store.namespace(DAEMON_META_NAMESPACE).get<unknown>(LEADER_KEY));
  return parsed.success ? parsed.data : undefined;
}

const heartbeatSchema = z.string();

/** The last heartbeat any process of this state wrote (every 15 s while one runs), or undefined. */
export async function readHeartbeat(store: StateStore): Promise<string | undefined> {
  const parsed = heartbeatSchema.safeParse(await store.namespace(DAEMON_META_NAMESPACE).get<unknown>("heartbeat"));
  return parsed.success ? parsed.data : undefined;
}
