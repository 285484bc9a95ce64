import type { EmployeePatch } from "../api/request-types.js";
import type { Employee } from "../api/spec-records.js";
import { SlackActionError } from "../errors.js";
import { canonicalProfileUrl } from "../roster/canonical-profile-url.js";
import { keepUntracked } from "../roster/kept-untracked.js";
import type { StoreScope } from "../store/state-store.js";
import { untrackConfirmBlocks } from "./action-blocks.js";
import { isPersonEntry, type JournalEntry } from "./action-journal.js";
import { type AccessPolicy, authorize, groupsFor } from "./authorize.js";
import { type Press, parseInteraction } from "./interaction-payload.js";
import type { PressOutcome } from "./interactive-events.js";
import { tellPresser } from "./interactive-slack.js";
import { type AppliedAction, updatedMessage } from "./message-update.js";
import { PersonMarks } from "./person-marks.js";
import { type PlanPress, parsePlanPress } from "./plan-press.js";
import { PostedMessages } from "./posted-people.js";
import type { PressDeps } from "./press-deps.js";

export interface InteractiveActionsDeps extends PressDeps {
  /** PATCH /employees/{id} (Stop tracking): a write key. */
  readonly client: { updateEmployee(id: number, patch: EmployeePatch): Promise<Employee> };
  readonly policy: AccessPolicy;
  /** Review and Approve of a reconcile plan held for a person (`PlanApprovals`); absent: such presses are ignored. */
  readonly plans?: { receive(press: PlanPress, ack: () => Promise<void>): Promise<PressOutcome> } | undefined;
  /** Test seam: runs after the press is journaled and acked, before anything is applied (the crash window). */
  readonly beforeApply?: ((entry: JournalEntry) => Promise<void> | void) | undefined;
}

/** Slack's action time (seconds with a fraction) as ISO; the journal time when it is not one. */
export function pressTime(press: Pick<Press, "actionTs">, fallbackMs: number): string {
  const seconds = Number(press.actionTs);
  return new Date(Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : fallbackMs).toISOString();
}

const DAY_MS = 86_400_000;

/**
 * The button presses: parse → resolve against the record of the message (a press naming anyone it
 * did not carry is acked and ignored) → authorize (a refusal is an ephemeral note, journaled) → one
 * durable journal write → ack → apply (the API, the person's marks, chat.update) → marked applied
 * in the transaction of the state it changes. A duplicate of a journaled press is acked and
 * dropped; a press journaled but not applied (a crash) is applied by `recover` at the next start.
 */
export class InteractiveActions {
  private readonly now: () => number;
  private readonly inflight = new Set<string>();
  private readonly running = new Set<Promise<PressOutcome>>();
  /** Presses between their first look at the journal and their journal write: a copy arriving then is a duplicate. */
  private readonly receiving = new Set<string>();

  /** What this daemon posted: a press acts only on a person recorded for the message pressed. */
  private readonly posted: PostedMessages;

  constructor(private readonly deps: InteractiveActionsDeps) {
    this.now = deps.now ?? Date.now;
    this.posted = new PostedMessages(deps.store, deps.postsSettled);
  }

