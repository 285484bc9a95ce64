import { randomUUID } from "node:crypto";
import type { RetentionClient } from "../api/client.js";
import { paginate } from "../api/paginate.js";
import type { Billing } from "../api/schemas.js";
import type { Config } from "../config/schema.js";
import { ConfigError, EXIT_PARTIAL, PaymentRequiredError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { StateStore } from "../store/state-store.js";
import { type ApplyResult, applyPlan } from "./apply-plan.js";
import { canonicalProfileUrl } from "./canonical-profile-url.js";
import { advanceMemory, diffRoster, type ServicePerson, withPlannedArchiveTimes } from "./diff-roster.js";
import { planReconcile } from "./plan-reconcile.js";
import type { PlanStep } from "./plan-types.js";
import { type RosterFile, readRoster, rosterReadOptions } from "./read-roster.js";
import { interruptedRun, JOURNAL_NAMESPACE } from "./reconcile-journal.js";
import {
  countBy,
  limitList,
  plannedCounts,
  plannedRemovals,
  type ReconcileReport,
  reportExitCode,
  reportedProblems,
} from "./report.js";
import { seatBudget } from "./seat-budget.js";
import { loadRosterMemory, saveRosterMemory } from "./stored-roster-memory.js";

export interface ReconcileDeps {
  readonly config: Config;
  readonly client: Pick<
    RetentionClient,
    "listEmployees" | "getBilling" | "bulkAddEmployees" | "addEmployee" | "updateEmployee" | "deleteEmployee"
  >;
  readonly store: StateStore;
  readonly logger: Logger;
}

export interface ReconcileOptions {
  readonly dryRun?: boolean;
  readonly allowMassArchive?: boolean;
  /** Overrides `roster.file`. */
  readonly file?: string;
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
  readonly onProgress?: (done: number, total: number, step: PlanStep) => void;
}

const PAGE_SIZE = 100;

async function readServiceRoster(
  client: ReconcileDeps["client"],
): Promise<{ people: ServicePerson[]; requests: number }> {
  const people: ServicePerson[] = [];
  let requests = 0;
  // paginate ends a walk that never ends (hasMore forever, repeated or empty pages, rows past the
  // announced total) with an ApiResponseError: a half-read roster must stop the run, not shape it.
  const rows = paginate(
    (page) => {
      requests += 1;
      return client.listEmployees({ page, pageSize: PAGE_SIZE });
    },
    { method: "GET", path: "/employees", identity: (e) => e.id },
  );
  for await (const e of rows) {
    const canonical = canonicalProfileUrl(e.networkUrl);
    if (!canonical.ok) continue;
    people.push({ id: e.id, profileUrl: canonical.url, tracked: e.tracked, archived: e.status === "archived" });
  }
  return { people, requests };
}

/** One reconciliation, HRIS file to service roster: the daemon schedules it, the command runs it once. */
export async function reconcileOnce(deps: ReconcileDeps, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  const { config, client, store, logger } = deps;
  const rules = config.roster;
  const now = options.now ?? (() => new Date());
  const started = now();
  const file = options.file ?? rules.file;
  if (!file) {
    throw new ConfigError("roster", [
      { path: "roster.file", message: "required: set HRIS_ROSTER_FILE (or roster.file), or pass --file" },
    ]);
  }
  const roster = await readRoster(rosterReadOptions(rules, file, started));
  const journalNs = store.namespace(JOURNAL_NAMESPACE);
  const previous = await interruptedRun(journalNs);
  const resumedRun = previous?.runId;
  if (resumedRun) {
    logger.warn(
      { component: "reconcile", runId: resumedRun, inflight: previous?.inflight?.length ?? 0 },
      "finishing an interrupted reconcile run",
    );
  }

  let current: Awaited<ReturnType<typeof readServiceRoster>>;
  let billing: Billing;
  try {
    current = await readServiceRoster(client);
    billing = await client.getBilling();
  } catch (error) {
    // Spec 5.8: with no subscription or trial the whole API answers 402; report it, change nothing.
    if (!(error instanceof PaymentRequiredError)) throw error;
    return blockedReport(file, started, now(), roster, error);
  }
  let requests = current.requests + 1;
  if (resumedRun && previous?.inflight) {
    // The chunk in flight at the crash: re-reading the roster tells what the service kept of it.
    const there = new Set(current.people.map((p) => p.profileUrl));
    const kept = previous.inflight.filter((u) => there.has(u)).length;
    logger.info(
      { component: "reconcile", runId: resumedRun, kept, lost: previous.inflight.length - kept },
      "interrupted chunk reconciled",
    );
  }
  const memory = await loadRosterMemory(store, logger);
  const desired = roster.people;
  const advanced = advanceMemory(
    memory,
    { fingerprint: roster.fingerprint, desired, known: roster.excluded },
    current.people,
    started,
  );
  const diff = diffRoster({
    desired,
    brokenRows: roster.problems,
    current: current.people,
    memory: advanced,
    rules,
    now: started,
  });
  const budget = seatBudget({ billing, maxSeats: rules.maxSeats, maxMonthlyUsd: rules.maxMonthlyUsd, now: started });
  const plan = planReconcile({
    diff,
    budget,
    rules: { ...rules, allowMassArchive: options.allowMassArchive === true || rules.approveMassArchive },
  });

  let applied: ApplyResult | undefined;
  if (!options.dryRun) {
    // One write of the memory, before the service changes (write-ahead), holding all this run
    // learned: this file counted, everyone it may add known as `seen` with their identities, and
    // the plan's archive times. Were it written after the apply, a crash in between (the journal
    // lets the next run finish the work) would lose it, and if the export read after the restart
    // no longer lists someone this run added, they would count as from other sources, never to be
    // archived (and this file would not count as a missing one). See the integration test "a run
    // cut short".
    await saveRosterMemory(store, withPlannedArchiveTimes(advanced, plan.steps, now()));
    applied = await applyPlan(plan, {
      client,
      journal: journalNs,
      logger,
      runId: randomUUID(),
      fingerprint: roster.fingerprint,
      now,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    requests += applied.writeRequests;
  }

  const deferred = [...plan.deferred, ...(applied?.deferred ?? [])];
  const failures = applied?.failures ?? [];
  const serviceRowErrors = applied?.rowErrors ?? [];
  const interrupted = applied?.interrupted ?? false;
  const report: ReconcileReport = {
    dryRun: options.dryRun === true,
    file,
    startedAt: started.toISOString(),
    durationMs: now().getTime() - started.getTime(),
    rows: {
      read: roster.rowCount,
      inScope: roster.people.length,
      byReason: countBy(roster.problems, (p) => p.reason),
      problems: reportedProblems(roster.problems),
    },
    notices: roster.notices,
    billing: {
      state: budget.state,
      planStatus: budget.planStatus,
      perSeatUsd: budget.perSeatUsd,
      billableSeats: billing.seats.billable,
      unbilledSeats: billing.seatSettlement.unbilledSeats,
    },
    planned: plannedCounts(plan),
    removals: plannedRemovals(plan),
    seatDelta: plan.seatDelta,
    monthlyCostDeltaUsd: plan.monthlyCostDeltaUsd,
    guardedArchives: plan.guardedArchives,
    heldForBrokenRows: plan.heldForBrokenRows,
    waitingToArchive: plan.waitingToArchive,
    unknownLeftAlone: plan.unknownLeftAlone,
    ...(applied ? { applied: applied.counts } : {}),
    deferred: { total: deferred.length, byReason: countBy(deferred, (d) => d.reason), items: limitList(deferred) },
    findings: plan.findings,
    failures,
    serviceRowErrors,
    requests,
    writeRequests: applied?.writeRequests ?? 0,
    interrupted,
    ...(resumedRun ? { resumedRun } : {}),
    ...(applied?.retryAfterSeconds !== undefined ? { retryAfterSeconds: applied.retryAfterSeconds } : {}),
    exitCode: reportExitCode({
      deferred: deferred.length,
      held: plan.heldForBrokenRows,
      findings: plan.findings,
      problems: roster.problems,
      failures: failures.length,
      serviceRowErrors: serviceRowErrors.length,
      interrupted,
    }),
  };
  logger.info(
    {
      component: "reconcile",
      report: {
        ...report,
        rows: { ...report.rows, problems: undefined },
        deferred: { ...report.deferred, items: undefined },
      },
    },
    "reconcile finished",
  );
  return report;
}

function blockedReport(
  file: string,
  started: Date,
  finished: Date,
  roster: RosterFile,
  error: PaymentRequiredError,
): ReconcileReport {
  const inactive = error.code === "SUBSCRIPTION_INACTIVE";
  return {
    dryRun: false,
    file,
    startedAt: started.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
    rows: {
      read: roster.rowCount,
      inScope: roster.people.length,
      byReason: countBy(roster.problems, (p) => p.reason),
      problems: reportedProblems(roster.problems),
    },
    notices: roster.notices,
    billing: { state: inactive ? "inactive" : "charge-failed", planStatus: undefined, perSeatUsd: 5 },
    planned: { add: 0, revive: 0, track: 0, untrack: 0, archive: 0, erase: 0 },
    seatDelta: 0,
    monthlyCostDeltaUsd: 0,
    guardedArchives: 0,
    heldForBrokenRows: 0,
    waitingToArchive: 0,
    unknownLeftAlone: 0,
    deferred: { total: 0, byReason: {}, items: [] },
    findings: [
      {
        kind: "billing-blocked",
        severity: "error",
        message: `the service refused access (${error.code ?? "402"}): no active subscription or trial; nothing was changed`,
      },
    ],
    failures: [],
    serviceRowErrors: [],
    requests: 1,
    writeRequests: 0,
    interrupted: false,
    exitCode: EXIT_PARTIAL,
  };
}
