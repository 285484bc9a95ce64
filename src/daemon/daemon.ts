import type { Logger } from "../logger.js";
import type { StateStore } from "../store/state-store.js";
import { createShutdownController } from "../timers.js";
import { DaemonEvents } from "./daemon-events.js";
import type { JobFn } from "./job-runner.js";
import { type LeaderJobs, type LeaderWork, startLeaderJobs } from "./leader-jobs.js";
import { recordLeader } from "./leader-record.js";
import { LeaderFence, type Leadership, type Term } from "./leadership.js";

/** Something every replica runs from start to stop (the ops server, the store probe): started in order, closed in reverse. */
export interface DaemonService {
  readonly name: string;
  /** Resolves once it runs, with what closes it. */
  start(): Promise<() => Promise<void>>;
}

export interface DaemonOptions extends LeaderJobs {
  readonly logger: Logger;
  /** The plain (unfenced) store: the leader record of each term. */
  readonly store: StateStore;
  readonly leadership: Leadership;
  /** The fence of the jobs' store view: the term's epoch while leading, none otherwise. */
  readonly fence?: LeaderFence | undefined;
  /** Aborted when shutdown begins; shared with the adapters by the composition root. */
  readonly shutdown?: AbortController | undefined;
  readonly shutdownGraceMs: number;
  readonly services?: readonly DaemonService[];
  readonly events?: DaemonEvents | undefined;
}

/** The term being led: its end (lost, refused or shutdown) and its jobs. */
interface Led {
  readonly term: Term;
  readonly ended: AbortController;
  work: LeaderWork | undefined;
}

/** How long to wait again for a job of a lost term that outlived the grace, before trying to lead. */
const LOST_TERM_WAIT_MS = 60_000;

/**
 * The daemon's lifecycle: `start` (the lease or the election, then the services, then the terms),
 * `leadTerm` (the jobs of one fenced term), `standDown` (a term lost or refused) and `stop`. What
 * happens is told as events (`events`), which metrics and readiness subscribe to.
 */
export class Daemon {
  readonly events: DaemonEvents;
  private readonly logger: Logger;
  private readonly shutdown: AbortController;
  private readonly fence: LeaderFence;
  private readonly replicas: boolean;
  private readonly closers: Array<() => Promise<void>> = [];
  private led: Led | undefined;
  private terms: Promise<boolean> = Promise.resolve(true);
  private stopping: Promise<{ clean: boolean }> | undefined;

  constructor(private readonly options: DaemonOptions) {
    this.events = options.events ?? new DaemonEvents();
    this.logger = options.logger;
    this.shutdown = options.shutdown ?? createShutdownController();
    this.fence = options.fence ?? new LeaderFence();
    this.replicas = options.leadership.mode === "replicas";
  }

  /** Whether a term is being led (its jobs run). */
  get leading(): boolean {
    return this.led !== undefined;
  }

  /** The next scheduled reconcile of the term being led. */
  get nextReconcile(): Date | undefined {
    return this.led?.work?.nextReconcile;
  }

  /**
   * A single instance takes its lease before anything starts, or does not start at all
   * (InstanceLockedError); then the services start, then the terms: a single instance leads at
   * once, a replica stands by until it wins the election. Resolves once the services run.
   */
  async start(): Promise<void> {
    const first = this.replicas ? undefined : await this.options.leadership.next(this.shutdown.signal);
    this.events.emit("starting", { replicas: this.replicas });
    try {
      for (const service of this.options.services ?? []) this.closers.unshift(await service.start());
    } catch (error) {
      this.shutdown.abort();
      for (const close of this.closers.splice(0)) await close().catch(() => undefined);
      await first?.release().catch(() => undefined);
      throw error;
    }
    this.terms = this.runTerms(first);
  }

  /** Terms, one after the other, until shutdown. Resolves with whether the last one ended cleanly. */
  private async runTerms(first: Term | undefined): Promise<boolean> {
    let clean = first ? await this.leadTerm(first) : true;
    while (!this.shutdown.signal.aborted) {
      const term = await this.options.leadership.next(this.shutdown.signal);
      if (!term) break;
      clean = await this.leadTerm(term);
    }
    return clean;
  }

