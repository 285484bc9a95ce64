import type { RetentionClient } from "../api/client.js";
import type { BulkSkippedItem } from "../api/loose-records.js";
import {
  ApiError,
  InvalidRequestError,
  NotFoundError,
  PaymentRequiredError,
  QuotaExceededError,
  ServerError,
} from "../errors.js";
import type { Logger } from "../logger.js";
import type { KeyValueNamespace } from "../store/state-store.js";
import { canonicalProfileUrl } from "./canonical-profile-url.js";
import type { KeptUntracked } from "./kept-untracked.js";
import {
  type DeferredItem,
  type KeptPerson,
  type Named,
  type PlanStep,
  type ReconcilePlan,
  stepPeople,
  type Who,
} from "./plan-types.js";
import { JOURNAL_KEY, type JournalEntry, type JournalGuardLift } from "./reconcile-journal.js";
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

/** A person the service said no to: the reason it gave, and whether this version knows what it means. */
export interface Refusal {
  readonly change: PlanStep["kind"];
  readonly url: string;
  readonly who: Who;
  /** The service's reason (`invalid_url`, `profile_unavailable`, `404`, ...). */
  readonly reason: string;
  /** False: a reason the spec does not name; shown as it came, never dropped. */
  readonly known: boolean;
  readonly message: string;
}

/** A step whose request failed: no answer, or an error that says nothing about the person. */
export interface StepFailure {
  readonly change: PlanStep["kind"];
  readonly url: string;
  readonly who: Who;
  readonly message: string;
  /** The request may have been carried out (its answer was lost): the next run's roster read settles it. */
  readonly unconfirmed: boolean;
}

export interface ApplyResult {
  readonly counts: ApplyCounts;
  readonly deferred: readonly DeferredItem[];
  readonly refusals: readonly Refusal[];
  readonly failures: readonly StepFailure[];
  readonly writeRequests: number;
  readonly interrupted: boolean;
  readonly retryAfterSeconds?: number;
  /** Track steps not sent: the person was stopped in Slack after the plan was made (`heldNow`). */
  readonly keptUntracked?: readonly KeptPerson[];
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
  /**
   * The hold of a person stopped in Slack, read just before their track step: a stop made while
   * the run was planning or applying is kept (the step is skipped), not overridden by this run.
   */
  readonly heldNow?: (url: string) => Promise<KeptUntracked | undefined>;
  /** The mass-archive guard was lifted for this plan: every journal entry of the apply says so. */
  readonly guardLifted?: JournalGuardLift;
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

/**
 * A bulk skip that is not a duplicate or a ceiling: a refusal of the person. Spec 4.3 names a bad
 * URL among the reasons but not its value; a reason that says "url" is read as that, anything else
 * (`profile_unavailable`, ...) is shown as the service gave it, as a reason this version does not know.
 */
function refusalOf(skip: BulkSkippedItem, person: Named, tracked: boolean): Refusal {
  const known = /url/i.test(skip.reason);
  const what = known
    ? "the service does not take this as a public profile URL"
    : `refused for a reason this version does not know (${skip.reason})`;
  return {
    change: "add",
    url: person.url,
    who: person.who,
    reason: skip.reason,
    known,
    message: `${what}: ${skip.message}${tracked ? "" : " (untracked add)"}`,
  };
}

/** The person of a chunk a skipped URL belongs to (the service may echo it in another form). */
function personOf(chunk: readonly Named[], skippedUrl: string | undefined): Named | undefined {
  if (skippedUrl === undefined) return undefined;
  const exact = chunk.find((p) => p.url === skippedUrl);
  if (exact) return exact;
  const canonical = canonicalProfileUrl(skippedUrl);
  return canonical.ok ? chunk.find((p) => p.url === canonical.url) : undefined;
}

/** An error after which nobody knows whether the write was carried out. */
function outcomeUnknown(error: unknown): boolean {
  if (error instanceof ApiError) return error instanceof ServerError;
  return true;
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
  const refusals: Refusal[] = [];
  const failures: StepFailure[] = [];
  const kept: KeptPerson[] = [];
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
      ...(deps.guardLifted ? { guardLifted: deps.guardLifted } : {}),
      ...entry,
    });
  const started = deps.now().toISOString();
  const deferStep = (step: PlanStep, reason: DeferReason) => {
    if (step.kind !== "add" && step.kind !== "revive" && step.kind !== "track") return;
    const tracked = step.kind === "track" || step.tracked;
    for (const p of stepPeople(step)) deferred.push({ url: p.url, who: p.who, change: step.kind, tracked, reason });
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
    const hold = step.kind === "track" ? await deps.heldNow?.(step.url) : undefined;
    if (step.kind === "track" && hold !== undefined) {
      kept.push({ url: step.url, id: step.id, who: step.who, stoppedBy: hold.stoppedBy, stoppedAt: hold.stoppedAt });
      await journal({ completed: false, stepsDone: index + 1 });
      deps.onProgress?.(index + 1, total, step);
      continue;
    }
    try {
      writeRequests += 1;
      if (step.kind === "add") {
        const urls = step.people.map((p) => p.url);
        await journal({ completed: false, stepsDone: index, inflight: urls });
        const result = await client.bulkAddEmployees({ networkUrls: urls, tracked: step.tracked });
        if (step.tracked) counts.addedTracked += result.addedCount;
        else counts.addedUntracked += result.addedCount;
        for (const skip of result.skipped) {
          const person = personOf(step.people, skip.networkUrl) ?? {
            url: skip.networkUrl ?? "(no URL in the answer)",
            who: {},
            reason: { why: "joiner" as const },
          };
          if (skip.kind === "duplicate") counts.alreadyPresent += 1;
          else if (skip.kind === "seat_ceiling") {
            const reason = SKIP_REASONS[skip.reason] ?? "api-seat-allowance";
            deferred.push({ url: person.url, who: person.who, change: "add", tracked: step.tracked, reason });
            if (reason === "row-quota-exceeded" || reason === "charge-failed") stopAll = reason;
            else stopSeats = reason;
          } else refusals.push(refusalOf(skip, person, step.tracked));
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
      } else if (error instanceof NotFoundError || error instanceof InvalidRequestError) {
        const reason = error instanceof NotFoundError ? "404" : (error.code ?? "400");
        const message =
          error instanceof NotFoundError ? "no longer on the roster (404)" : `refused as invalid: ${error.message}`;
        for (const p of stepPeople(step)) {
          refusals.push({ change: step.kind, url: p.url, who: p.who, reason, known: true, message });
        }
      } else {
        const detail = error instanceof Error ? error.message : String(error);
        const unconfirmed = outcomeUnknown(error);
        const message = unconfirmed
          ? `no answer (${detail}): it may have been done; the next run reads the roster again and settles it`
          : detail;
        // Every person of a lost bulk answer is named, not only the first of its 50.
        for (const p of stepPeople(step))
          failures.push({ change: step.kind, url: p.url, who: p.who, message, unconfirmed });
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
    refusals,
    failures,
    writeRequests,
    interrupted,
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    ...(kept.length > 0 ? { keptUntracked: kept } : {}),
  };
}
