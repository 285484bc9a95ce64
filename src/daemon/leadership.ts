import type { FencedOutError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Fence, KeyValueNamespace, LeaderElection, LeaderElectionOptions } from "../store/state-store.js";
import { sleepUnlessAborted } from "../timers.js";
import { acquireInstanceLock, type InstanceLockOptions } from "./instance-lock.js";

/**
 * Who does the work. A daemon leads for a term: its jobs (poll, reconcile, delivery, the webhook
 * inbox's hand-over) run from the term's start until the term is lost or given back; between
 * terms it is a standby that serves the ops endpoints and accepts webhooks into the shared inbox.
 *
 * - One process per store (SQLite): the lease in `daemon.lock` (`acquireInstanceLock`) is taken at
 *   start, or the start fails with InstanceLockedError; the term lasts until the daemon stops.
 * - Replicas on a shared store (Postgres): the store's election, tried every `retryMs` by a
 *   standby; each term has a fencing epoch that the daemon's writes carry (`LeaderFence`).
 */
export interface Term {
  /** The fencing token; undefined for a single instance (nothing to fence against). */
  readonly epoch: number | undefined;
  /** Aborted (reason: a sentence) when the leadership is lost, not when it is given back. */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

export interface Leadership {
  readonly mode: "single" | "replicas";
  /**
   * The next term; undefined when `signal` aborted first. A single instance's first call throws
   * InstanceLockedError when another process holds the lease.
   */
  next(signal: AbortSignal): Promise<Term | undefined>;
}

/** One process per state file: the lease, as before there were replicas. */
export function singleInstance(lock: KeyValueNamespace, options: InstanceLockOptions = {}): Leadership {
  return {
    mode: "single",
    async next(signal) {
      if (signal.aborted) return undefined;
      const held = await acquireInstanceLock(lock, options);
      return { epoch: undefined, lost: new AbortController().signal, release: () => held.release() };
    },
  };
}

export interface ReplicaOptions extends LeaderElectionOptions {
  /**
   * How often a standby tries to take the lead (default 250 ms): the most of a takeover after the
   * leader's process died, since the server frees the lock as soon as it sees its connection close.
   */
  readonly retryMs?: number;
  /** How long a standby waits after an attempt that failed (the store unreachable; default 1 s). */
  readonly failingRetryMs?: number;
  readonly logger: Logger;
  /**
   * An attempt at the leader lock failed or ran out of time (the daemon turns not ready: nobody
   * may be leading), and each attempt that was answered, won or not.
   */
  readonly onStoreError?: (error: unknown) => void;
  readonly onAnswered?: () => void;
  /** The wait between attempts (tests record it). */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const DEFAULT_RETRY_MS = 250;
const DEFAULT_FAILING_RETRY_MS = 1_000;

/** Replicas on a shared store: a standby tries the store's election until it wins. */
export function replicaLeadership(election: LeaderElection, options: ReplicaOptions): Leadership {
  const retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  // A database that cannot be reached is not asked for a new connection four times a second.
  const failingRetryMs = options.failingRetryMs ?? Math.max(retryMs, DEFAULT_FAILING_RETRY_MS);
  const sleep = options.sleep ?? sleepUnlessAborted;
  const { heartbeatMs, heartbeatTimeoutMs } = options;
  const electionOptions: LeaderElectionOptions = {
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
    ...(heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs }),
  };
  return {
    mode: "replicas",
    async next(signal) {
      let failing = false;
      while (!signal.aborted) {
        try {
          const term = await election.tryAcquire(electionOptions);
          failing = false;
          options.onAnswered?.();
          if (term) {
            if (!signal.aborted) return term;
            await term.release();
            return undefined;
          }
        } catch (error) {
          if (!failing)
            options.logger.warn({ err: error }, "leader election: the state store cannot be reached; trying again");
          failing = true;
          options.onStoreError?.(error);
        }
        await sleep(failing ? failingRetryMs : retryMs, signal);
      }
      return undefined;
    },
  };
}

/**
 * The fence the daemon's jobs write with (their store view is `store.fenced(fence)`): the epoch of
 * the term being led, none while standby (every fenced write refused). A write that finds a newer
 * epoch clears it at once and tells the term, which ends.
 */
export class LeaderFence implements Fence {
  private current: number | undefined;
  private onFencedOut: ((error: FencedOutError) => void) | undefined;

  get epoch(): number | undefined {
    return this.current;
  }

  /** Leading with `epoch` until `end`; `onFencedOut` runs when a write is refused meanwhile. */
  begin(epoch: number | undefined, onFencedOut: (error: FencedOutError) => void): void {
    this.current = epoch;
    this.onFencedOut = onFencedOut;
  }

  end(): void {
    this.current = undefined;
    this.onFencedOut = undefined;
  }

  fencedOut(error: FencedOutError): void {
    this.current = undefined;
    this.onFencedOut?.(error);
  }
}
