import type { Block, ConfirmDialog, InteractiveElement, OptionObject } from "../slack/slack-message.js";
import { truncate } from "../slack/slack-text.js";
import { ACTION_IDS, BLOCK_IDS, SNOOZE_DAYS } from "./action-ids.js";
import { type ActionTarget, encodeButtonValue, encodeOptionValue } from "./button-value.js";

/** Where the URL buttons go; the formatter passes only links it has checked (network profile, service dashboard). */
export interface ActionLinks {
  readonly profileUrl?: string | undefined;
  readonly dashboardUrl?: string | undefined;
}

/** The state a message's buttons reflect. */
export interface ActionState {
  readonly acknowledged?: boolean | undefined;
  readonly snoozed?: boolean | undefined;
  readonly untracked?: boolean | undefined;
}

const plain = (text: string) => ({ type: "plain_text" as const, text, emoji: true });

/** Stop tracking is the one lasting change a press makes, so it asks first (Slack's own dialog). */
export function stopTrackingConfirm(name: string | undefined): ConfirmDialog {
  const who = name ? truncate(name, 80) : "this person";
  return {
    title: plain("Stop tracking?"),
    text: plain(
      `${who} will be untracked on the service and the seat released. Reconciliation keeps them untracked until their HRIS row changes or someone tracks them again.`,
    ),
    confirm: plain("Stop tracking"),
    deny: plain("Cancel"),
    style: "danger",
  };
}

export function snoozeOptions(target: ActionTarget): OptionObject[] {
  return SNOOZE_DAYS.map((days) => ({
    text: plain(`Snooze ${days} days`),
    value: encodeOptionValue("snooze", days, target),
  }));
}

/** Whether Stop tracking can be offered: an own employee with an id (a competitor's people are not ours to untrack). */
export function canStopTracking(target: ActionTarget): boolean {
  return target.lens === "retention" && target.employeeId !== undefined;
}

function urlButtons(links: ActionLinks): InteractiveElement[] {
  const buttons: InteractiveElement[] = [];
  if (links.profileUrl) {
    buttons.push({
      type: "button",
      action_id: ACTION_IDS.profile,
      text: plain("Open profile ↗"),
      url: links.profileUrl,
    });
  }
  if (links.dashboardUrl) {
    buttons.push({
      type: "button",
      action_id: ACTION_IDS.dashboard,
      text: plain("Open in dashboard ↗"),
      url: links.dashboardUrl,
    });
  }
  return buttons;
}

/**
 * The actions block of a single alert for its state: Acknowledge (until acknowledged), Snooze ▾
 * or Unsnooze, Stop tracking with its confirmation (own employees, until stopped), and the URL
 * buttons. Ids are fixed so a later update finds the block.
 */
export function alertActionsBlock(target: ActionTarget, links: ActionLinks, state: ActionState = {}): Block {
  const value = encodeButtonValue(target);
  const elements: InteractiveElement[] = [];
  if (!state.untracked) {
    if (!state.acknowledged) {
      elements.push({ type: "button", action_id: ACTION_IDS.ack, text: plain("Acknowledge"), value, style: "primary" });
    }
    if (state.snoozed) {
      elements.push({ type: "button", action_id: ACTION_IDS.unsnooze, text: plain("Unsnooze"), value });
    } else {
      elements.push({
        type: "static_select",
        action_id: ACTION_IDS.snooze,
        placeholder: plain("Snooze"),
        options: snoozeOptions(target),
      });
    }
    if (canStopTracking(target)) {
      elements.push({
        type: "button",
        action_id: ACTION_IDS.untrack,
        text: plain("Stop tracking"),
        value,
        style: "danger",
        confirm: stopTrackingConfirm(target.name),
      });
    }
  }
  elements.push(...urlButtons(links));
  return { type: "actions", block_id: BLOCK_IDS.actions, elements };
}

/**
 * The overflow menu of one person's line in a digest: Acknowledge, Snooze 7/30/90 days, and Stop
 * tracking… for own employees. Menu options cannot carry a confirmation each, so Stop tracking
 * answers with an ephemeral message whose button asks Slack's confirmation (`untrackConfirmBlocks`).
 */
export function digestMenu(target: ActionTarget): InteractiveElement {
  const options: OptionObject[] = [
    { text: plain("Acknowledge"), value: encodeOptionValue("ack", undefined, target) },
    ...snoozeOptions(target),
  ];
  if (canStopTracking(target)) {
    options.push({ text: plain("Stop tracking…"), value: encodeOptionValue("untrack", undefined, target) });
  }
  return { type: "overflow", action_id: ACTION_IDS.digestMenu, options };
}

/**
 * The ephemeral answer to Stop tracking chosen in a digest: the real button, with its confirmation.
 * Its value names the digest (`digestTs`): the ephemeral message is not a post of the daemon's, so
 * its press is checked against the digest's record.
 */
export function untrackConfirmBlocks(target: ActionTarget, digestTs: string): Block[] {
  const who = target.name ?? `employee ${target.employeeId ?? "?"}`;
  return [
    { type: "section", text: { type: "mrkdwn", text: truncate(`Stop tracking ${who}? The seat is released.`, 3000) } },
    {
      type: "actions",
      block_id: BLOCK_IDS.actions,
      elements: [
        {
          type: "button",
          action_id: ACTION_IDS.untrack,
          text: plain("Stop tracking"),
          value: encodeButtonValue(target, digestTs),
          style: "danger",
          confirm: stopTrackingConfirm(target.name),
        },
      ],
    },
  ];
}

/** The URL buttons already on a message (kept as they are when the message is updated). */
export function linksOf(block: unknown): ActionLinks {
  const elements = (block as { elements?: unknown } | undefined)?.elements;
  if (!Array.isArray(elements)) return {};
  let profileUrl: string | undefined;
  let dashboardUrl: string | undefined;
  for (const element of elements as Array<{ action_id?: unknown; url?: unknown }>) {
    if (typeof element.url !== "string") continue;
    if (element.action_id === ACTION_IDS.profile) profileUrl = element.url;
    if (element.action_id === ACTION_IDS.dashboard) dashboardUrl = element.url;
  }
  return { ...(profileUrl ? { profileUrl } : {}), ...(dashboardUrl ? { dashboardUrl } : {}) };
}
