import type { ObservedPart } from "../observed-part.js";
import type { StateStore } from "../store/state-store.js";
import type { ActionJournal } from "./action-journal.js";
import type { InteractiveEvents } from "./interactive-events.js";
import type { InteractiveSlack } from "./interactive-slack.js";
import type { UsergroupCache } from "./usergroup-cache.js";

/**
 * What every handler of a button press works with, on alerts and on reconcile plans alike; its
 * events tell how each press ended.
 */
export interface PressDeps extends ObservedPart<InteractiveEvents, number> {
  /** The store the journal and the state it changes are written to (the leader's fenced view). */
  readonly store: StateStore;
  readonly journal: ActionJournal;
  readonly slack: InteractiveSlack;
  readonly usergroups: UsergroupCache;
  /** Resolves once every post handed to Slack has its record written (`OutboxSender.postsSettled`); none: nothing to wait for. */
  readonly postsSettled?: (() => Promise<void>) | undefined;
}
