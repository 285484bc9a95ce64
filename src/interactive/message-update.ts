import type { Block } from "../slack/slack-message.js";
import { alertActionsBlock, linksOf } from "./action-blocks.js";
import { type ActionKind, BLOCK_IDS } from "./action-ids.js";
import type { ActionTarget } from "./button-value.js";

/** What happened, as the message should show it. Times are ISO strings. */
export interface AppliedAction {
  readonly kind: ActionKind;
  readonly userId: string;
  readonly at: string;
  /** Snooze: when it ends. */
  readonly until?: string | undefined;
}

/** A message as Slack holds it: blocks are Slack's JSON, read loosely. */
export interface CurrentMessage {
  readonly text: string;
  readonly blocks: readonly unknown[];
}

export interface UpdatedMessage {
  readonly text: string;
  readonly blocks: readonly unknown[];
}

/** "2026-11-24 07:30 UTC": one reading of the time for every reader, whatever their time zone. */
export function readableUtc(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

const blockId = (block: unknown): unknown => (block as { block_id?: unknown } | null)?.block_id;
const MARK_IDS: readonly string[] = [BLOCK_IDS.ackMark, BLOCK_IDS.snoozeMark, BLOCK_IDS.untrackMark];

function mark(id: string, text: string): Block {
  return { type: "context", block_id: id, elements: [{ type: "mrkdwn", text }] };
}

/** The context line of an acknowledgement, also shown on later alerts about the person. */
export function acknowledgedLine(userId: string, at: string): string {
  return `:white_check_mark: Acknowledged by <@${userId}> at ${readableUtc(at)}`;
}

/**
 * The message after an action: the marks (acknowledged, snoozed until, tracking stopped) as
 * context lines above the buttons, and the buttons for the new state (Acknowledge gone once
 * acknowledged, Unsnooze instead of Snooze while snoozed, nothing but links once untracked).
 * Everything else of the message is kept as Slack holds it. Applying the same action twice gives
 * the same message.
 */
export function updatedMessage(current: CurrentMessage, target: ActionTarget, action: AppliedAction): UpdatedMessage {
  const marks = new Map<string, unknown>();
  let actions: unknown;
  const kept: unknown[] = [];
  for (const block of current.blocks) {
    const id = blockId(block);
    if (typeof id === "string" && MARK_IDS.includes(id)) marks.set(id, block);
    else if (id === BLOCK_IDS.actions) actions = block;
    else kept.push(block);
  }
  switch (action.kind) {
    case "ack":
      marks.set(BLOCK_IDS.ackMark, mark(BLOCK_IDS.ackMark, acknowledgedLine(action.userId, action.at)));
      break;
    case "snooze":
      marks.set(
        BLOCK_IDS.snoozeMark,
        mark(
          BLOCK_IDS.snoozeMark,
          `:zzz: Snoozed by <@${action.userId}> until ${readableUtc(action.until ?? action.at)}: no alerts for this person until then (departures still post)`,
        ),
      );
      break;
    case "unsnooze":
      marks.delete(BLOCK_IDS.snoozeMark);
      break;
    case "untrack":
      marks.set(
        BLOCK_IDS.untrackMark,
        mark(
          BLOCK_IDS.untrackMark,
          `:no_entry_sign: Tracking stopped by <@${action.userId}> at ${readableUtc(action.at)}: seat released; reconciliation keeps them untracked`,
        ),
      );
      break;
  }
  const ordered = MARK_IDS.flatMap((id) => (marks.has(id) ? [marks.get(id)] : []));
  const state = {
    acknowledged: marks.has(BLOCK_IDS.ackMark),
    snoozed: marks.has(BLOCK_IDS.snoozeMark),
    untracked: marks.has(BLOCK_IDS.untrackMark),
  };
  return { text: current.text, blocks: [...kept, ...ordered, alertActionsBlock(target, linksOf(actions), state)] };
}
