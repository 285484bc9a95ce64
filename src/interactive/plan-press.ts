import { PLAN_ACTION_IDS, PLAN_ID } from "../slack/plan-buttons.js";
import { payloadSchema, pressId } from "./interaction-payload.js";

/**
 * A press of Review or Approve on a reconcile report that holds a plan. `planId` here is what the
 * button says, a claim: the plan acted on is the one recorded for the message (`PlanApprovals`).
 */
export interface PlanPress {
  /** Deterministic, as a person's press: the same press delivered twice has the same id. */
  readonly id: string;
  readonly kind: "review-plan" | "approve-plan";
  readonly planId: string;
  readonly userId: string;
  readonly userName?: string | undefined;
  readonly channel: string;
  readonly messageTs: string;
  readonly threadTs?: string | undefined;
  readonly actionTs: string;
  readonly actionId: string;
  /** The message as it was when pressed: the update after an approval starts from it. */
  readonly message?: { readonly text: string; readonly blocks: readonly unknown[] } | undefined;
}

const KINDS: Readonly<Record<string, PlanPress["kind"]>> = {
  [PLAN_ACTION_IDS.review]: "review-plan",
  [PLAN_ACTION_IDS.approve]: "approve-plan",
};

/** The kinds of a plan press: a journal entry of one of these is a plan's, not a person's. */
export const PLAN_PRESS_KINDS: ReadonlySet<string> = new Set(Object.values(KINDS));

/** A press of a plan button, or undefined for any other payload (a person's button, or not ours). Never throws. */
export function parsePlanPress(body: unknown): PlanPress | undefined {
  const parsed = payloadSchema.safeParse(body);
  if (!parsed.success) return undefined;
  const payload = parsed.data;
  const [action] = payload.actions;
  const kind = action ? KINDS[action.action_id] : undefined;
  if (!action || !kind || action.value === undefined || !PLAN_ID.test(action.value)) return undefined;
  const channel = payload.container?.channel_id ?? payload.channel?.id;
  const messageTs = payload.container?.message_ts ?? payload.message?.ts;
  if (!channel || !messageTs || payload.container?.is_ephemeral === true) return undefined;
  const userId = payload.user.id;
  return {
    id: pressId({ channel, messageTs, actionId: action.action_id, actionTs: action.action_ts, userId }),
    kind,
    planId: action.value,
    userId,
    userName: payload.user.username ?? payload.user.name,
    channel,
    messageTs,
    threadTs: payload.message?.thread_ts,
    actionTs: action.action_ts,
    actionId: action.action_id,
    message: payload.message ? { text: payload.message.text ?? "", blocks: payload.message.blocks ?? [] } : undefined,
  };
}