  /** One interactive envelope's payload; `ack` answers Slack (called once, as early as it is safe). */
  async receive(body: unknown, ack: () => Promise<void>): Promise<PressOutcome> {
    const { logger } = this.deps;
    const planPress = parsePlanPress(body);
    if (planPress) {
      if (this.deps.plans) return this.deps.plans.receive(planPress, ack);
      await ack();
      logger.warn({ action: planPress.kind, user: planPress.userId }, "press ignored: reconcile approvals are off");
      this.deps.events?.emit("press", { kind: planPress.kind, outcome: "ignored" });
      return "ignored";
    }
    const parsed = parseInteraction(body);
    if (!parsed.ok) {
      await ack();
      logger.info({ reason: parsed.reason, user: parsed.userId }, "interactive payload ignored: not a press of ours");
      this.deps.events?.emit("press", { kind: "none", outcome: "ignored" });
      return "ignored";
    }
    const resolved = await this.posted.resolve(parsed.press);
    if (!resolved.ok) {
      await ack();
      const { kind, userId, channel, messageTs } = parsed.press;
      logger.warn(
        { action: kind, user: userId, channel, messageTs, reason: resolved.reason },
        "press ignored: it does not match what this daemon posted in that message",
      );
      this.deps.events?.emit("press", { kind, outcome: "ignored" });
      return "ignored";
    }
    const { press } = resolved;
    if (this.receiving.has(press.id)) {
      await ack();
      this.deps.events?.emit("press", { kind: press.kind, outcome: "duplicate" });
      return "duplicate";
    }
    this.receiving.add(press.id);
    try {
      return await this.receiveOnce(press, ack);
    } finally {
      this.receiving.delete(press.id);
    }
  }

  private async receiveOnce(press: Press, ack: () => Promise<void>): Promise<PressOutcome> {
    const { logger, journal } = this.deps;
    const known = await journal.get(press.id);
    if (known) {
      await ack();
      logger.info(
        { action: press.kind, id: press.id, outcome: known.outcome },
        "duplicate press (Slack resent it): not applied again",
      );
      this.deps.events?.emit("press", { kind: press.kind, outcome: "duplicate" });
      if (known.outcome === "pending" && isPersonEntry(known) && !this.inflight.has(known.id)) return this.apply(known);
      return "duplicate";
    }
    const members = await this.deps.usergroups.members(groupsFor(press.kind, this.deps.policy));
    const decision = authorize(press.kind, press.userId, this.deps.policy, members);
    const journaledAt = new Date(this.now()).toISOString();
    if (!decision.allowed) {
      await journal.put({ id: press.id, press, outcome: "refused", journaledAt, detail: "not allowed" });
      await ack();
      logger.info({ action: press.kind, user: press.userId, id: press.id }, "press refused: the user is not allowed");
      this.deps.events?.emit("press", { kind: press.kind, outcome: "refused" });
      await this.tell(press, decision.message);
      return "refused";
    }
    if (press.kind === "untrack" && press.fromDigest) {
      // A menu option cannot ask Slack's confirmation: the answer is the real button, which does.
      await ack();
      await this.tell(
        press,
        `Stop tracking ${press.target.name ?? "this person"}?`,
        untrackConfirmBlocks(press.target, press.messageTs),
      );
      return "ignored";
    }
    const entry: JournalEntry = { id: press.id, press, outcome: "pending", journaledAt };
    await journal.put(entry);
    await ack();
    return this.apply(entry);
  }

  /** Applies every press journaled but not applied (a crash between the ack and the apply). */
  async recover(): Promise<number> {
    const pending = await this.deps.journal.pending();
    for (const entry of pending) {
      if (this.inflight.has(entry.id)) continue;
      this.deps.logger.warn({ action: entry.press.kind, id: entry.id }, "applying a press journaled before a restart");
      await this.apply(entry);
    }
    return pending.length;
  }

