import { recordedPlan } from "../slack/plan-buttons.js";
import { POSTED_NAMESPACE, postedKey } from "../slack/posted-messages.js";
import type { JournalEntry } from "./action-journal.js";
import { type AccessRule, authorizeRule } from "./authorize.js";
import { pressTime } from "./interactive-actions.js";
import type { PressOutcome } from "./interactive-events.js";
import { tellPresser } from "./interactive-slack.js";
import { readableUtc } from "./message-update.js";
import { settledPlanMessage } from "./plan-message.js";
import type { PlanPress } from "./plan-press.js";
import type { PressDeps } from "./press-deps.js";

/**
 * The port to the roster flow (wired by the composition root): Review's view of a held plan, and
 * Approve, which claims the plan once and applies it as `reconcile --plan` does.
 */
export interface ReconcileApprovals {
  review(planId: string): Promise<{ readonly text: string; readonly blocks: readonly unknown[] } | undefined>;
  approve(approval: { planId: string; userId: string; userName?: string | undefined; at: string }): Promise<
    | { readonly outcome: "applied"; readonly summary: string }
    | {
        readonly outcome: "taken";
        readonly plan: {
          readonly state: string;
          readonly approval?:
            | { readonly userId: string; readonly at: string; readonly outcome?: string | undefined }
            | undefined;
        };
      }
    | { readonly outcome: "stale"; readonly changes: readonly string[] }
    | { readonly outcome: "unknown" }
    | { readonly outcome: "failed"; readonly detail: string }
  >;
}

export interface PlanApprovalsDeps extends PressDeps {
  /** The held plans; a claim to apply one is written through this port's store. */
  readonly approvals: ReconcileApprovals;
  /** `slack.interactivity.approveReconcile`. */
  readonly rule: AccessRule;
}

/** Said to the presser: who, what. At most this many differences of a stale plan are listed. */
const SHOWN_CHANGES = 15;
const NEXT_RUN = "A new plan comes with the next run.";

/**
 * Review and Approve on a reconcile report holding a plan. A press acts only on the plan recorded
 * for the message pressed (never on the button's value alone). Review answers with a message only
 * the presser sees. Approve: authorized by `approveReconcile` (a refusal is an ephemeral note,
 * journaled) → one journal write → ack → the port applies the plan once (its claim makes a second
 * approval, concurrent or later, on any replica, do nothing more) → the message updated, the
 * journal entry settled.
 */
export class PlanApprovals {
  private readonly now: () => number;
  private readonly receiving = new Set<string>();
  private readonly running = new Set<Promise<PressOutcome>>();

  constructor(private readonly deps: PlanApprovalsDeps) {
    this.now = deps.now ?? Date.now;
  }

  async receive(press: PlanPress, ack: () => Promise<void>): Promise<PressOutcome> {
    const recorded = await this.recordedPlan(press.channel, press.messageTs);
    if (recorded !== press.planId) {
      await ack();
      this.deps.logger.warn(
        { action: press.kind, user: press.userId, channel: press.channel, messageTs: press.messageTs },
        "press ignored: it does not match the plan this daemon posted in that message",
      );
      return this.counted(press, "ignored");
    }
    if (press.kind === "review-plan") {
      await ack();
      const view = await this.deps.approvals.review(press.planId);
      if (view) await this.tell(press, view.text, view.blocks);
      else await this.tell(press, `No plan ${press.planId} is kept any more (plans are kept 90 days). ${NEXT_RUN}`);
      return this.counted(press, "applied");
    }
    if (this.receiving.has(press.id)) {
      await ack();
      return this.counted(press, "duplicate");
    }
    this.receiving.add(press.id);
    try {
      return await this.receiveApproval(press, ack);
    } finally {
      this.receiving.delete(press.id);
    }
  }

  /** Approvals journaled but not settled when the daemon stopped: the claim tells whether one still applies. */
  async recover(): Promise<number> {
    const pending = await this.deps.journal.pendingApprovals();
    for (const entry of pending) await this.approve(entry);
    return pending.length;
  }

