import { createHash } from "node:crypto";
import { z } from "zod";
import { ACTION_IDS, type ActionKind } from "./action-ids.js";
import { type ActionTarget, decodeValue } from "./button-value.js";

/**
 * Slack's `block_actions` payload, read at the edge: only the fields this program uses, unknown
 * fields ignored (Slack adds fields over time), and every value we act on validated.
 */
const actionSchema = z.object({
  action_id: z.string().min(1).max(255),
  block_id: z.string().max(255).optional(),
  type: z.string().max(64),
  value: z.string().max(2000).optional(),
  selected_option: z.object({ value: z.string().max(2000) }).optional(),
  action_ts: z.string().min(1).max(64),
});

export const payloadSchema = z.object({
  type: z.literal("block_actions"),
  user: z.object({
    id: z.string().regex(/^[UW][A-Z0-9]{1,30}$/),
    username: z.string().max(200).optional(),
    name: z.string().max(200).optional(),
  }),
  container: z
    .object({
      type: z.string().max(64),
      message_ts: z.string().max(64).optional(),
      channel_id: z.string().max(64).optional(),
      is_ephemeral: z.boolean().optional(),
    })
    .optional(),
  channel: z.object({ id: z.string().min(1).max(64) }).optional(),
  message: z
    .object({
      ts: z.string().min(1).max(64),
      thread_ts: z.string().max(64).optional(),
      text: z.string().max(40_000).optional(),
      blocks: z.array(z.unknown()).max(100).optional(),
    })
    .optional(),
  response_url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional(),
  actions: z.array(actionSchema).min(1).max(25),
});

type Payload = z.infer<typeof payloadSchema>;

/** Who pressed which element of which message: what a person's press and a plan's press share. */
export interface PressedMessage {
  /** Deterministic: the same press delivered twice (Slack's retries) has the same id. */
  readonly id: string;
  readonly userId: string;
  readonly userName?: string | undefined;
  readonly channel: string;
  readonly messageTs: string;
  readonly threadTs?: string | undefined;
  /** Slack's time of the press (seconds.micro), as given. */
  readonly actionTs: string;
  readonly actionId: string;
  /** The message as it was when pressed (the update starts from it); absent for ephemeral messages. */
  readonly message?: { readonly text: string; readonly blocks: readonly unknown[] } | undefined;
}

/** The shared part of a press of `action` on the message at `channel`, `messageTs`. */
export function pressedMessage(
  payload: Payload,
  action: Payload["actions"][number],
  at: { readonly channel: string; readonly messageTs: string },
  message: PressedMessage["message"],
): PressedMessage {
  const { channel, messageTs } = at;
  const userId = payload.user.id;
  return {
    id: pressId({ channel, messageTs, actionId: action.action_id, actionTs: action.action_ts, userId }),
    userId,
    userName: payload.user.username ?? payload.user.name,
    channel,
    messageTs,
    threadTs: payload.message?.thread_ts,
    actionTs: action.action_ts,
    actionId: action.action_id,
    message,
  };
}

/** One press of one of our elements, with all it needs to be applied (and applied again after a crash). */
export interface Press extends PressedMessage {
  readonly kind: ActionKind;
  /** Snooze length. */
  readonly days?: number | undefined;
  readonly target: ActionTarget;
  /** A digest's menu: the message is a digest, answered with an ephemeral note instead of an update. */
  readonly fromDigest: boolean;
  readonly ephemeral: boolean;
  readonly responseUrl?: string | undefined;
}

/**
 * A press as Slack describes it, before it is checked: `claim` is what the pressed element's value
 * says about the person, which only the daemon's record of the message can confirm (`resolvePress`).
 */
export interface ClaimedPress extends Omit<Press, "target"> {
  readonly claim: ActionTarget;
  /** A press in an ephemeral confirmation: the ts of the message (a digest) it answers, in the same channel. */
  readonly answersTs?: string | undefined;
}

export type ParsedInteraction =
  | { readonly ok: true; readonly press: ClaimedPress }
  | { readonly ok: false; readonly reason: string; readonly userId?: string | undefined };

const SNOOZE_DAY_CHOICES = new Set([7, 30, 90]);