  /**
   * Leads for one term: until it is lost, refused (a fenced-out write, `standDown`) or shutdown.
   * Returns whether its jobs stopped cleanly; the lead is given back before it resolves.
   */
  async leadTerm(term: Term): Promise<boolean> {
    const led: Led = { term, ended: new AbortController(), work: undefined };
    this.led = led;
    const unwatch = this.watchTerm(led);
    this.events.emit("leading", { epoch: term.epoch });
    this.fence.begin(term.epoch, (error) => this.standDown(error.message));
    if (this.shutdown.signal.aborted) endTerm(led, "shutdown");
    if (term.lost.aborted) this.onLost(led);
    led.work = startLeaderJobs(this.options, led.ended, this.logger, (name, job) => this.instrument(name, job));
    // Who leads since when, for `status` (read from the store, the daemon running or not).
    void recordLeader(this.options.store, term.epoch).catch((error: unknown) =>
      this.logger.debug({ err: error }, "could not record the leader for status"),
    );
    if (this.replicas) {
      this.logger.info({ epoch: term.epoch, nextReconcile: led.work.nextReconcile?.toISOString() }, "became leader");
    }
    await aborted(led.ended.signal);
    unwatch();
    const clean = await this.endJobs(led, led.work);
    this.led = undefined;
    this.fence.end();
    this.events.emit("term-ended", { epoch: term.epoch, clean });
    await term
      .release()
      .catch((error: unknown) => this.logger.warn({ err: error }, "giving the leadership back failed"));
    return clean;
  }

  /**
   * The term was lost or refused: no fenced write may start from here on, whatever the jobs still
   * do; they are stopped and this replica stands by. Does nothing when no term is being led.
   */
  standDown(reason: string): void {
    const led = this.led;
    if (!led || led.ended.signal.aborted) return;
    this.fence.end();
    this.events.emit("standing-down", { epoch: led.term.epoch, reason });
    endTerm(led, reason);
  }

  /** Runs a reconciliation now if this daemon leads; no overlap with the scheduled one. */
  reconcileNow(): Promise<void> {
    const work = this.led?.work;
    if (!work?.reconcileJob) {
      if (!work && this.options.reconcile) this.logger.info("standby: the leader reconciles");
      return Promise.resolve();
    }
    return work.runner.run("reconcile", work.reconcileJob);
  }

  /** Graceful stop: no new work, running jobs checkpoint, the lead given back, the services closed. */
  stop(reason: string): Promise<{ clean: boolean }> {
    this.stopping ??= this.stopOnce(reason);
    return this.stopping;
  }

  private async stopOnce(reason: string): Promise<{ clean: boolean }> {
    const graceMs = this.options.shutdownGraceMs;
    this.logger.info({ reason, graceMs }, "shutting down: no new work, finishing the running step");
    const started = Date.now();
    this.shutdown.abort();
    const clean = await this.terms;
    for (const close of this.closers.splice(0)) {
      await close().catch((error: unknown) => this.logger.warn({ err: error }, "cleanup step failed during shutdown"));
    }
    this.logger.info(
      { clean, ms: Date.now() - started },
      clean ? "stopped" : "stopped with work left for the next start",
    );
    this.events.emit("stopped", { clean });
    return { clean };
  }

  /** Ends the term on shutdown or when its lock is lost; returns the unsubscribe. */
  private watchTerm(led: Led): () => void {
    const onShutdown = () => endTerm(led, "shutdown");
    const onLost = () => this.onLost(led);
    this.shutdown.signal.addEventListener("abort", onShutdown, { once: true });
    led.term.lost.addEventListener("abort", onLost, { once: true });
    return () => {
      this.shutdown.signal.removeEventListener("abort", onShutdown);
      led.term.lost.removeEventListener("abort", onLost);
    };
  }

  /** The lock's session failed or went silent: until an attempt is answered, nobody may lead. */
  private onLost(led: Led): void {
    const reason = String(led.term.lost.reason ?? "leadership lost");
    this.events.emit("lock-unknown", { problem: `leader lock unreachable: ${reason}` });
    this.standDown(reason);
  }

  /**
   * Shutdown: the jobs finish their step, their writes still fenced by this term. Lost: a job of
   * this term must not write under the next one, so this waits until every one has ended.
   */
  private async endJobs(led: Led, work: LeaderWork): Promise<boolean> {
    const graceMs = this.options.shutdownGraceMs;
    if (this.shutdown.signal.aborted) return work.end(graceMs);
    this.logger.warn(
      { epoch: led.term.epoch, reason: led.ended.signal.reason },
      "lost the leadership: jobs stopped, standby again",
    );
    let clean = await work.end(graceMs);
    while (!clean && !this.shutdown.signal.aborted) {
      this.logger.warn("a job of the lost term is still running; waiting for it before trying to lead again");
      clean = await work.end(LOST_TERM_WAIT_MS);
    }
    return clean;
  }

  /** Tells how each pass of a job ended; the error still reaches the runner, which logs it. */
  private instrument(name: string, job: JobFn): JobFn {
    return async (signal) => {
      try {
        await job(signal);
        this.events.emit("job-finished", { job: name });
      } catch (error) {
        this.events.emit("job-failed", { job: name, error });
        throw error;
      } finally {
        this.logger.debug({ job: name }, "job pass ended");
      }
    };
  }
}

function endTerm(led: Led, reason: string): void {
  if (!led.ended.signal.aborted) led.ended.abort(reason);
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
