import { createHash } from "node:crypto";
import { type FakeSlackAnswer, type FakeSlackChannel, type FakeSlackMessage, failAnswer } from "./fake-slack-types.js";

/**
 * The fake Slack's own Web API methods (chat.postMessage, conversations.*, users.lookupByEmail,
 * auth.test): the answer to one call made with the bot token. The server does the wire, the auth
 * and the injected failures; the interactivity side answers the methods not listed here.
 */

export const BOT_USER_ID = "UBOT000001";
const MAX_TEXT = 40_000;

/** What the methods read and change: the server's workspace. */
export interface FakeSlackWorkspace {
  readonly channels: Map<string, FakeSlackChannel>;
  /** email -> user id. */
  readonly users: Map<string, string>;
  /** Every email is a member (the sandbox): `FakeSlackOptions.openWorkspace`. */
  readonly openWorkspace: boolean;
  /** A channel by id, or also by name or #name when `allowNames`. */
  resolve(ref: string, allowNames: boolean): FakeSlackChannel | undefined;
  /** Channel names or ids to create before conversations.list answers. */
  knownChannels(): Iterable<string>;
  ensureChannel(ref: string): void;
  nextTs(): string;
  addMessage(message: FakeSlackMessage): void;
  /** Any other method (interactivity's), or undefined when unknown. */
  otherMethod(method: string, args: Record<string, unknown>): FakeSlackAnswer | undefined;
}

/** A stable user id for an email the open workspace has not seen (Slack ids are upper-case). */
const openUserId = (email: string) => `U${createHash("sha256").update(email).digest("hex").slice(0, 10).toUpperCase()}`;
const channelJson = (c: FakeSlackChannel) => ({
  id: c.id,
  name: c.name,
  is_channel: !c.isPrivate,
  is_group: c.isPrivate,
  is_private: c.isPrivate,
  is_member: c.isMember,
  is_archived: false,
});

/** The answer to `method`, called with the bot token. */
export function answerWebApi(
  world: FakeSlackWorkspace,
  method: string,
  args: Record<string, unknown>,
): FakeSlackAnswer {
  const str = (name: string) => (typeof args[name] === "string" ? (args[name] as string) : undefined);
  switch (method) {
    case "api.test":
      return { status: 200, body: { ok: true, args } };
    case "auth.test":
      return {
        status: 200,
        body: {
          ok: true,
          url: "https://fake-workspace.slack.com/",
          team: "Fake Workspace",
          user: "retention-sync",
          team_id: "TFAKE0001",
          user_id: BOT_USER_ID,
          bot_id: "BFAKE0001",
        },
      };
    case "chat.postMessage": {
      const ref = str("channel");
      if (!ref) return failAnswer("channel_not_found");
      const text = str("text");
      if (text === undefined && args.blocks === undefined && args.attachments === undefined)
        return failAnswer("no_text");
      if (text !== undefined && text.length > MAX_TEXT) return failAnswer("msg_too_long");
      if (Array.isArray(args.blocks) && args.blocks.length > 50) return failAnswer("invalid_blocks");
      let channelId: string;
      let channelName: string | undefined;
      if (/^[DU]/.test(ref) && !world.resolve(ref, false)) {
        channelId = ref.startsWith("U") ? `D${ref.slice(1)}` : ref; // a DM
      } else {
        const channel = world.resolve(ref, true);
        if (!channel) return failAnswer("channel_not_found");
        if (!channel.isMember) return failAnswer("not_in_channel");
        channelId = channel.id;
        channelName = channel.name;
      }
      const ts = world.nextTs();
      const threadTs = str("thread_ts");
      const message: FakeSlackMessage = {
        channel: channelId,
        ts,
        args,
        ...(channelName !== undefined ? { channelName } : {}),
        ...(threadTs !== undefined ? { threadTs } : {}),
        ...(text !== undefined ? { text } : {}),
        ...(args.blocks !== undefined ? { blocks: args.blocks } : {}),
      };
      world.addMessage(message);
      return {
        status: 200,
        body: {
          ok: true,
          channel: channelId,
          ts,
          message: { type: "message", text: text ?? "", ts, bot_id: "BFAKE0001", thread_ts: threadTs },
        },
      };
    }
    case "conversations.info": {
      const channel = world.resolve(str("channel") ?? "", false);
      return channel
        ? { status: 200, body: { ok: true, channel: channelJson(channel) } }
        : failAnswer("channel_not_found");
    }
    case "conversations.list": {
      for (const ref of world.knownChannels()) world.ensureChannel(ref);
      const limit = Math.min(Math.max(Number(args.limit ?? 100) || 100, 1), 1000);
      const start = Number(str("cursor") ?? "0") || 0;
      const all = [...world.channels.values()];
      const page = all.slice(start, start + limit);
      const next = start + limit < all.length ? String(start + limit) : "";
      return {
        status: 200,
        body: { ok: true, channels: page.map(channelJson), response_metadata: { next_cursor: next } },
      };
    }
    case "conversations.open": {
      const ids = (str("users") ?? "").split(",").filter(Boolean);
      if (ids.length === 0) return failAnswer("users_list_not_supplied");
      if (!ids.every((id) => [...world.users.values()].includes(id))) return failAnswer("user_not_found");
      return { status: 200, body: { ok: true, channel: { id: `D${ids.join("").replace(/^U/, "")}` } } };
    }
    case "users.lookupByEmail": {
      const email = str("email")?.toLowerCase();
      if (email && world.openWorkspace && !world.users.has(email)) world.users.set(email, openUserId(email));
      const id = email ? world.users.get(email) : undefined;
      return id
        ? { status: 200, body: { ok: true, user: { id, name: email?.split("@")[0], profile: { email } } } }
        : failAnswer("users_not_found");
    }
    case "apps.connections.open":
      return failAnswer("not_allowed_token_type");
    default:
      return world.otherMethod(method, args) ?? { status: 404, body: { ok: false, error: "unknown_method" } };
  }
}
