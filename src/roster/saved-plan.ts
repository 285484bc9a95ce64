import { createHash } from "node:crypto";
import { z } from "zod";
import type { Config } from "../config/schema.js";
import { NO_LONGER_NEEDED, PlanFileError } from "../errors.js";
import type { ServicePerson } from "./diff-roster.js";
import type { KeptPerson, Named, PlanStep, ReconcilePlan, StepKind } from "./plan-types.js";
import { stepPeople } from "./plan-types.js";
import { day, describeNamed, describeWho } from "./plan-words.js";
import type { SeatBudget } from "./seat-budget.js";

/**
 * Saved plans, like `terraform plan -out`: `reconcile --dry-run --out plan.json` writes the plan
 * with what it was made from; `reconcile --plan plan.json` makes the plan again from what is true
 * now and applies the saved steps only if every step is the same, else refuses and names the
 * difference. The inputs (export, roster settings, service roster, billing) are kept to say which
 * one changed; a change that alters no step does not make a plan stale.
 *
 * A plan carries no approval. Passing the mass-archive guard is the operator's act when the plan
 * is applied (`--plan FILE --allow-mass-archive`, or `roster.approveMassArchive`), never data in a
 * file anyone who can write it could edit: the plan made now under the approvals of now must have
 * the saved steps. Version 1 files carried `allowMassArchive`; it is read, ignored and named.
 */

export const PLAN_FORMAT = "retention-sync-plan";
export const PLAN_VERSION = 2;

/** What a plan was made from, in a form two runs can compare. */
export interface PlanInputs {
  /** The file read, or where a pulled export came from. */
  readonly file: string;
  /** A file: its content hash, size and time; a pulled export: its content hash alone. */
  readonly fingerprint: string;
  /** A pulled export's source (`roster.source`). */
  readonly source?: { readonly type: string; readonly origin: string };
  readonly modifiedAt: string;
  /** Digest of the roster settings that shape a plan. */
  readonly settings: string;
  readonly service: { readonly people: number; readonly digest: string };
  readonly billing: {
    readonly state: string;
    readonly planStatus: string | null;
    readonly perSeatUsd: number;
    readonly caps: ReadonlyArray<{ readonly reason: string; readonly left: number }>;
  };
}

export interface SavedPlan extends PlanInputs {
  readonly format: typeof PLAN_FORMAT;
  /** 1: written by a version whose plans carried `allowMassArchive` (ignored now). */
  readonly version: 1 | typeof PLAN_VERSION;
  readonly createdAt: string;
  readonly steps: readonly PlanStep[];
  /** Changes the plan left for a later run (caps, billing): shown, never applied. */
  readonly deferred: number;
  /** People stopped by hand in Slack the plan leaves untracked (no track step): shown, never applied. */
  readonly keptUntracked?: readonly KeptPerson[];
  /**
   * Set by `parseSavedPlan` only, never written: the file holds an `allowMassArchive` field (a
   * version 1 plan, or an edited one). It approves nothing; the run says it was ignored.
   */
  readonly ignoredApproval?: boolean;
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/** The roster settings a plan depends on, as a short digest. */
export function settingsDigest(rules: Config["roster"]): string {
  const shaping = {
    mapping: rules.mapping,
    records: rules.records ?? null,
    ignoreColumns: rules.ignoreColumns,
    include: rules.include,
    untrackedDepartments: rules.untrackedDepartments,
    priorityDepartments: rules.priorityDepartments,
    archiveUnknown: rules.archiveUnknown,
    archiveAfterMissingExports: rules.archiveAfterMissingExports,
    maxArchivePercent: rules.maxArchivePercent,
    maxArchiveCount: rules.maxArchiveCount,
    eraseArchivedAfterDays: rules.eraseArchivedAfterDays ?? null,
    maxSeats: rules.maxSeats ?? null,
    maxMonthlyUsd: rules.maxMonthlyUsd ?? null,
  };
  return sha(JSON.stringify(shaping)).slice(0, 16);
}

/** The service roster as a digest: who is on it, tracked or not, archived or not. */
export function serviceDigest(people: readonly ServicePerson[]): { people: number; digest: string } {
  const rows = people.map((p) => `${p.id}\t${p.profileUrl}\t${p.tracked ? 1 : 0}\t${p.archived ? 1 : 0}`);
  rows.sort();
  const hash = createHash("sha256");
  for (const row of rows) hash.update(`${row}\n`);
  return { people: people.length, digest: hash.digest("hex").slice(0, 16) };
}

export function billingSummary(budget: SeatBudget): PlanInputs["billing"] {
  return {
    state: budget.state,
    planStatus: budget.planStatus ?? null,
    perSeatUsd: budget.perSeatUsd,
    caps: budget.caps.map((c) => ({ reason: c.reason, left: c.left })),
  };
}

export function savedPlan(inputs: PlanInputs, plan: ReconcilePlan, createdAt: Date): SavedPlan {
  return {
    format: PLAN_FORMAT,
    version: PLAN_VERSION,
    createdAt: createdAt.toISOString(),
    ...inputs,
    steps: plan.steps,
    deferred: plan.deferred.length,
    keptUntracked: plan.keptUntracked ?? [],
  };
}

const who = z.object({
  name: z.string().optional(),
  employeeId: z.string().optional(),
  department: z.string().optional(),
  line: z.number().int().optional(),
});
const named = { url: z.string().min(1), who, reason: z.looseObject({ why: z.string() }) };
const stepSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("add"), tracked: z.boolean(), people: z.array(z.object(named)).min(1).max(50) }),
  z.object({ kind: z.literal("revive"), tracked: z.boolean(), id: z.number().int(), ...named }),
  z.object({ kind: z.literal("track"), id: z.number().int(), ...named }),
  z.object({ kind: z.literal("untrack"), id: z.number().int(), ...named }),
  z.object({ kind: z.literal("archive"), id: z.number().int(), tracked: z.boolean(), ...named }),
  z.object({ kind: z.literal("erase"), id: z.number().int(), ...named }),
]);
const savedPlanSchema = z.object({
  format: z.literal(PLAN_FORMAT),
  version: z.union([z.literal(1), z.literal(PLAN_VERSION)]),
  createdAt: z.string(),
  file: z.string(),
  fingerprint: z.string(),
  source: z.object({ type: z.string(), origin: z.string() }).optional(),
  modifiedAt: z.string(),
  settings: z.string(),
  service: z.object({ people: z.number().int(), digest: z.string() }),
  billing: z.object({
    state: z.string(),
    planStatus: z.string().nullable(),
    perSeatUsd: z.number(),
    caps: z.array(z.object({ reason: z.string(), left: z.number() })),
  }),
  // Read only to say that it is ignored (version 1 wrote it; an edited file may hold it).
  allowMassArchive: z.unknown().optional(),
  steps: z.array(stepSchema),
  deferred: z.number().int(),
  // Plans written before holds existed have none.
  keptUntracked: z
    .array(
      z.object({
        url: z.string().min(1),
        id: z.number().int(),
        who,
        stoppedBy: z.string(),
        stoppedAt: z.string(),
      }),
    )
    .optional(),
});