/** The press's id: the message, the element, Slack's action time and the user. */
export function pressId(parts: {
  channel: string;
  messageTs: string;
  actionId: string;
  actionTs: string;
  userId: string;
}): string {
  return createHash("sha256")
    .update([parts.channel, parts.messageTs, parts.actionId, parts.actionTs, parts.userId].join("\u0000"))
    .digest("hex")
    .slice(0, 32);
}

const BUTTON_KINDS: Readonly<Record<string, ActionKind>> = {
  [ACTION_IDS.ack]: "ack",
  [ACTION_IDS.unsnooze]: "unsnooze",
  [ACTION_IDS.untrack]: "untrack",
};

type Decision =
  | { ok: true; kind: ActionKind; days?: number; target: ActionTarget; fromDigest: boolean; answersTs?: string }
  | { ok: false; reason: string };

function decide(action: z.infer<typeof actionSchema>): Decision {
  const id = action.action_id;
  if (id === ACTION_IDS.profile || id === ACTION_IDS.dashboard)
    return { ok: false, reason: "a URL button (Slack opens the link)" };
  const buttonKind = BUTTON_KINDS[id];
  if (buttonKind) {
    const decoded = decodeValue(action.value);
    if (!decoded.ok) return { ok: false, reason: decoded.reason };
    return {
      ok: true,
      kind: buttonKind,
      target: decoded.target,
      fromDigest: false,
      ...(decoded.answersTs !== undefined ? { answersTs: decoded.answersTs } : {}),
    };
  }
  if (id === ACTION_IDS.snooze || id === ACTION_IDS.digestMenu) {
    const decoded = decodeValue(action.selected_option?.value);
    if (!decoded.ok || decoded.verb === undefined)
      return { ok: false, reason: decoded.ok ? "no verb in the option" : decoded.reason };
    const fromDigest = id === ACTION_IDS.digestMenu;
    if (decoded.verb === "snooze") {
      if (decoded.days === undefined || !SNOOZE_DAY_CHOICES.has(decoded.days))
        return { ok: false, reason: "a snooze length this program does not offer" };
      return { ok: true, kind: "snooze", days: decoded.days, target: decoded.target, fromDigest };
    }
    if (id === ACTION_IDS.snooze) return { ok: false, reason: "the snooze menu carries only snoozes" };
    return { ok: true, kind: decoded.verb, target: decoded.target, fromDigest };
  }
  return { ok: false, reason: `action ${JSON.stringify(id.slice(0, 40))} is not one of this program's` };
}

/**
 * Reads an `interactive` payload: a press of one of our elements, or why it is ignored (another
 * payload type, a URL button, a value we did not make). The person it names is a claim, checked
 * later against what was posted. Never throws.
 */
export function parseInteraction(body: unknown): ParsedInteraction {
  const parsed = payloadSchema.safeParse(body);
  if (!parsed.success) {
    const type = (body as { type?: unknown } | null)?.type;
    return {
      ok: false,
      reason:
        type === "block_actions"
          ? "a block_actions payload without the fields we need"
          : `payload type ${JSON.stringify(typeof type === "string" ? type.slice(0, 40) : typeof type)}`,
    };
  }
  const payload = parsed.data;
  const userId = payload.user.id;
  const [action] = payload.actions;
  if (!action) return { ok: false, reason: "no action", userId };
  const channel = payload.container?.channel_id ?? payload.channel?.id;
  const messageTs = payload.container?.message_ts ?? payload.message?.ts;
  if (!channel || !messageTs) return { ok: false, reason: "not a press on a message", userId };
  const decision = decide(action);
  if (!decision.ok) return { ok: false, reason: decision.reason, userId };
  const ephemeral = payload.container?.is_ephemeral === true;
  const message =
    payload.message && !ephemeral
      ? { text: payload.message.text ?? "", blocks: payload.message.blocks ?? [] }
      : undefined;
  return {
    ok: true,
    press: {
      ...pressedMessage(payload, action, { channel, messageTs }, message),
      kind: decision.kind,
      ...(decision.days !== undefined ? { days: decision.days } : {}),
      claim: decision.target,
      ...(decision.answersTs !== undefined ? { answersTs: decision.answersTs } : {}),
      fromDigest: decision.fromDigest,
      ephemeral,
      responseUrl: payload.response_url,
    },
  };
}
