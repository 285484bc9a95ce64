import type { ReconcileApprovals } from "../interactive/plan-approvals.js";
import type { Logger } from "../logger.js";
import { approveHeldPlan, reviewHeldPlan } from "../roster/approve-held-plan.js";
import type { ReconcileDeps } from "../roster/reconcile-once.js";
import type { ReconcileReport } from "../roster/report.js";

/** Runs one piece of work at a time, in the order asked: a reconcile never overlaps another. */
export type Exclusive = <T>(work: () => Promise<T>) => Promise<T>;

export function oneAtATime(): Exclusive {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };
}

/**
 * The Slack buttons' port to held plans: Review reads the plan; Approve applies it through the
 * same reconcile as the schedule (the leader's fenced store, the same file or pull), never while a
 * scheduled run is going, and posts the report of the apply to the ops channel.
 */
export function reconcileApprovals(wiring: {
  readonly deps: ReconcileDeps;
  readonly file: string | undefined;
  readonly signal: AbortSignal;
  readonly exclusive: Exclusive;
  readonly post: (report: ReconcileReport) => Promise<void>;
  readonly onReport?: (report: ReconcileReport) => void;
  readonly logger: Logger;
}): ReconcileApprovals {
  return {
    review: (planId) => reviewHeldPlan(wiring.deps.store, planId),
    approve: (approval) =>
      wiring.exclusive(() =>
        approveHeldPlan(wiring.deps, approval, {
          file: wiring.file,
          signal: wiring.signal,
          post: async (report) => {
            wiring.onReport?.(report);
            await wiring.post(report);
          },
        }),
      ),
  };
}
