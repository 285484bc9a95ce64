import type { WebClient } from "@slack/web-api";
import type { Logger } from "../logger.js";
import type { StateStore } from "../store/state-store.js";
import { ActionJournal } from "./action-journal.js";
import { slackInteractivityHandler } from "./http-endpoint.js";
import { InteractiveActions, type InteractiveActionsDeps } from "./interactive-actions.js";
import type { InteractiveEvents } from "./interactive-events.js";
import type { InteractivitySettings } from "./interactive-settings.js";
import { webClientInteractiveSlack } from "./interactive-slack.js";
import { PlanApprovals, type ReconcileApprovals } from "./plan-approvals.js";
import { type SocketTransport, socketModeTransport } from "./socket-transport.js";
import { UsergroupCache, usergroupKvCache } from "./usergroup-cache.js";

export interface InteractivityWiring {
  readonly settings: InteractivitySettings;
  /** The leader's fenced store view. */
  readonly store: StateStore;
  readonly slack: WebClient;
  readonly slackApiUrl: string;
  readonly client: InteractiveActionsDeps["client"];
  readonly logger: Logger;
  /** Where the presses and the connection tell what happened (the daemon's observer subscribes first). */
  readonly events?: InteractiveEvents | undefined;
  readonly beforeApply?: InteractiveActionsDeps["beforeApply"];
  /** Delivery's posts between Slack's answer and the commit that records them (`OutboxSender.postsSettled`). */
  readonly postsSettled?: InteractiveActionsDeps["postsSettled"];
  /** Review and Approve of reconcile plans held for a person; absent (reconcile off): their presses are ignored. */
  readonly approvals?: ReconcileApprovals | undefined;
  /** HTTP mode: whether this replica leads (only the leader applies presses). */
  readonly leading?: (() => boolean) | undefined;
}

export interface Interactivity {
  readonly actions: InteractiveActions;
  /** Socket Mode only: the connection, opened while this daemon leads. */
  readonly transport: SocketTransport | undefined;
  /** What the leader runs each term: apply presses a crash left, then open the socket. */
  readonly leaderService: { readonly name: string; start(): Promise<void>; stop(): Promise<void> };
  /** HTTP mode only: the ops server route (`slack.interactivity.path`) and its handler. */
  readonly httpRoute:
    | { readonly path: string; readonly handler: ReturnType<typeof slackInteractivityHandler> }
    | undefined;
  /** Closes the user-group cache's file; after the daemon stopped (no press is being applied). */
  close(): Promise<void>;
}

/** The buttons' machinery from the settings: the actions, and in Socket Mode the connection. */
export function createInteractivity(wiring: InteractivityWiring): Interactivity {
  const logger = wiring.logger.child({ component: "slack-actions" });
  const slack = webClientInteractiveSlack(wiring.slack);
  const journal = new ActionJournal(wiring.store);
  const usergroups = new UsergroupCache(
    (group) => slack.usergroupMembers(group),
    logger,
    usergroupKvCache(wiring.store.location, logger),
  );
  const plans = wiring.approvals
    ? new PlanApprovals({
        store: wiring.store,
        journal,
        slack,
        approvals: wiring.approvals,
        rule: wiring.settings.policy.approveReconcile,
        usergroups,
        logger,
        events: wiring.events,
        postsSettled: wiring.postsSettled,
      })
    : undefined;
  const actions = new InteractiveActions({
    store: wiring.store,
    journal,
    slack,
    client: wiring.client,
    policy: wiring.settings.policy,
    usergroups,
    plans,
    logger,
    events: wiring.events,
    beforeApply: wiring.beforeApply,
    postsSettled: wiring.postsSettled,
  });
  const { appToken } = wiring.settings;
  const transport =
    wiring.settings.mode === "socket" && appToken
      ? socketModeTransport({
          appToken,
          apiUrl: wiring.slackApiUrl,
          logger,
          onInteractive: (body, ack) => actions.receive(body, ack),
          onState: (state) => wiring.events?.emit("socket-state", { state }),
        })
      : undefined;
  const { signingSecret } = wiring.settings;
  const httpRoute =
    wiring.settings.mode === "http" && signingSecret
      ? {
          path: wiring.settings.path,
          handler: slackInteractivityHandler({
            signingSecret,
            logger,
            leading: wiring.leading ?? (() => true),
            receive: (body, ack) => actions.receive(body, ack),
          }),
        }
      : undefined;
  return {
    actions,
    transport,
    httpRoute,
    close: () => usergroups.close(),
    leaderService: {
      name: "slack-interactivity",
      async start() {
        const recovered = await actions.recover().catch((error: unknown) => {
          logger.error({ err: error }, "presses journaled before a restart could not be applied; they stay pending");
          return 0;
        });
        if (recovered > 0) logger.info({ recovered }, "presses journaled before a restart were applied");
        // Approvals the last term journaled but did not settle: each plan's claim decides (applied at most once).
        const approvals = await (plans?.recover() ?? Promise.resolve(0)).catch((error: unknown) => {
          logger.error({ err: error }, "approvals journaled before a restart could not be settled; they stay pending");
          return 0;
        });
        if (approvals > 0) logger.info({ approvals }, "plan approvals journaled before a restart were settled");
        await transport?.start();
      },
      async stop() {
        // No new press after this; the ones being applied finish under this term (their writes are fenced).
        await transport?.stop();
        await actions.idle();
        await plans?.idle();
      },
    },
  };
}
