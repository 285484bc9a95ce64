import { afterEach, describe, expect, it, vi } from "vitest";
import { JobRunner } from "../../src/daemon/job-runner.js";
import { captureLogs } from "../helpers/capture-logs.js";
import { deferred } from "../helpers/deferred.js";

/** A JobRunner whose log lines the test can read. */
function runner() {
  const logs = captureLogs({ level: "debug" });
  return { runner: new JobRunner(logs.logger), logs };
}

/** A job that runs until the test calls `end.resolve()`; `signals` has the signal of each start. */
function heldJob() {
  const end = deferred();
  const signals: AbortSignal[] = [];
  return {
    end,
    signals,
    job: (signal: AbortSignal) => {
      signals.push(signal);
      return end.promise;
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("JobRunner.run", () => {
  it("skips a tick of a job that is still running, and says so", async () => {
    const { runner: jobs, logs } = runner();
    const held = heldJob();
    const first = jobs.run("reconcile", held.job);
    const second = jobs.run("reconcile", held.job);
    expect(held.signals).toHaveLength(1);
    expect(second).toBe(first);
    expect(logs.records()).toContainEqual(
      expect.objectContaining({ job: "reconcile", msg: "previous run still in progress; this tick is skipped" }),
    );
    held.end.resolve();
    await first;
  });

  it("runs different jobs side by side", async () => {
    const { runner: jobs } = runner();
    const reconcile = heldJob();
    const poll = heldJob();
    const both = Promise.all([jobs.run("reconcile", reconcile.job), jobs.run("poll", poll.job)]);
    expect([reconcile.signals.length, poll.signals.length]).toEqual([1, 1]);
    expect([jobs.isRunning("reconcile"), jobs.isRunning("poll")]).toEqual([true, true]);
    reconcile.end.resolve();
    poll.end.resolve();
    await both;
  });

  it("runs a job again once its previous run has ended", async () => {
    const { runner: jobs } = runner();
    const held = heldJob();
    const first = jobs.run("reconcile", held.job);
    held.end.resolve();
    await first;
    expect(jobs.isRunning("reconcile")).toBe(false);
    await jobs.run("reconcile", held.job);
    expect(held.signals).toHaveLength(2);
  });

  it("logs a failed job with its name and error, never rejects, and lets it run again", async () => {
    const { runner: jobs, logs } = runner();
    await expect(
      jobs.run("poll", async () => {
        throw new Error("service down");
      }),
    ).resolves.toBeUndefined();
    const failed = logs.records().find((r) => r.msg === "job failed");
    expect(failed).toMatchObject({ job: "poll", err: { message: "service down" } });
    expect(jobs.isRunning("poll")).toBe(false);
    let ranAgain = false;
    await jobs.run("poll", async () => {
      ranAgain = true;
    });
    expect(ranAgain).toBe(true);
  });

  it("starts nothing once shutdown has begun", async () => {
    const { runner: jobs } = runner();
    await jobs.drain(1_000);
    const job = vi.fn(async () => {});
    await jobs.run("reconcile", job);
    expect(job).not.toHaveBeenCalled();
    expect(jobs.isRunning("reconcile")).toBe(false);
  });
});

/** On fake timers: a held job running, and a drain with a 5 s grace under way whose answer the test can read. */
function drainingHeldJob() {
  vi.useFakeTimers();
  const { runner: jobs } = runner();
  const held = heldJob();
  void jobs.run("reconcile", held.job);
  const drain: { result?: boolean; done: Promise<void> } = { done: Promise.resolve() };
  drain.done = jobs.drain(5_000).then((clean) => {
    drain.result = clean;
  });
  return { jobs, held, drain };
}

describe("JobRunner.drain", () => {
  it("aborts the signal the running jobs were given and returns true once they end", async () => {
    const { runner: jobs } = runner();
    const job = vi.fn(
      (signal: AbortSignal) =>
        new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true })),
    );
    void jobs.run("reconcile", job);
    expect(job.mock.calls[0]?.[0].aborted).toBe(false);
    expect(await jobs.drain(60_000)).toBe(true);
    expect(job.mock.calls[0]?.[0].aborted).toBe(true);
    expect(jobs.signal.aborted).toBe(true);
    expect(jobs.isRunning("reconcile")).toBe(false);
  });

  it("waits for a running job until it ends, within the grace period", async () => {
    const { jobs, held, drain } = drainingHeldJob();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(drain.result).toBeUndefined();
    held.end.resolve();
    await drain.done;
    expect(drain.result).toBe(true);
    expect(jobs.isRunning("reconcile")).toBe(false);
  });

  it("returns false when a job outlives the grace period, without waiting for it", async () => {
    const { jobs, held, drain } = drainingHeldJob();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(drain.result).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await drain.done;
    expect(drain.result).toBe(false);
    expect(jobs.isRunning("reconcile")).toBe(true);
    held.end.resolve();
  });

  it("returns true at once with nothing running, and leaves no timer behind after a clean drain", async () => {
    vi.useFakeTimers();
    const { runner: jobs } = runner();
    expect(await jobs.drain(5_000)).toBe(true);

    const { runner: busy } = runner();
    const held = heldJob();
    void busy.run("poll", held.job);
    const drained = busy.drain(5_000);
    held.end.resolve();
    expect(await drained).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("counts a job that fails during shutdown as ended", async () => {
    const { runner: jobs } = runner();
    void jobs.run("reconcile", async (signal) => {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      throw new Error("interrupted mid-write");
    });
    expect(await jobs.drain(60_000)).toBe(true);
  });
});
