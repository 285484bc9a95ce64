import cron from "node-cron";
import type { Logger } from "../logger.js";
import { sleepUnlessAborted } from "../timers.js";
import { type JobFn, JobRunner } from "./job-runner.js";

/** A connection only the leader holds (Slack's Socket Mode). */
export interface LeaderService {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What the leader runs during each term. */
export interface LeaderJobs {
  /** The alerts poller: one pass per interval, the next pass starting `intervalSeconds` after the last one ended. */
  readonly poll?: { readonly intervalSeconds: number; readonly run: JobFn } | undefined;
  /** Roster reconciliation on a cron schedule; runs never overlap. `runOnStart` is asked at each term's start. */
  readonly reconcile?:
    | {
        readonly schedule: string;
        readonly timezone: string;
        readonly runOnStart: boolean | (() => Promise<boolean>);
        readonly run: JobFn;
      }
    | undefined;
  /** Work the leader does at the start of each term and then every `everyMs` (the shared webhook inbox). */
  readonly whileLeading?: { readonly everyMs: number; readonly run: JobFn } | undefined;
  /**
   * Connections only the leader holds (Slack's Socket Mode): started when a term begins (not
   * awaited), stopped when it ends, so Slack sends unacked envelopes to the next leader.
   */
  readonly leaderServices?: ReadonlyArray<LeaderService>;
}

/** The jobs of one term, started by `startLeaderJobs` and stopped by `end`. */
export interface LeaderWork {
  readonly runner: JobRunner;
  readonly reconcileJob: JobFn | undefined;
  readonly nextReconcile: Date | undefined;
  /** Stops scheduling and waits for the running jobs (`graceMs` at most); false when some are left. */
  end(graceMs: number): Promise<boolean>;
}

/** Wraps a job so the daemon hears how each pass ended (its events). */
export type Instrument = (name: string, job: JobFn) => JobFn;

interface TermScope {
  readonly runner: JobRunner;
  readonly logger: Logger;
  /** Stoppers of what the term started, run in order when it ends. */
  readonly stops: Array<() => Promise<void>>;
  /** Loops that end once the runner's signal aborts. */
  readonly loops: Array<Promise<void>>;
}

/** Starts the jobs of a term; they stop when `signal` aborts (term lost, or shutdown). */
export function startLeaderJobs(
  jobs: LeaderJobs,
  signal: AbortController,
  logger: Logger,
  instrument: Instrument,
): LeaderWork {
  const scope: TermScope = { runner: new JobRunner(logger, signal), logger, stops: [], loops: [] };
  const reconcileJob = jobs.reconcile ? instrument("reconcile", jobs.reconcile.run) : undefined;
  const nextReconcile =
    jobs.reconcile && reconcileJob ? scheduleReconcile(scope, jobs.reconcile, reconcileJob) : undefined;
  for (const service of jobs.leaderServices ?? []) startLeaderService(scope, service);
  if (jobs.poll) repeat(scope, "poll", instrument("poll", jobs.poll.run), jobs.poll.intervalSeconds * 1000);
  if (jobs.whileLeading) {
    repeat(scope, "leader-watch", instrument("leader-watch", jobs.whileLeading.run), jobs.whileLeading.everyMs);
  }
  return {
    runner: scope.runner,
    reconcileJob,
    nextReconcile,
    async end(graceMs) {
      const clean = await scope.runner.drain(graceMs);
      if (clean) await Promise.all(scope.loops);
      for (const stop of scope.stops) await stop().catch(() => undefined);
      return clean;
    },
  };
}

/** The cron schedule, and a run at once when `runOnStart` says so; returns the next scheduled run. */
function scheduleReconcile(
  scope: TermScope,
  reconcile: NonNullable<LeaderJobs["reconcile"]>,
  job: JobFn,
): Date | undefined {
  const { runner, logger } = scope;
  const task = cron.schedule(reconcile.schedule, () => runner.run("reconcile", job), {
    timezone: reconcile.timezone,
    name: "reconcile",
    noOverlap: true,
  });
  scope.stops.push(async () => {
    await task.stop();
    await task.destroy();
  });
  void (async () => {
    const runNow =
      typeof reconcile.runOnStart === "function"
        ? await reconcile.runOnStart().catch((error: unknown) => {
            logger.warn({ err: error }, "could not read the reconcile journal; reconciling now to be safe");
            return true;
          })
        : reconcile.runOnStart;
    if (runNow) await runner.run("reconcile", job);
  })();
  return task.getNextRun() ?? undefined;
}

/** Started without waiting (a slow socket must not hold up the term's jobs); stopped when the term ends. */
function startLeaderService(scope: TermScope, service: LeaderService): void {
  void service
    .start()
    .catch((error: unknown) =>
      scope.logger.error({ err: error, service: service.name }, "a leader service failed to start"),
    );
  scope.stops.push(() => service.stop());
}

/** Runs `job`, then waits `everyMs` after it ended, until the term ends. */
function repeat(scope: TermScope, name: string, job: JobFn, everyMs: number): void {
  const { runner } = scope;
  scope.loops.push(
    (async () => {
      while (!runner.signal.aborted) {
        await runner.run(name, job);
        await sleepUnlessAborted(everyMs, runner.signal);
      }
    })(),
  );
}
