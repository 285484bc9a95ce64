import { PLAN_ACTION_IDS, PLAN_ID } from "../slack/plan-buttons.js";
import { type PressedMessage, payloadSchema, pressedMessage } from "./interaction-payload.js";

/**
 * A press of Review or Approve on a reconcile report that holds a plan. `planId` here is what the
 * button says, a claim: the plan acted on is the one recorded for the message (`PlanApprovals`).
 */
export interface PlanPress extends PressedMessage {
  readonly kind: "review-plan" | "approve-plan";
  readonly planId: string;
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
  // Never ephemeral (refused above): the message is the post, which the update after an approval starts from.
  const message = payload.message
    ? { text: payload.message.text ?? "", blocks: payload.message.blocks ?? [] }
    : undefined;
  return { ...pressedMessage(payload, action, { channel, messageTs }, message), kind, planId: action.value };
}