  /** Resolves once the approvals being applied are done. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private async receiveApproval(press: PlanPress, ack: () => Promise<void>): Promise<PressOutcome> {
    const { journal, rule } = this.deps;
    if (await journal.get(press.id)) {
      await ack();
      return this.counted(press, "duplicate");
    }
    const members = await this.deps.usergroups.members(rule.allowedUsergroups);
    const decision = authorizeRule(rule, "approve reconcile plans", press.userId, members);
    const journaledAt = new Date(this.now()).toISOString();
    if (!decision.allowed) {
      await journal.put({ id: press.id, press, outcome: "refused", journaledAt, detail: "not allowed" });
      await ack();
      this.deps.logger.info({ plan: press.planId, user: press.userId }, "approval refused: the user is not allowed");
      await this.tell(press, decision.message);
      return this.counted(press, "refused");
    }
    const entry: JournalEntry<PlanPress> = { id: press.id, press, outcome: "pending", journaledAt };
    await journal.put(entry);
    await ack();
    return this.approve(entry);
  }

  private approve(entry: JournalEntry<PlanPress>): Promise<PressOutcome> {
    const running = this.approveOnce(entry).finally(() => this.running.delete(running));
    this.running.add(running);
    return running;
  }

  private async approveOnce(entry: JournalEntry<PlanPress>): Promise<PressOutcome> {
    const { press } = entry;
    const at = pressTime(press, Date.parse(entry.journaledAt));
    const by = `<@${press.userId}>`;
    const plan = `Plan ${press.planId}`;
    const answer = await this.deps.approvals
      .approve({ planId: press.planId, userId: press.userId, userName: press.userName, at })
      .catch((error: unknown) => ({ outcome: "failed" as const, detail: (error as Error).message ?? String(error) }));
    const settle = (outcome: "applied" | "refused" | "failed", detail: string) =>
      this.deps.journal.put({ ...entry, outcome, appliedAt: new Date(this.now()).toISOString(), detail });
    switch (answer.outcome) {
      case "applied":
        await this.mark(press, `:white_check_mark: ${plan} approved by ${by} at ${readableUtc(at)}: ${answer.summary}`);
        await settle("applied", `plan ${press.planId}: ${answer.summary}`);
        this.deps.logger.info({ plan: press.planId, user: press.userId, summary: answer.summary }, "plan approved");
        return this.counted(press, "applied");
      case "taken": {
        const first = answer.plan.approval;
        const when = first ? ` by <@${first.userId}> at ${readableUtc(first.at)}` : "";
        const outcome = first?.outcome ? `: ${first.outcome.split("\n")[0]}` : "";
        await settle("refused", `plan ${press.planId} already approved${first ? ` by ${first.userId}` : ""}`);
        await this.tell(
          press,
          `${plan} was already approved${when} (${answer.plan.state}${outcome}). Nothing more was done.`,
        );
        return this.counted(press, "duplicate");
      }
      case "stale": {
        await this.mark(
          press,
          `:x: ${plan} approved by ${by} at ${readableUtc(at)} was not applied: it is stale and nothing was changed. ${NEXT_RUN}`,
        );
        await settle("refused", `plan ${press.planId} stale: ${answer.changes[0] ?? "the inputs changed"}`);
        const shown = answer.changes.slice(0, SHOWN_CHANGES);
        const more =
          answer.changes.length > shown.length ? `\n...and ${answer.changes.length - shown.length} more` : "";
        await this.tell(
          press,
          `${plan} is stale, nothing was changed. What changed since it was held:\n${shown.join("\n")}${more}\n${NEXT_RUN}`,
        );
        return this.counted(press, "refused");
      }
      case "unknown":
        await settle("refused", `plan ${press.planId} is not kept`);
        await this.tell(press, `No plan ${press.planId} is kept any more (plans are kept 90 days). ${NEXT_RUN}`);
        return this.counted(press, "refused");
      case "failed":
        await this.mark(
          press,
          `:x: ${plan} approved by ${by} at ${readableUtc(at)} could not be applied: ${answer.detail.slice(0, 300)}. ${NEXT_RUN}`,
        );
        await settle("failed", `plan ${press.planId}: ${answer.detail}`).catch(() => undefined);
        await this.tell(press, `${plan} could not be applied: ${answer.detail.slice(0, 300)}. ${NEXT_RUN}`);
        return this.counted(press, "failed");
    }
  }

  private counted(press: PlanPress, outcome: PressOutcome): PressOutcome {
    this.deps.events?.emit("press", { kind: press.kind, outcome });
    return outcome;
  }

  /** The plan recorded for a posted message (waiting for posts between Slack's answer and their record). */
  private async recordedPlan(channel: string, ts: string): Promise<string | undefined> {
    const read = async () =>
      recordedPlan(await this.deps.store.namespace(POSTED_NAMESPACE).get<unknown>(postedKey(channel, ts)));
    const found = await read();
    if (found !== undefined) return found;
    await this.deps.postsSettled?.();
    return read();
  }

  /** The ops post's buttons replaced by a line saying how the plan ended. */
  private async mark(press: PlanPress, line: string): Promise<void> {
    if (!press.message) return;
    const next = settledPlanMessage(press.message, line);
    await this.deps.slack
      .updateMessage({ channel: press.channel, ts: press.messageTs, text: next.text, blocks: next.blocks })
      .catch((error: unknown) =>
        this.deps.logger.warn({ err: error, channel: press.channel }, "the message could not be updated (chat.update)"),
      );
  }

  private tell(press: PlanPress, text: string, blocks?: readonly unknown[]): Promise<void> {
    return tellPresser(this.deps.slack, this.deps.logger, press, text, blocks);
  }
}
