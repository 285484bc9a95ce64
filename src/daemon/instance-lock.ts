import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { InstanceLockedError } from "../errors.js";
import type { KeyValueNamespace } from "../store/state-store.js";

interface LeaseRecord {
  readonly owner: string;
  readonly host: string;
  readonly pid: number;
  /** When this holder took the lock (absent in leases of earlier releases). */
  readonly since?: number;
  readonly renewedAt: number;
  readonly expiresAt: number;
}

/** Who holds the single-instance lock, as `status` shows it. */
export interface LockHolder {
  readonly host: string;
  readonly pid: number;
  readonly since: number | undefined;
  readonly renewedAt: number;
  readonly expiresAt: number;
}

/** The lease as stored, read without taking it (`status`); undefined when nobody holds one. */
export async function readInstanceLock(store: KeyValueNamespace): Promise<LockHolder | undefined> {
  const lease = await store.get<Partial<LeaseRecord>>(LOCK_KEY);
  if (typeof lease?.host !== "string" || typeof lease.pid !== "number") return undefined;
  if (typeof lease.renewedAt !== "number" || typeof lease.expiresAt !== "number") return undefined;
  const { host, pid, renewedAt, expiresAt } = lease;
  return { host, pid, since: typeof lease.since === "number" ? lease.since : undefined, renewedAt, expiresAt };
}

export interface InstanceLock {
  /** Stops renewing and gives the lease back. */
  release(): Promise<void>;
}

export interface InstanceLockOptions {
  readonly leaseMs?: number;
  readonly clock?: () => number;
  readonly host?: string;
  readonly pid?: number;
  /** Whether a process id is alive on this host; injectable for tests. */
  readonly isAlive?: (pid: number) => boolean;
  /** When this process started (epoch ms); a lease of our own pid renewed before it is a previous incarnation's. */
  readonly processStartedAt?: number;
  /** Called when a renewal fails (store trouble): the daemon turns not-ready. */
  readonly onRenewFailure?: (error: unknown) => void;
}

const LOCK_KEY = "instance";
/** The namespace the daemon keeps its lease in. */
export const LOCK_NAMESPACE = "daemon.lock";

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A lease this host can take over: expired, or held by a process of this host that is gone. */
interface Holder {
  readonly host: string;
  readonly pid: number;
  readonly processStartedAt: number;
  readonly isAlive: (pid: number) => boolean;
}

function isStale(lease: LeaseRecord, now: number, me: Holder): boolean {
  if (lease.expiresAt <= now) return true;
  if (lease.host !== me.host) return false;
  // Our own pid, renewed before we started: a previous incarnation (a container restarted as pid 1).
  if (lease.pid === me.pid) return lease.renewedAt < me.processStartedAt;
  return !me.isAlive(lease.pid);
}

/**
 * Takes the single-instance lease on the state store so two daemons on the same state never
 * post the same alerts twice. A namespace has no compare-and-set, so the write is read back before
 * the lease counts as ours.
 */
export async function acquireInstanceLock(
  store: KeyValueNamespace,
  options: InstanceLockOptions = {},
): Promise<InstanceLock> {
  const leaseMs = options.leaseMs ?? 30_000;
  const clock = options.clock ?? Date.now;
  const host = options.host ?? hostname();
  const pid = options.pid ?? process.pid;
  const me: Holder = {
    host,
    pid,
    isAlive: options.isAlive ?? processIsAlive,
    processStartedAt: options.processStartedAt ?? Date.now() - process.uptime() * 1000,
  };
  const owner = randomUUID();

  const current = await store.get<LeaseRecord>(LOCK_KEY);
  if (current && !isStale(current, clock(), me)) {
    const seconds = Math.ceil((current.expiresAt - clock()) / 1000);
    throw new InstanceLockedError(
      `Another retention-sync instance (pid ${current.pid} on ${current.host}) is running on this state store. ` +
        `Stop it first; if it crashed, its lease expires in ${seconds} s. Two instances on one state would post alerts twice.`,
    );
  }
  const since = clock();
  const write = () => {
    const now = clock();
    return store.set<LeaseRecord>(LOCK_KEY, { owner, host, pid, since, renewedAt: now, expiresAt: now + leaseMs });
  };
  await write();
  const check = await store.get<LeaseRecord>(LOCK_KEY);
  if (check?.owner !== owner) {
    throw new InstanceLockedError(
      "Another retention-sync instance took the lock on this state store at the same moment.",
    );
  }

  let released = false;
  const timer = setInterval(
    () => {
      write().catch((error: unknown) => options.onRenewFailure?.(error));
    },
    Math.max(1000, Math.floor(leaseMs / 3)),
  );
  timer.unref();

  return {
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      const held = await store.get<LeaseRecord>(LOCK_KEY);
      if (held?.owner === owner) await store.delete(LOCK_KEY);
    },
  };
}
