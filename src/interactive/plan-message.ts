import { PLAN_BLOCK_IDS } from "../slack/plan-buttons.js";
import type { CurrentMessage, UpdatedMessage } from "./message-update.js";

/**
 * The ops post once its plan is settled: the Review and Approve buttons replaced by one context
 * line saying who approved, when, and what came of it. Everything else is kept as Slack holds it;
 * settling twice gives the same message.
 */
export function settledPlanMessage(current: CurrentMessage, line: string): UpdatedMessage {
  const blockId = (block: unknown) => (block as { block_id?: unknown } | null)?.block_id;
  const kept = current.blocks.filter((block) => {
    const id = blockId(block);
    return id !== PLAN_BLOCK_IDS.actions && id !== PLAN_BLOCK_IDS.mark;
  });
  const mark = { type: "context", block_id: PLAN_BLOCK_IDS.mark, elements: [{ type: "mrkdwn", text: line }] };
  return { text: current.text, blocks: [...kept, mark] };
}
