import { z } from "zod";
import { POSTED_NAMESPACE, postedKey } from "../slack/posted-messages.js";
import type { StateStore } from "../store/state-store.js";
import { canStopTracking } from "./action-blocks.js";
import { actionTargetOf, type TargetSource } from "./action-target.js";
import { type ActionTarget, clippedName, compactChangeKey } from "./button-value.js";
import type { ClaimedPress, Press } from "./interaction-payload.js";

/**
 * What the store keeps of a message posted with buttons (`OutboxDraft.postedRecord`, namespace
 * `slack.posted`): the people they act on. A press is resolved from it, never from its payload: a
 * button value is only a claim, and one naming anyone the message did not carry is ignored.
 */
export interface PostedPeople {
  readonly v: 1;
  readonly people: readonly ActionTarget[];
}

/** The record of a message about these alerts (one alert, or the people of one digest message). */
export function postedPeopleOf(sources: readonly TargetSource[]): PostedPeople {
  return {
    v: 1,
    people: sources.map((source) => {
      const target = actionTargetOf(source);
      return target.name === undefined ? target : { ...target, name: clippedName(target.name) };
    }),
  };
}

const targetSchema = z.object({
  lens: z.enum(["retention", "poaching"]),
  organizationId: z.number().int().nonnegative(),
  employeeId: z.number().int().positive().optional(),
  profileUrl: z.string().max(2000).optional(),
  personRef: z.string().min(1).max(80),
  changeKey: z.string().min(1).max(2000),
  name: z.string().max(400).optional(),
});

const recordSchema = z.object({ v: z.literal(1), people: z.array(targetSchema).max(500) });

export type Resolution = { readonly ok: true; readonly press: Press } | { readonly ok: false; readonly reason: string };

/** The recorded person a claim names: same lens, organization, person and employee id; the same change when it can tell. */
function matchClaim(claim: ActionTarget, people: readonly ActionTarget[]): ActionTarget | undefined {
  const same = people.filter(
    (person) =>
      person.lens === claim.lens &&
      person.organizationId === claim.organizationId &&
      person.personRef === claim.personRef &&
      person.employeeId === claim.employeeId,
  );
  return (
    same.find(
      (person) => person.changeKey === claim.changeKey || compactChangeKey(person.changeKey) === claim.changeKey,
    ) ?? same[0]
  );
}

/** Reads the records of posted messages and resolves presses against them. */
export class PostedMessages {
  constructor(
    private readonly store: StateStore,
    /**
     * Resolves once the posts handed to Slack have their records written: a press can come in
     * between Slack's answer and the commit that records the message (`OutboxSender.postsSettled`).
     */
    private readonly postsSettled: () => Promise<void> = async () => undefined,
  ) {}

  /** The people recorded for a message; undefined when this daemon has no record of it (not its post, or expired). */
  async people(channel: string, ts: string): Promise<readonly ActionTarget[] | undefined> {
    const found = await this.read(channel, ts);
    if (found) return found;
    // Not recorded yet, or never: only a post still between Slack and its commit can add it.
    await this.postsSettled();
    return this.read(channel, ts);
  }

  private async read(channel: string, ts: string): Promise<readonly ActionTarget[] | undefined> {
    const raw = await this.store.namespace(POSTED_NAMESPACE).get<unknown>(postedKey(channel, ts));
    if (raw === undefined) return undefined;
    const parsed = recordSchema.safeParse(raw);
    return parsed.success ? parsed.data.people : undefined;
  }

  /**
   * The press acting on the recorded person it names, or why it is not one to apply: no record of
   * the message, a person the message did not carry, or Stop tracking on someone who is not an
   * own employee with an id.
   */
  async resolve(claimed: ClaimedPress): Promise<Resolution> {
    // An ephemeral confirmation was never posted through delivery: it is checked against the message it answers.
    const ts = claimed.ephemeral ? claimed.answersTs : claimed.messageTs;
    if (ts === undefined) return { ok: false, reason: "an ephemeral press that names no message it answers" };
    const people = await this.people(claimed.channel, ts);
    if (!people) return { ok: false, reason: "this daemon has no record of posting that message" };
    const target = matchClaim(claimed.claim, people);
    if (!target) return { ok: false, reason: "the person is not one that message carried" };
    if (claimed.kind === "untrack" && !canStopTracking(target))
      return { ok: false, reason: "Stop tracking is only for own employees with an id" };
    const { claim: _claim, answersTs: _answers, ...press } = claimed;
    return { ok: true, press: { ...press, target } };
  }
}
