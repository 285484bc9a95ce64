import type { Logger } from "../logger.js";
import { startTimer } from "../timers.js";

/** A unit of scheduled work; it must stop at a safe point when the signal aborts. */
export type JobFn = (signal: AbortSignal) => Promise<void>;

/**
 * Runs named jobs with no overlap (a tick that finds its job still running is skipped and
 * logged) and lets shutdown wait for the running ones within a grace period.
 */
export class JobRunner {
  private readonly running = new Map<string, Promise<void>>();

  /** `controller` may be shared with the adapters (API client, delivery) so that drain stops them too. */
  constructor(
    private readonly logger: Logger,
    private readonly controller = new AbortController(),
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  isRunning(name: string): boolean {
    return this.running.has(name);
  }

  /** Starts the job unless it is running already or shutdown began; resolves when it ends. Never rejects. */
  run(name: string, job: JobFn): Promise<void> {
    const existing = this.running.get(name);
    if (existing) {
      this.logger.warn({ job: name }, "previous run still in progress; this tick is skipped");
      return existing;
    }
    if (this.controller.signal.aborted) return Promise.resolve();
    const started = Date.now();
    const execution = job(this.controller.signal)
      .then(() => this.logger.debug({ job: name, ms: Date.now() - started }, "job finished"))
      .catch((error: unknown) => this.logger.error({ job: name, err: error }, "job failed"))
      .finally(() => this.running.delete(name));
    this.running.set(name, execution);
    return execution;
  }

  /** Aborts the running jobs and waits for them, at most `graceMs`. Returns false when some did not end in time. */
  async drain(graceMs: number): Promise<boolean> {
    this.controller.abort();
    const pending = [...this.running.values()];
    if (pending.length === 0) return true;
    let cancel: (() => void) | undefined;
    const timeout = new Promise<false>((resolve) => {
      cancel = startTimer(graceMs, () => resolve(false));
    });
    const finished = await Promise.race([Promise.all(pending).then(() => true as const), timeout]);
    cancel?.();
    return finished;
  }
}
