import { randomUUID } from "node:crypto";
import type { RetentionClient } from "../api/client.js";
import { paginate } from "../api/paginate.js";
import type { Billing } from "../api/schemas.js";
import type { Config } from "../config/schema.js";
import { ConfigError, PaymentRequiredError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { StateStore } from "../store/state-store.js";
import { type ApplyResult, applyPlan } from "./apply-plan.js";
import { canonicalProfileUrl } from "./canonical-profile-url.js";
import { advanceMemory, diffRoster, type ServicePerson, withPlannedArchiveTimes } from "./diff-roster.js";
import { planReconcile, refusedPlan } from "./plan-reconcile.js";
import type { PlanStep } from "./plan-types.js";
import { readRoster, rosterReadOptions } from "./read-roster.js";
import { interruptedRun, JOURNAL_NAMESPACE } from "./reconcile-journal.js";
import { buildReport, type ReconcileReport } from "./report.js";
import { refusedBudget, seatBudget } from "./seat-budget.js";
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

/**
 * The service's side of the run: its whole roster (all pages, archived included) and /billing.
 * `reads.count` counts the calls as they are made, so a call the service refuses is counted too.
 */
async function readService(
  client: ReconcileDeps["client"],
  reads: { count: number },
): Promise<{ people: ServicePerson[]; billing: Billing }> {
  const people: ServicePerson[] = [];
  // paginate ends a walk that never ends (hasMore forever, repeated or empty pages, rows past the
  // announced total) with an ApiResponseError: a half-read roster must stop the run, not shape it.
  const rows = paginate(
    (page) => {
      reads.count += 1;
      return client.listEmployees({ page, pageSize: PAGE_SIZE });
    },
    { method: "GET", path: "/employees", identity: (e) => e.id },
  );
  for await (const e of rows) {
    const canonical = canonicalProfileUrl(e.networkUrl);
    if (!canonical.ok) continue;
    people.push({ id: e.id, profileUrl: canonical.url, tracked: e.tracked, archived: e.status === "archived" });
  }
  reads.count += 1;
  const billing = await client.getBilling();
  return { people, billing };
}

/** One reconciliation, HRIS file to service roster: the daemon schedules it, the command runs it once. */
export async function reconcileOnce(deps: ReconcileDeps, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  const { config, client, store, logger } = deps;
  const rules = config.roster;
  const now = options.now ?? (() => new Date());
  const started = now();
  const dryRun = options.dryRun === true;
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

  const reads = { count: 0 };
  let service: Awaited<ReturnType<typeof readService>>;
  try {
    service = await readService(client, reads);
  } catch (error) {
    // Spec 5.8: with no subscription or trial the whole API answers 402; report it, change nothing.
    if (!(error instanceof PaymentRequiredError)) throw error;
    return buildReport({
      dryRun,
      file,
      startedAt: started,
      finishedAt: now(),
      roster,
      budget: refusedBudget(error.code),
      plan: refusedPlan(error.code),
      readRequests: reads.count,
    });
  }
  if (resumedRun && previous?.inflight) {
    // The chunk in flight at the crash: re-reading the roster tells what the service kept of it.
    const there = new Set(service.people.map((p) => p.profileUrl));
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
    service.people,
    started,
  );
  const diff = diffRoster({
    desired,
    brokenRows: roster.problems,
    current: service.people,
    memory: advanced,
    rules,
    now: started,
  });
  const budget = seatBudget({
    billing: service.billing,
    maxSeats: rules.maxSeats,
    maxMonthlyUsd: rules.maxMonthlyUsd,
    now: started,
  });
  const plan = planReconcile({
    diff,
    budget,
    rules: { ...rules, allowMassArchive: options.allowMassArchive === true || rules.approveMassArchive },
  });

  let applied: ApplyResult | undefined;
  if (!dryRun) {
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
  }

  const report = buildReport({
    dryRun,
    file,
    startedAt: started,
    finishedAt: now(),
    roster,
    budget,
    billing: service.billing,
    plan,
    applied,
    readRequests: reads.count,
    resumedRun,
  });
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
