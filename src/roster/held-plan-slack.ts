import { PLAN_ACTION_IDS, PLAN_BLOCK_IDS } from "../slack/plan-buttons.js";
import type { Block, MrkdwnObject } from "../slack/slack-message.js";
import { escapeMrkdwn, singleLine } from "../slack/slack-text.js";
import type { SlackApproval } from "./plan-types.js";
import type { HeldPlanSummary } from "./report.js";
import { heldPlanWords } from "./report-text.js";

/**
 * The parts of the ops post about approving in Slack: the plan held with its Review and Approve
 * buttons (their value is only a claim: a press acts on the plan recorded for the message), and
 * the approver named in the report of the apply.
 */

const plain = (text: string) => ({ type: "plain_text" as const, text });

/** The held plan in words, and its two buttons; Approve asks Slack's confirmation first. */
export function heldPlanBlocks(held: HeldPlanSummary): Block[] {
  const words = escapeMrkdwn(heldPlanWords(held));
  const text: MrkdwnObject = {
    type: "mrkdwn",
    text:
      `*Plan ${held.id} waits for approval:* ${words}.\n` +
      "*Review* shows you every person of it; *Approve* applies exactly this plan if nothing changed since " +
      "(only for the people in `slack.interactivity.approveReconcile`).",
    verbatim: true,
  };
  return [
    { type: "section", text },
    {
      type: "actions",
      block_id: PLAN_BLOCK_IDS.actions,
      elements: [
        { type: "button", action_id: PLAN_ACTION_IDS.review, text: plain("Review"), value: held.id },
        {
          type: "button",
          action_id: PLAN_ACTION_IDS.approve,
          text: plain("Approve"),
          style: "primary",
          value: held.id,
          confirm: {
            title: plain("Approve this plan?"),
            text: plain(`Plan ${held.id}: ${singleLine(heldPlanWords(held)).slice(0, 250)}. It is applied now.`),
            confirm: plain("Approve"),
            deny: plain("Cancel"),
          },
        },
      ],
    },
  ];
}

/** `Plan 3f9a1c2e approved in Slack by @carol at 2026-11-24 07:30 UTC`: a mention, so it renders. */
export function approvedInSlackBlock(approval: SlackApproval): Block {
  const at = `${approval.at.slice(0, 16).replace("T", " ")} UTC`;
  return {
    type: "section",
    text: {
      type: "mrkdwn",
      text:
        `*Plan ${approval.planId} approved in Slack by <@${approval.userId}>* at ${at}: the mass-archive guard, ` +
        "`roster.maxSeats` and `roster.maxMonthlyUsd` were lifted for this plan's steps only",
    },
  };
}
