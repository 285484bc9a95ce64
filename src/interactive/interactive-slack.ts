import type { ChatPostEphemeralArguments, ChatUpdateArguments, WebClient } from "@slack/web-api";
import type { Logger } from "../logger.js";

/** The Slack calls the buttons need beyond delivery's posts. */
export interface InteractiveSlack {
  /** chat.update of a message the daemon posted. */
  updateMessage(input: { channel: string; ts: string; text: string; blocks: readonly unknown[] }): Promise<void>;
  /** chat.postEphemeral: a note only `user` sees (refusals, digest confirmations). */
  postEphemeral(input: {
    channel: string;
    user: string;
    text: string;
    blocks?: readonly unknown[] | undefined;
    threadTs?: string | undefined;
  }): Promise<void>;
  /** usergroups.users.list */
  usergroupMembers(usergroup: string): Promise<string[]>;
}

/**
 * An ephemeral note to the presser, in the thread of the message pressed. A note Slack refuses is
 * logged, never thrown: it comes after the press was decided and must not undo it.
 */
export async function tellPresser(
  slack: InteractiveSlack,
  logger: Logger,
  press: { readonly channel: string; readonly userId: string; readonly threadTs?: string | undefined },
  text: string,
  blocks?: readonly unknown[],
): Promise<void> {
  await slack
    .postEphemeral({ channel: press.channel, user: press.userId, text, blocks, threadTs: press.threadTs })
    .catch((error: unknown) =>
      logger.warn({ err: error, channel: press.channel }, "could not post an ephemeral note (chat.postEphemeral)"),
    );
}

/** Over the daemon's one WebClient (its errors are the SDK's coded errors). */
export function webClientInteractiveSlack(client: WebClient): InteractiveSlack {
  return {
    async updateMessage(input) {
      // Blocks are Slack's own JSON handed back (from the payload) or ours; the SDK's union type cannot see that.
      await client.chat.update({
        channel: input.channel,
        ts: input.ts,
        text: input.text,
        blocks: input.blocks,
      } as unknown as ChatUpdateArguments);
    },
    async postEphemeral(input) {
      await client.chat.postEphemeral({
        channel: input.channel,
        user: input.user,
        text: input.text,
        ...(input.blocks ? { blocks: input.blocks } : {}),
        ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
      } as unknown as ChatPostEphemeralArguments);
    },
    async usergroupMembers(usergroup) {
      const result = await client.usergroups.users.list({ usergroup });
      return (result.users ?? []).filter((user): user is string => typeof user === "string");
    },
  };
}
