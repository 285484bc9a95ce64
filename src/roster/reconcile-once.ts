import { randomUUID } from "node:crypto";
import type { RetentionClient } from "../api/client.js";
import type { Config } from "../config/schema.js";
import {
  ConfigError,
  IGNORED_APPROVAL,
  PaymentRequiredError,
  PlanNeedsApprovalError,
  READ_ONLY_FIX,
  ReadOnlyKeyError,
  StalePlanError,
} from "../errors.js";
import type { Logger } from "../logger.js";
import type { StateStore } from "../store/state-store.js";
import { type ApplyResult, applyPlan } from "./apply-plan.js";
import { approvablePlan, approvedBudget } from "./approvable-plan.js";
import { advanceMemory, diffRoster, withPlannedArchiveTimes } from "./diff-roster.js";
import { holdPlan } from "./held-plans.js";
import { keptUntrackedNow, loadKeptUntracked, settleKeptUntracked } from "./kept-untracked.js";
import { canWrite } from "./key-scopes.js";
import { planReconcile, refusedPlan } from "./plan-reconcile.js";
import type { Finding, GuardApproval, PlanStep, SlackApproval } from "./plan-types.js";
import { day } from "./plan-words.js";
import { readRoster, rosterReadOptions } from "./read-roster.js";
import { interruptedRun, JOURNAL_NAMESPACE } from "./reconcile-journal.js";
import { APPROVAL_MEANS, buildReport, guardLiftedMessage, type ReconcileReport } from "./report.js";
import { quietRepeat } from "./report-noise.js";
import {
  billingSummary,
  type PlanInputs,
  planDifferences,
  type SavedPlan,
  savedPlan,
  serviceDigest,
  settingsDigest,
} from "./saved-plan.js";
import { refusedBudget, seatBudget } from "./seat-budget.js";
import { exportInfo, readService } from "./service-read.js";
import { holdsEndedByArchive, settleHolds } from "./settle-holds.js";
import type { PullExport } from "./sources/observed-pull.js";
import { loadRosterMemory, saveRosterMemory } from "./stored-roster-memory.js";

export interface ReconcileDeps {
  readonly config: Config;
  readonly client: Pick<
    RetentionClient,
    "me" | "listEmployees" | "getBilling" | "bulkAddEmployees" | "addEmployee" | "updateEmployee" | "deleteEmployee"
  >;
  readonly store: StateStore;
  readonly logger: Logger;
  /** Pulls the export from the HRIS (`roster.source` other than `file`): once per run, before anything is read. */
  readonly pullExport?: PullExport;
}

export interface ReconcileOptions {
  readonly dryRun?: boolean;
  /**
   * `--allow-mass-archive`: the operator approves archives over the mass-archive limit for this run
   * (with `savedPlan` too: a plan file never carries an approval). `roster.approveMassArchive` is the
   * standing approval.
   */
  readonly allowMassArchive?: boolean;
  /** Overrides `roster.file`. */
  readonly file?: string;
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
  readonly onProgress?: (done: number, total: number, step: PlanStep) => void;
  /** `--out`: receives the plan with what it was made from (a dry run only). */
  readonly onPlan?: (plan: SavedPlan) => Promise<void> | void;
  /** `--plan`: apply exactly these steps, or refuse with the difference if the plan made now differs. */
  readonly savedPlan?: { readonly plan: SavedPlan; readonly path: string };
  /**
   * The daemon's runs: a run that needs a person (the guard held archives, an operator's cap
   * deferred adds) keeps the plan that person may approve in Slack (`roster.heldPlans`).
   */
  readonly holdForApproval?: boolean;
  /**
   * With `savedPlan` (a held plan): the approval given in Slack. It lifts the mass-archive guard
   * and the operator's caps for this plan's steps only, never the service's limits.
   */
  readonly approvedInSlack?: SlackApproval;
}

