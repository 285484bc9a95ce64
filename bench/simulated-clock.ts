/**
 * A settable wall clock for the growth scenario's child process: `Date.now()` and `new Date()`
 * (no arguments) answer the simulated time; everything else about Date is unchanged, and timers
 * and `performance.now()` keep real time. Installed before the daemon's modules are loaded.
 *
 * Why global: the hand-over takes `now` and the sweep `nowMs`, but several writes read the clock
 * themselves with no seam to inject one (see BENCHMARKS.md, growth scenario): the outbox's sent
 * marks (`Outbox.markSent` via `DeliveryService`, which passes no clock), the ledger's expiry check
 * (`createAlertPipeline` builds `DeliveryLedger` without its `now`), thread roots (the namespace TTL) and
 * the channel pacer.
 */
export interface SimulatedClock {
  set(ms: number): void;
  now(): number;
}

export function installSimulatedClock(startMs: number): SimulatedClock {
  const RealDate = Date;
  let current = startMs;
  class SimulatedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(current);
      else super(...(args as [string | number | Date]));
    }

    static override now(): number {
      return current;
    }
  }
  globalThis.Date = SimulatedDate as DateConstructor;
  return {
    set(ms: number) {
      current = ms;
    },
    now: () => current,
  };
}