  /** Resolves once the presses being applied are done (shutdown waits for them; a later one is recovered). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private apply(entry: JournalEntry): Promise<PressOutcome> {
    const running = this.applyOnce(entry).finally(() => this.running.delete(running));
    this.running.add(running);
    return running;
  }

  private async applyOnce(entry: JournalEntry): Promise<PressOutcome> {
    this.inflight.add(entry.id);
    const { press } = entry;
    try {
      await this.deps.beforeApply?.(entry);
      const at = pressTime(press, Date.parse(entry.journaledAt));
      const done = await this.effect(entry, at);
      const action: AppliedAction = { kind: press.kind, userId: press.userId, at, until: done.until };
      await this.showOnMessage(press, action);
      await this.deps.store.transaction(async (scope) => {
        await done.write(scope);
        await this.deps.journal.put(
          { ...entry, outcome: "applied", appliedAt: new Date(this.now()).toISOString(), detail: done.detail },
          scope,
        );
      });
      this.deps.logger.info(
        {
          action: press.kind,
          user: press.userId,
          person: press.target.personRef,
          change: press.target.changeKey,
          detail: done.detail,
        },
        "press applied",
      );
      this.deps.events?.emit("press", { kind: press.kind, outcome: "applied" });
      return "applied";
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      this.deps.logger.warn({ err: error, action: press.kind, id: entry.id }, "press could not be applied");
      await this.deps.journal.put({ ...entry, outcome: "failed", detail }).catch(() => undefined);
      this.deps.events?.emit("press", { kind: press.kind, outcome: "failed" });
      await this.tell(press, `Sorry, that did not work: ${detail.slice(0, 300)}. Nothing was changed; try again.`);
      return "failed";
    } finally {
      this.inflight.delete(entry.id);
    }
  }

  /** The change outside the store (the API for Stop tracking) and the store writes that go with the journal mark. */
  private async effect(
    entry: JournalEntry,
    at: string,
  ): Promise<{ detail: string; until?: string; write: (scope: StoreScope) => Promise<void> }> {
    const { press } = entry;
    const ref = press.target.personRef;
    switch (press.kind) {
      case "ack":
        return {
          detail: "acknowledged",
          write: (scope) => PersonMarks.acknowledge(scope, ref, { by: press.userId, at }),
        };
      case "snooze": {
        const until = new Date(Date.parse(at) + (press.days ?? 7) * DAY_MS).toISOString();
        return {
          detail: `snoozed until ${until}`,
          until,
          write: (scope) => PersonMarks.snooze(scope, ref, { by: press.userId, at, until }, this.now()),
        };
      }
      case "unsnooze":
        return { detail: "unsnoozed", write: (scope) => PersonMarks.unsnooze(scope, ref) };
      case "untrack": {
        const employeeId = press.target.employeeId;
        if (employeeId === undefined) throw new SlackActionError("the alert carries no employee id to stop tracking");
        // Idempotent on the service: sending it again after a crash leaves the person untracked once.
        const employee = await this.deps.client.updateEmployee(employeeId, { tracked: false });
        const canonical = canonicalProfileUrl(press.target.profileUrl ?? employee.networkUrl);
        return {
          detail: `tracked:false on employee ${employeeId}${canonical.ok ? "" : " (no profile URL: reconcile cannot hold them)"}`,
          write: async (scope) => {
            if (canonical.ok)
              await keepUntracked(scope, canonical.url, { employeeId, stoppedBy: press.userId, stoppedAt: at });
          },
        };
      }
    }
  }

  /** chat.update of the pressed message; a digest or an ephemeral message gets an ephemeral note instead. */
  private async showOnMessage(press: Press, action: AppliedAction): Promise<void> {
    if (press.message && !press.fromDigest) {
      const next = updatedMessage(press.message, press.target, action);
      await this.deps.slack
        .updateMessage({ channel: press.channel, ts: press.messageTs, text: next.text, blocks: next.blocks })
        .catch((error: unknown) =>
          this.deps.logger.warn(
            { err: error, channel: press.channel },
            "the message could not be updated (chat.update); the action stands",
          ),
        );
      return;
    }
    const who = press.target.name ?? "this person";
    const said: Record<AppliedAction["kind"], string> = {
      ack: `Acknowledged ${who}.`,
      snooze: `Snoozed ${who} until ${action.until ?? ""}.`,
      unsnooze: `Unsnoozed ${who}.`,
      untrack: `Stopped tracking ${who}; the seat is released.`,
    };
    await this.tell(press, said[action.kind]);
  }

  private tell(press: Press, text: string, blocks?: readonly unknown[]): Promise<void> {
    return tellPresser(this.deps.slack, this.deps.logger, press, text, blocks);
  }
}