/** Reads a plan file's text, or says why it is not one. */
export function parseSavedPlan(text: string, planFile: string): SavedPlan {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PlanFileError(planFile, `not JSON: ${(error as Error).message}`);
  }
  const format = (value as { format?: unknown } | null)?.format;
  if (format !== PLAN_FORMAT) {
    throw new PlanFileError(planFile, "not a plan written by reconcile --dry-run --out");
  }
  const parsed = savedPlanSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PlanFileError(planFile, `damaged at ${issue?.path.join(".") || "(top level)"}: ${issue?.message ?? ""}`);
  }
  // The reasons were checked only for their `why`: they are shown, never acted on.
  const { allowMassArchive, ...plan } = parsed.data;
  return {
    ...(plan as unknown as SavedPlan),
    ...(allowMassArchive !== undefined ? { ignoredApproval: true } : {}),
  };
}

/** One person-level action of a plan, as compared: kind, URL, service id and tracking. */
function actions(steps: readonly PlanStep[]): Map<string, { kind: StepKind; person: Named }> {
  const out = new Map<string, { kind: StepKind; person: Named }>();
  for (const step of steps) {
    const id = step.kind === "add" ? "" : String(step.id);
    const tracked =
      step.kind === "add" || step.kind === "revive" || step.kind === "archive" ? String(step.tracked) : "";
    for (const person of stepPeople(step))
      out.set(`${step.kind}|${person.url}|${id}|${tracked}`, { kind: step.kind, person });
  }
  return out;
}

/**
 * What differs between a saved plan and the plan made now: the steps one has and the other does
 * not (named, with why a step is gone: deferred, held by the guard, or no longer needed), then
 * which input changed. Empty when every step is the same: the saved plan may be applied.
 */
export function planDifferences(
  saved: SavedPlan,
  now: { readonly inputs: PlanInputs; readonly plan: ReconcilePlan },
): { readonly steps: string[]; readonly inputs: string[]; readonly heldByGuard: number } {
  const before = actions(saved.steps);
  const after = actions(now.plan.steps);
  const deferred = new Map(now.plan.deferred.map((d) => [d.url, d.reason]));
  const guarded = new Set(now.plan.guard?.people.map((p) => p.url) ?? []);
  const kept = new Set(now.plan.keptUntracked?.map((p) => p.url) ?? []);
  const steps: string[] = [];
  let heldByGuard = 0;
  for (const [key, { kind, person }] of before) {
    if (after.has(key)) continue;
    if (kind === "archive" && !deferred.has(person.url) && guarded.has(person.url)) heldByGuard += 1;
    const why = deferred.has(person.url)
      ? `now deferred (${deferred.get(person.url)})`
      : guarded.has(person.url)
        ? "now held by the mass-archive guard"
        : kept.has(person.url) && kind === "track"
          ? "now kept untracked (stopped in Slack)"
          : NO_LONGER_NEEDED;
    steps.push(`- ${kind} ${describeWho(person.who, person.url)}: in the saved plan, ${why}`);
  }
  for (const [key, { kind, person }] of after) {
    if (!before.has(key)) steps.push(`+ ${kind} ${describeNamed(person)}: not in the saved plan`);
  }
  const inputs: string[] = [];
  const i = now.inputs;
  if (saved.fingerprint !== i.fingerprint) {
    inputs.push(`the export changed (written ${day(saved.modifiedAt)} when planned, ${day(i.modifiedAt)} now)`);
  }
  if (saved.settings !== i.settings) inputs.push("the roster settings changed");
  if (saved.service.digest !== i.service.digest) {
    inputs.push(`the service roster changed (${saved.service.people} rows when planned, ${i.service.people} now)`);
  }
  const caps = (b: PlanInputs["billing"]) => b.caps.map((c) => `${c.reason} ${c.left}`).join(", ") || "no caps";
  if (saved.billing.state !== i.billing.state || caps(saved.billing) !== caps(i.billing)) {
    inputs.push(
      `billing changed (${saved.billing.state}, ${caps(saved.billing)} when planned; ${i.billing.state}, ${caps(i.billing)} now)`,
    );
  }
  return { steps, inputs, heldByGuard };
}
