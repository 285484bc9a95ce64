import type { Block, SlackMessage } from "../slack/slack-message.js";
import type { HeldPlan } from "./held-plans.js";
import { plannedCounts, reportSteps } from "./report.js";
import { codeSection, slackCodeText } from "./report-slack.js";
import { deferredLine, heldPlanWords, stepSections } from "./report-text.js";

/**
 * What Review answers (a message only the presser sees): the held plan as `reconcile --dry-run`
 * names it, every person by change with the reason, the seat and cost delta, what stays deferred,
 * and where the plan stands. Each list is cut to Slack's limits with a count of the rest.
 */

/** After the people a section's 3,000 characters hold: the count of the rest. */
const MORE = " (not shown here)";

const STATE_WORDS: Readonly<Record<HeldPlan["state"], string>> = {
  held: "waits for approval",
  applying: "being applied",
  applied: "applied",
  stale: "not applied: it was stale",
  failed: "not applied: the apply failed",
};

function standing(plan: HeldPlan): string {
  const a = plan.approval;
  const by = a ? ` (approved by <@${a.userId}> at ${a.at.slice(0, 16).replace("T", " ")} UTC)` : "";
  return `${STATE_WORDS[plan.state]}${by}`;
}

export function renderHeldPlanReview(held: HeldPlan): SlackMessage {
  const planned = plannedCounts({ steps: held.plan.steps });
  const summary = heldPlanWords({
    id: held.id,
    planned,
    deferred: held.deferred.length,
    seatDelta: held.seatDelta,
    monthlyCostDeltaUsd: held.monthlyCostDeltaUsd,
    lifts: held.lifts,
  });
  const title = `Plan ${held.id}, held ${held.heldAt.slice(0, 16).replace("T", " ")} UTC: ${standing(held)}`;
  const blocks: Block[] = [
    { type: "section", text: { type: "mrkdwn", text: `*${title}*\n${slackCodeText(summary)}`, verbatim: true } },
  ];
  // Every line goes to the section, which keeps what fits and counts the rest.
  for (const section of stepSections(reportSteps(held.plan.steps), Number.POSITIVE_INFINITY)) {
    blocks.push(codeSection(`${section.kind} (${planned[section.kind]})`, section.lines, MORE));
  }
  if (held.deferred.length > 0) {
    const title = `Still deferred, not in the plan (${held.deferred.length})`;
    blocks.push(codeSection(title, held.deferred.map(deferredLine), MORE));
  }
  return { text: title, blocks: blocks.slice(0, 50) };
}
