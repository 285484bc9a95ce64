import type { RetentionClient } from "../api/client.js";
import { NotFoundError, PaymentRequiredError, QuotaExceededError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { KeyValueNamespace } from "../store/state-store.js";
import type { DeferredItem, PlanStep, ReconcilePlan } from "./plan-types.js";
import { JOURNAL_KEY, type JournalEntry } from "./reconcile-journal.js";
import type { DeferReason } from "./seat-budget.js";

/** The write calls apply needs: the RetentionClient, or anything shaped like it in tests. */
export type RosterWriter = Pick<
  RetentionClient,
  "bulkAddEmployees" | "addEmployee" | "updateEmployee" | "deleteEmployee"
>;

export interface ApplyCounts {
  addedTracked: number;
  addedUntracked: number;
  /** Already on the roster when added (e.g. added by an interrupted run): not added twice. */
  alreadyPresent: number;
  revived: number;
  tracked: number;
  untracked: number;
  archived: number;
  erased: number;
}

export interface ApplyResult {
  readonly counts: ApplyCounts;
  readonly deferred: readonly DeferredItem[];
  readonly rowErrors: ReadonlyArray<{ readonly url: string; readonly message: string }>;
  readonly failures: ReadonlyArray<{ readonly step: PlanStep["kind"]; readonly url: string; readonly message: string }>;
  readonly writeRequests: number;
  readonly interrupted: boolean;
  readonly retryAfterSeconds?: number;
}

export interface ApplyDeps {
  readonly client: RosterWriter;
  /** The reconcile journal (namespace JOURNAL_NAMESPACE). */
  readonly journal?: KeyValueNamespace;
  readonly logger: Logger;
  readonly signal?: AbortSignal;
  readonly runId: string;
  readonly fingerprint: string;
  readonly now: () => Date;
  readonly onProgress?: (done: number, total: number, step: PlanStep) => void;
}

const SKIP_REASONS: Record<string, DeferReason> = {
  trial_limit: "trial-seat-limit",
  seat_limit: "api-seat-allowance",
  row_quota: "row-quota-exceeded",
  charge_failed: "charge-failed",
};

function reasonOf(error: QuotaExceededError | PaymentRequiredError): DeferReason {
  if (error.code === "ROW_QUOTA_EXCEEDED") return "row-quota-exceeded";
  if (error.code === "SEAT_QUOTA_EXCEEDED") return "seat-quota-exceeded";
  if (error.code === "SEAT_CHARGE_FAILED") return "charge-failed";
  if (error.code === "TRIAL_LIMIT_REACHED") return "trial-seat-limit";
  if (error.code === "SUBSCRIPTION_INACTIVE") return "subscription-inactive";
  return "payment-required";
}

function seatTaking(step: PlanStep): boolean {
  return (step.kind === "add" && step.tracked) || (step.kind === "revive" && step.tracked) || step.kind === "track";
}

/**
 * Executes a plan one request at a time (bulk adds by 50), stopping adds at the first ceiling and
 * deferring the rest, journaling each chunk so an interrupted run can be finished without duplicates.
 */
export async function applyPlan(plan: ReconcilePlan, deps: ApplyDeps): Promise<ApplyResult> {
  const { client, logger } = deps;
  const counts: ApplyCounts = {
    addedTracked: 0,
    addedUntracked: 0,
    alreadyPresent: 0,
    revived: 0,
    tracked: 0,
    untracked: 0,
    archived: 0,
    erased: 0,
  };
  const deferred: DeferredItem[] = [];
  const rowErrors: Array<{ url: string; message: string }> = [];
  const failures: Array<{ step: PlanStep["kind"]; url: string; message: string }> = [];
  let writeRequests = 0;
  let interrupted = false;
  let retryAfterSeconds: number | undefined;
  // Once a ceiling answers, the same kind of change is not tried again this run.
  let stopSeats: DeferReason | undefined;
  let stopAll: DeferReason | undefined;
  const total = plan.steps.length;
  const journal = async (entry: Omit<JournalEntry, "runId" | "fingerprint" | "startedAt" | "stepsTotal">) =>
    deps.journal?.set<JournalEntry>(JOURNAL_KEY, {
      runId: deps.runId,
      fingerprint: deps.fingerprint,
      startedAt: started,
      stepsTotal: total,
      ...entry,
    });
  const started = deps.now().toISOString();
  const deferStep = (step: PlanStep, reason: DeferReason) => {
    if (step.kind === "add")
      for (const url of step.urls) deferred.push({ url, change: "add", tracked: step.tracked, reason });
    else if (step.kind === "revive" || step.kind === "track") {
      deferred.push({ url: step.url, change: step.kind, tracked: step.kind === "track" || step.tracked, reason });
    }
  };
  await journal({ completed: false, stepsDone: 0 });

  for (const [index, step] of plan.steps.entries()) {
    if (deps.signal?.aborted) {
      interrupted = true;
      for (const rest of plan.steps.slice(index)) deferStep(rest, "interrupted");
      break;
    }
    const blocked = stopAll ?? (seatTaking(step) ? stopSeats : undefined);
    if (blocked && (step.kind === "add" || step.kind === "revive" || step.kind === "track")) {
      deferStep(step, blocked);
      continue;
    }
    const url = step.kind === "add" ? (step.urls[0] ?? "") : step.url;
    try {
      writeRequests += 1;
      if (step.kind === "add") {
        await journal({ completed: false, stepsDone: index, inflight: step.urls });
        const result = await client.bulkAddEmployees({ networkUrls: [...step.urls], tracked: step.tracked });
        if (step.tracked) counts.addedTracked += result.addedCount;
        else counts.addedUntracked += result.addedCount;
        for (const skip of result.skipped) {
          const skippedUrl = skip.networkUrl ?? "";
          if (skip.kind === "duplicate") counts.alreadyPresent += 1;
          else if (skip.kind === "invalid_url") rowErrors.push({ url: skippedUrl, message: skip.message });
          else if (skip.kind === "seat_ceiling") {
            const reason = SKIP_REASONS[skip.reason] ?? "api-seat-allowance";
            deferred.push({ url: skippedUrl, change: "add", tracked: step.tracked, reason });
            if (reason === "row-quota-exceeded" || reason === "charge-failed") stopAll = reason;
            else stopSeats = reason;
          } else failures.push({ step: "add", url: skippedUrl, message: `${skip.reason}: ${skip.message}` });
        }
        logger.info(
          {
            component: "reconcile",
            chunk: index + 1,
            of: total,
            added: result.addedCount,
            skipped: result.skipped.length,
          },
          "bulk add chunk done",
        );
      } else if (step.kind === "revive") {
        const outcome = await client.addEmployee({ networkUrl: step.url, tracked: step.tracked });
        if (outcome.outcome === "created") counts.revived += 1;
        else counts.alreadyPresent += 1;
      } else if (step.kind === "track" || step.kind === "untrack") {
        await client.updateEmployee(step.id, { tracked: step.kind === "track" });
        counts[step.kind === "track" ? "tracked" : "untracked"] += 1;
      } else if (step.kind === "archive") {
        await client.updateEmployee(step.id, { status: "archived" });
        counts.archived += 1;
      } else {
        await client.deleteEmployee(step.id, { permanent: true });
        counts.erased += 1;
      }
    } catch (error) {
      if (error instanceof QuotaExceededError || error instanceof PaymentRequiredError) {
        const reason = reasonOf(error);
        if (error instanceof QuotaExceededError) retryAfterSeconds = error.retryAfterSeconds;
        if (reason === "seat-quota-exceeded" || reason === "trial-seat-limit") stopSeats = reason;
        else stopAll = reason;
        deferStep(step, reason);
        logger.warn({ component: "reconcile", code: error.code, retryAfterSeconds }, "adds stopped by the service");
      } else if (error instanceof NotFoundError) {
        failures.push({ step: step.kind, url, message: "no longer on the roster" });
      } else {
        failures.push({ step: step.kind, url, message: error instanceof Error ? error.message : String(error) });
        logger.error({ component: "reconcile", step: step.kind, err: error }, "reconcile step failed");
      }
    }
    await journal({ completed: false, stepsDone: index + 1 });
    deps.onProgress?.(index + 1, total, step);
  }
  if (!interrupted) await journal({ completed: true, stepsDone: total });
  return {
    counts,
    deferred,
    rowErrors,
    failures,
    writeRequests,
    interrupted,
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  };
}
