import type { RetentionClient } from "../api/client.js";
import type { Config } from "../config/schema.js";
import { ConfigError, PaymentRequiredError, READ_ONLY_FIX, ReadOnlyKeyError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { StateStore } from "../store/state-store.js";
import { approvedBudget } from "./approvable-plan.js";
import { advanceMemory, diffRoster, type RosterMemory } from "./diff-roster.js";
import { loadKeptUntracked } from "./kept-untracked.js";
import { canWrite } from "./key-scopes.js";
import { planReconcile, refusedPlan } from "./plan-reconcile.js";
import type { Finding, GuardApproval, ReconcilePlan, SlackApproval } from "./plan-types.js";
import { day } from "./plan-words.js";
import { type RosterFile, readRoster, rosterReadOptions } from "./read-roster.js";
import { interruptedRun, JOURNAL_NAMESPACE } from "./reconcile-journal.js";
import type { ExportInfo } from "./report.js";
import {
  billingSummary,
  type PlanInputs,
  type SavedPlan,
  savedPlan,
  serviceDigest,
  settingsDigest,
} from "./saved-plan.js";
import { refusedBudget, type SeatBudget, seatBudget } from "./seat-budget.js";
import { exportInfo, readService } from "./service-read.js";
import { type HoldSettlement, settleHolds } from "./settle-holds.js";
import type { PullExport } from "./sources/observed-pull.js";
import type { PulledExport } from "./sources/roster-source.js";
import { loadRosterMemory } from "./stored-roster-memory.js";

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

export interface PlanRunOptions {
  /**
   * A plan to look at, not to apply (`--dry-run`): a read-only key is a finding of the plan
   * instead of an error before anything is read.
   */
  readonly preview?: boolean;
  /**
   * `--allow-mass-archive`: the operator approves archives over the mass-archive limit for this run
   * (with a saved plan too: a plan file never carries an approval). `roster.approveMassArchive` is
   * the standing approval.
   */
  readonly allowMassArchive?: boolean;
  /**
   * A held plan approved in Slack (made again here, then checked against it): lifts the
   * mass-archive guard and the operator's caps for this plan's steps only, never the service's limits.
   */
  readonly approvedInSlack?: SlackApproval;
  /** Overrides `roster.file`. */
  readonly file?: string;
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
}

/** What was read before the plan, common to both kinds of run plan. */
interface RunBasis {
  /** The export read: the file, or where it was pulled from. */
  readonly file: string;
  readonly started: Date;
  readonly roster: RosterFile;
  readonly readRequests: number;
}

/** The service answered 402 (no subscription or trial, spec 5.8): nothing to plan, nothing is changed. */
export interface RefusedRun extends RunBasis {
  readonly kind: "refused";
  readonly budget: SeatBudget;
  readonly plan: ReconcilePlan;
}

/** A run planned: what apply needs, and what a saved plan records (`record`). */
export interface PlannedRun extends RunBasis {
  readonly kind: "planned";
  /** The pull this run read, if the export was pulled (`roster.source`). */
  readonly pulled: PulledExport | undefined;
  readonly exported: ExportInfo;
  readonly approval: GuardApproval | undefined;
  readonly approvedInSlack: SlackApproval | undefined;
  /** The interrupted run this one finishes. */
  readonly resumedRun: string | undefined;
  readonly findings: readonly Finding[];
  readonly notices: readonly string[];
  readonly service: Awaited<ReturnType<typeof readService>>;
  /** The roster memory with this export counted (written before the apply). */
  readonly memory: RosterMemory;
  readonly holds: HoldSettlement;
  readonly budget: SeatBudget;
  /** The steps to apply (a saved plan's, once checked against this one). */
  readonly plan: ReconcilePlan;
  /** What the plan was made from. */
  readonly inputs: PlanInputs;
  /** The plan as `--out` writes it and `--plan` reads it. */
  readonly record: SavedPlan;
}

export type RunPlan = RefusedRun | PlannedRun;

/**
 * Reads the export (pulled first for a pull source), the journal, the service's roster and
 * billing and the roster memory, diffs and plans. Changes nothing: `applyRun` does.
 */
export async function planRun(deps: ReconcileDeps, options: PlanRunOptions = {}): Promise<RunPlan> {
  const { config, client, store, logger } = deps;
  const rules = config.roster;
  const started = (options.now ?? (() => new Date()))();
  // A pull that fails (a 5xx, a cut page, a refused credential) throws here: nothing is read,
  // planned or archived, and the next schedule tries again.
  const pulled = options.file === undefined && deps.pullExport ? await deps.pullExport(options.signal) : undefined;
  const file = options.file ?? pulled?.file ?? rules.file;
  if (!file) {
    throw new ConfigError("roster", [
      { path: "roster.file", message: "required: set HRIS_ROSTER_FILE (or roster.file), or pass --file" },
    ]);
  }
  // Approval is the operator's act for this run, never read from a saved plan.
  const inSlack = options.approvedInSlack;
  const approval: GuardApproval | undefined = inSlack
    ? "slack"
    : options.allowMassArchive === true
      ? "flag"
      : rules.approveMassArchive
        ? "config"
        : undefined;
  // People stopped by hand in Slack: read once per run (before the file, whose status cells are
  // kept for them only), settled against this export and roster.
  const kept = await loadKeptUntracked(store);
  const roster = await readRoster({
    ...rosterReadOptions(rules, file, started),
    ...(pulled && pulled.format !== "auto" ? { format: pulled.format } : {}),
    keepStatusOf: new Set(kept.keys()),
  });
  const previous = await interruptedRun(store.namespace(JOURNAL_NAMESPACE));
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
      if (options.preview !== true) throw new ReadOnlyKeyError(me.scopes);
      findings.push({
        kind: "read-only-key",
        severity: "warning",
        message: `the API key is read-only: this plan cannot be applied with it; ${READ_ONLY_FIX}`,
      });
    }
    service = await readService(client, reads, (url) => roster.byUrl.has(url));
  } catch (error) {
    if (!(error instanceof PaymentRequiredError)) throw error;
    const basis = { file, started, roster, readRequests: reads.count };
    return { kind: "refused", ...basis, budget: refusedBudget(error.code), plan: refusedPlan(error.code) };
  }
  if (resumedRun && previous?.inflight) {
    // The chunk in flight at the crash: re-reading the roster tells what the service kept of it.
    const there = new Set(service.people.map((p) => p.profileUrl));
    const keptOfChunk = previous.inflight.filter((u) => there.has(u)).length;
    logger.info(
      { component: "reconcile", runId: resumedRun, kept: keptOfChunk, lost: previous.inflight.length - keptOfChunk },
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
  const holds = settleHolds({
    holds: kept,
    desired: roster,
    current: service.people,
    diff: fullDiff,
    identities: advanced.identities,
    startedAt: started,
  });
  const allowMassArchive = approval !== undefined;
  const planned = planReconcile({ diff: holds.diff, budget, rules: { ...rules, allowMassArchive } });
  const plan = holds.kept.length > 0 ? { ...planned, keptUntracked: holds.kept } : planned;
  const inputs: PlanInputs = {
    file: pulled?.origin ?? file,
    // A pulled export is known by its content: every pull writes a new file of the same records.
    fingerprint: pulled ? (roster.fingerprint.split(":")[0] ?? roster.fingerprint) : roster.fingerprint,
    ...(pulled ? { source: { type: config.roster.source.type, origin: pulled.origin } } : {}),
    modifiedAt: roster.modifiedAt,
    settings: settingsDigest(rules),
    service: serviceDigest(service.people),
    billing: billingSummary(budget),
  };
  return {
    kind: "planned",
    file,
    started,
    roster,
    readRequests: reads.count,
    pulled,
    exported,
    approval,
    approvedInSlack: inSlack,
    resumedRun,
    findings,
    notices: inSlack ? [slackApprovalNotice(inSlack)] : [],
    service,
    memory: advanced,
    holds,
    budget,
    plan,
    inputs,
    record: savedPlan(inputs, plan, started),
  };
}

/** What an approval in Slack lifts, said in the report of its apply. */
function slackApprovalNotice(approval: SlackApproval): string {
  const who = approval.userName ? `${approval.userName} (${approval.userId})` : approval.userId;
  return (
    `plan ${approval.planId} approved in Slack by ${who}: the mass-archive guard and the operator's caps ` +
    "(roster.maxSeats, roster.maxMonthlyUsd) are lifted for this plan's steps only"
  );
}
