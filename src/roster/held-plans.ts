import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import type { StateStore } from "../store/state-store.js";
import type { DeferredItem } from "./plan-types.js";
import { parseSavedPlan, type SavedPlan } from "./saved-plan.js";

/**
 * Plans held for a person (the mass-archive guard, adds deferred by the operator's own caps),
 * kept in the state store so that a press of Approve in Slack applies exactly one of them, checked
 * for staleness as `reconcile --plan` checks a plan file. Namespace `roster.heldPlans`: the plan
 * id → the record; `latest` → the id of the last plan held. The queue `roster.approvals` is the
 * claim: an approval enqueues the plan id, and only the one whose enqueue was new applies it
 * (atomic in both engines, across replicas too); the id is acked at once and remembered 90 days.
 */
export const HELD_PLANS_NAMESPACE = "roster.heldPlans";
export const APPROVALS_QUEUE = "roster.approvals";
const LATEST = "latest";
const KEPT_MS = 90 * 86_400_000;

/** Where a held plan is: waiting, claimed by an approval, or settled. */
export type HeldPlanState = "held" | "applying" | "applied" | "stale" | "failed";

/** What the operator lifts by approving, besides the steps: shown in the post and in Review. */
export interface HeldPlanLifts {
  /** The mass-archive guard: its archives are in the plan. */
  readonly guard?: { readonly archives: number; readonly managed: number; readonly percent: number } | undefined;
  /** `roster.maxSeats`, `roster.maxMonthlyUsd`: the operator's caps, lifted for this plan's adds only. */
  readonly caps: readonly string[];
}

export interface HeldPlan {
  readonly id: string;
  readonly heldAt: string;
  /** Steps and export: a later run holding the same keeps the same id (one post, one plan). */
  readonly contentHash: string;
  /** The content a `--out` file has. */
  readonly plan: SavedPlan;
  readonly seatDelta: number;
  readonly monthlyCostDeltaUsd: number;
  /** Changes the plan leaves deferred (the service's allowance, trial or billing): shown, never applied. */
  readonly deferred: readonly DeferredItem[];
  readonly lifts: HeldPlanLifts;
  readonly state: HeldPlanState;
  readonly approval?:
    | {
        readonly userId: string;
        readonly userName?: string | undefined;
        readonly at: string;
        /** What the apply did, or why it did not (`16 archived`, the differences of a stale plan). */
        readonly outcome?: string | undefined;
      }
    | undefined;
}

const recordSchema = z.object({
  id: z.string(),
  heldAt: z.string(),
  contentHash: z.string(),
  plan: z.unknown(),
  seatDelta: z.number(),
  monthlyCostDeltaUsd: z.number(),
  deferred: z.array(z.looseObject({ url: z.string(), change: z.string(), reason: z.string() })),
  lifts: z.object({
    guard: z.object({ archives: z.number(), managed: z.number(), percent: z.number() }).optional(),
    caps: z.array(z.string()),
  }),
  state: z.enum(["held", "applying", "applied", "stale", "failed"]),
  approval: z
    .object({ userId: z.string(), userName: z.string().optional(), at: z.string(), outcome: z.string().optional() })
    .optional(),
});

/** A stored record read back, its plan checked as a plan file is; undefined when absent or damaged. */
function parseRecord(raw: unknown): HeldPlan | undefined {
  const parsed = recordSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  try {
    const plan = parseSavedPlan(JSON.stringify(parsed.data.plan), `held plan ${parsed.data.id}`);
    return { ...(parsed.data as unknown as HeldPlan), plan };
  } catch {
    return undefined;
  }
}

/** The content that makes two held plans the same: the steps and the export they were made from. */
export function heldPlanHash(plan: SavedPlan): string {
  return createHash("sha256")
    .update(JSON.stringify([plan.fingerprint, plan.settings, plan.steps]))
    .digest("hex")
    .slice(0, 16);
}

export async function loadHeldPlan(store: StateStore, id: string): Promise<HeldPlan | undefined> {
  return parseRecord(await store.namespace(HELD_PLANS_NAMESPACE).get<unknown>(id));
}

/**
 * Keeps a plan for approval and returns it with its id: the last plan held when it is still
 * waiting with the same content (a schedule holding the same plan every run posts one plan), else
 * a new one under a new random id.
 */
export async function holdPlan(
  store: StateStore,
  held: Omit<HeldPlan, "id" | "contentHash" | "state" | "approval">,
): Promise<HeldPlan> {
  const ns = store.namespace(HELD_PLANS_NAMESPACE);
  const contentHash = heldPlanHash(held.plan);
  const latestId = await ns.get<string>(LATEST);
  const latest = latestId === undefined ? undefined : await loadHeldPlan(store, latestId);
  if (latest && latest.state === "held" && latest.contentHash === contentHash) return latest;
  const record: HeldPlan = { ...held, id: randomBytes(4).toString("hex"), contentHash, state: "held" };
  await ns.setMany<unknown>(
    [
      [record.id, record],
      [LATEST, record.id],
    ],
    KEPT_MS,
  );
  return record;
}

export type Claim =
  | { readonly claimed: true; readonly plan: HeldPlan }
  | { readonly claimed: false; readonly plan: HeldPlan | undefined };

/**
 * Claims a held plan for one approval, in one transaction: the plan id enqueued in
 * `roster.approvals` (only the first enqueue of an id is new, in both engines and across
 * replicas) and the record marked `applying` with who approved. A second approval, concurrent or
 * later, gets `claimed: false` and the record as it stands.
 */
export function claimHeldPlan(
  store: StateStore,
  id: string,
  approver: { readonly userId: string; readonly userName?: string | undefined; readonly at: string },
  nowMs: number,
): Promise<Claim> {
  return store.transaction(async (scope): Promise<Claim> => {
    const ns = scope.namespace(HELD_PLANS_NAMESPACE);
    const plan = parseRecord(await ns.get<unknown>(id));
    if (!plan) return { claimed: false, plan: undefined };
    const claims = scope.queue<{ userId: string; at: string }>(APPROVALS_QUEUE);
    const fresh = await claims.enqueue([{ id, value: { userId: approver.userId, at: approver.at } }]);
    if (fresh === 0) return { claimed: false, plan };
    // Acked at once: the id stays known (a later enqueue of it is not new) without waiting in the queue.
    await claims.ack([id], nowMs + KEPT_MS);
    if (plan.state !== "held") return { claimed: false, plan };
    const claimed: HeldPlan = { ...plan, state: "applying", approval: approver };
    await ns.set(id, claimed, KEPT_MS);
    return { claimed: true, plan: claimed };
  });
}

/** Records how a claimed plan ended: applied, stale (nothing changed) or failed. */
export async function settleHeldPlan(
  store: StateStore,
  plan: HeldPlan,
  state: Exclude<HeldPlanState, "held" | "applying">,
  outcome: string,
): Promise<HeldPlan> {
  const settled: HeldPlan = {
    ...plan,
    state,
    ...(plan.approval ? { approval: { ...plan.approval, outcome } } : {}),
  };
  await store.namespace(HELD_PLANS_NAMESPACE).set(plan.id, settled, KEPT_MS);
  return settled;
}