/** One reconciliation, HRIS file to service roster: the daemon schedules it, the command runs it once. */
export async function reconcileOnce(deps: ReconcileDeps, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  const { config, client, store, logger } = deps;
  const rules = config.roster;
  const now = options.now ?? (() => new Date());
  const started = now();
  const dryRun = options.dryRun === true;
  const saved = options.savedPlan;
  // A pull that fails (a 5xx, a cut page, a refused credential) throws here: nothing is read,
  // planned or archived, and the next schedule tries again.
  const pulled = options.file === undefined && deps.pullExport ? await deps.pullExport(options.signal) : undefined;
  const file = options.file ?? pulled?.file ?? saved?.plan.file ?? rules.file;
  if (!file) {
    throw new ConfigError("roster", [
      { path: "roster.file", message: "required: set HRIS_ROSTER_FILE (or roster.file), or pass --file" },
    ]);
  }
  // Approval is the operator's act for this run, never read from a saved plan.
  const inSlack = saved ? options.approvedInSlack : undefined;
  const approval: GuardApproval | undefined = inSlack
    ? "slack"
    : options.allowMassArchive === true
      ? "flag"
      : rules.approveMassArchive
        ? "config"
        : undefined;
  const allowMassArchive = approval !== undefined;
  // People stopped by hand in Slack: read once per run (before the file, whose status cells are
  // kept for them only), settled against this export and roster.
  const holds = await loadKeptUntracked(store);
  const roster = await readRoster({
    ...rosterReadOptions(rules, file, started),
    ...(pulled && pulled.format !== "auto" ? { format: pulled.format } : {}),
    keepStatusOf: new Set(holds.keys()),
  });
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
  const findings: Finding[] = [];
  let service: Awaited<ReturnType<typeof readService>>;
  try {
    // Scopes first: a read-only key is told before anything is planned, not by a 403 mid-run.
    reads.count += 1;
    const me = await client.me();
    if (!canWrite(me)) {
      if (!dryRun) throw new ReadOnlyKeyError(me.scopes);
      findings.push({
        kind: "read-only-key",
        severity: "warning",
        message: `the API key is read-only: this plan cannot be applied with it; ${READ_ONLY_FIX}`,
      });
    }
    service = await readService(client, reads, (url) => roster.byUrl.has(url));
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
  const exported = exportInfo(roster, memory, resumedRun !== undefined, started, rules.staleAfter);
  if (exported.stale) {
    const message =
      `the export has not changed for ${exported.ageDays} days (written ${day(exported.modifiedAt)}, ` +
      `first read ${day(exported.firstReadAt)}; roster.staleAfter is ${Math.round(rules.staleAfter / 86_400)} days): ` +
      "check that the HRIS export job still runs";
    findings.push({ kind: "stale-export", severity: "warning", message });
    logger.warn({ component: "reconcile", file, ageDays: exported.ageDays }, message);
  }
  const advanced = advanceMemory(
    memory,
    { fingerprint: roster.fingerprint, desired: roster, known: roster.exclusions },
    service.people,
    started,
  );
  const fullDiff = diffRoster({
    desired: roster,
    exclusions: roster.exclusions,
    brokenRows: roster.problems,
    current: service.people,
    memory: advanced,
    rules,
    now: started,
  });
  const budget = inSlack
    ? approvedBudget(service.billing, started)
    : seatBudget({
        billing: service.billing,
        maxSeats: rules.maxSeats,
        maxMonthlyUsd: rules.maxMonthlyUsd,
        now: started,
      });
  // Before the plan: a held person's track is taken out of the diff, so it takes no seat either.
  const settled = settleHolds({
    holds,
    desired: roster,
    current: service.people,
    diff: fullDiff,
    identities: advanced.identities,
    startedAt: started,
  });
  const planned = planReconcile({ diff: settled.diff, budget, rules: { ...rules, allowMassArchive } });
  const plan = settled.kept.length > 0 ? { ...planned, keptUntracked: settled.kept } : planned;

  // A run a person must approve: the plan they may approve in Slack, held after the apply below.
  const approvable =
    options.holdForApproval === true && !dryRun && !saved
      ? approvablePlan({ diff: settled.diff, billing: service.billing, rules, now: started, plan })
      : undefined;
  const inputsWith = (b: typeof budget): PlanInputs => ({
    file: pulled?.origin ?? file,
    // A pulled export is known by its content: every pull writes a new file of the same records.
    fingerprint: pulled ? (roster.fingerprint.split(":")[0] ?? roster.fingerprint) : roster.fingerprint,
    ...(pulled ? { source: { type: deps.config.roster.source.type, origin: pulled.origin } } : {}),
    modifiedAt: roster.modifiedAt,
    settings: settingsDigest(rules),
    service: serviceDigest(service.people),
    billing: billingSummary(b),
  });
  const notices: string[] = [];
  if (inSlack) notices.push(slackApprovalNotice(inSlack));
  if (saved || options.onPlan) {
    const inputs = inputsWith(budget);
    if (saved) {
      const differences = planDifferences(saved.plan, { inputs, plan });
      const ignoredApproval = saved.plan.ignoredApproval === true;
      if (plan.guard && differences.heldByGuard > 0 && differences.heldByGuard === differences.steps.length) {
        // The plan is right but unapproved: the guard holds its archives, as it would in a plain run.
        throw new PlanNeedsApprovalError(
          saved.path,
          { archives: plan.guard.people.length, managed: plan.guard.managed, percent: plan.guard.percent },
          rules,
          ignoredApproval,
        );
      }
      // A pulled export is pulled again for --plan: a different content is another export, refused
      // even where no step differs (a file's new copy of the same rows is only noted).
      const pulledAnother = pulled !== undefined && saved.plan.fingerprint !== inputs.fingerprint;
      if (differences.steps.length > 0 || pulledAnother) {
        throw new StalePlanError(saved.path, differences);
      }
      for (const d of differences.inputs) notices.push(`since the plan was made ${d}, but no step changed`);
      if (ignoredApproval) notices.push(IGNORED_APPROVAL);
    }
    if (options.onPlan && dryRun) await options.onPlan(savedPlan(inputs, plan, started));
  }
  // `--plan`: the saved steps, which are the steps made now (checked above), are what is applied.
  const steps = saved ? { ...plan, steps: saved.plan.steps } : plan;

  let applied: ApplyResult | undefined;
  if (!dryRun) {
    // One write of the memory, before the service changes (write-ahead), holding all this run
    // learned: this export counted, everyone it may add known as `seen` with their identities, and
    // the plan's archive times. Were it written after the apply, a crash in between (the journal
    // lets the next run finish the work) would lose it, and if the export read after the restart
    // no longer lists someone this run added, they would count as from other sources, never to be
    // archived (and this export would not count as a missing one). See the integration test "a run
    // cut short".
    await saveRosterMemory(store, withPlannedArchiveTimes(advanced, steps.steps, now()));
    // Also before the apply: the holds' decisions rest only on what this run read (export, roster),
    // so a run cut short and finished by the next one decides the same; a hold ended here has its
    // person planned as usual (a track now, or by the next run after a crash).
    await settleKeptUntracked(store, { record: settled.record, end: settled.ended });
    // An approval that let archives over the limit through is logged and journaled with the apply.
    const lifted = plan.guardLifted;
    const lift =
      lifted && approval
        ? {
            by: approval,
            means: APPROVAL_MEANS[approval],
            archives: lifted.archives,
            ...(inSlack ? { approvedBy: inSlack.userId, plan: inSlack.planId } : {}),
          }
        : undefined;
    if (lifted && lift)
      logger.warn({ component: "reconcile", guardLifted: lift }, guardLiftedMessage({ ...lifted, ...lift }));
    applied = await applyPlan(steps, {
      ...(lift ? { guardLifted: lift } : {}),
      client,
      journal: journalNs,
      logger,
      runId: randomUUID(),
      fingerprint: roster.fingerprint,
      now,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      heldNow: (url) => keptUntrackedNow(store, url),
    });
  }

  // A hold ends once its person is archived: after the apply, only for archives done.
  const archivedHolds = holdsEndedByArchive(settled.standing, steps.steps, applied);
  if (!dryRun && archivedHolds.length > 0) {
    try {
      await settleKeptUntracked(store, { end: archivedHolds });
    } catch (error) {
      // Not lost: the next run finds them archived on the service and ends the holds then.
      logger.warn({ component: "reconcile", err: error }, "holds of archived people not deleted; the next run does");
    }
  }

  // Held after the apply, as what is left for the approval; a run cut short is finished first.
  const held =
    approvable && applied?.interrupted !== true
      ? await holdPlan(store, {
          heldAt: started.toISOString(),
          plan: savedPlan(inputsWith(approvable.budget), approvable.plan, started),
          seatDelta: approvable.plan.seatDelta,
          monthlyCostDeltaUsd: approvable.plan.monthlyCostDeltaUsd,
          deferred: approvable.plan.deferred,
          lifts: approvable.lifts,
        })
      : undefined;

  const report = buildReport({
    dryRun,
    file: pulled?.origin ?? file,
    ...(pulled ? { source: { type: deps.config.roster.source.type, origin: pulled.origin, facts: pulled.facts } } : {}),
    startedAt: started,
    finishedAt: now(),
    roster,
    export: exported,
    budget,
    billing: service.billing,
    plan: steps,
    applied,
    readRequests: reads.count,
    resumedRun,
    findings,
    notices,
    holdsEnded: [...settled.ended, ...archivedHolds],
    approval,
    ...(inSlack ? { approvedInSlack: inSlack } : {}),
    ...(held ? { heldPlan: held } : {}),
  });
  const final = dryRun ? report : await quietRepeat(store, report);
  logger.info(
    {
      component: "reconcile",
      report: {
        ...final,
        rows: { ...final.rows, problems: undefined },
        steps: undefined,
        guard: final.guard ? { ...final.guard, people: undefined } : undefined,
        deferred: { ...final.deferred, items: undefined },
        refusals: final.refusals.length,
        failures: final.failures.length,
        keptUntracked: final.keptUntracked.length,
        holdsEnded: final.holdsEnded.length,
      },
    },
    "reconcile finished",
  );
  return final;
}

/** What an approval in Slack lifts, said in the report of its apply. */
function slackApprovalNotice(approval: SlackApproval): string {
  const who = approval.userName ? `${approval.userName} (${approval.userId})` : approval.userId;
  return (
    `plan ${approval.planId} approved in Slack by ${who}: the mass-archive guard and the operator's caps ` +
    "(roster.maxSeats, roster.maxMonthlyUsd) are lifted for this plan's steps only"
  );
}
