import { randomBytes } from "node:crypto";
import { z } from "zod";
import { blockActionsPayload, type PressedMessage, pressedAction, slackSignature } from "./fake-slack-block-actions.js";
import type { FakeSocketEnvelope, SocketModeHub } from "./fake-slack-socket-mode.js";
import { type FakeSlackAnswer, type FakeSlackChannel, type FakeSlackMessage, failAnswer } from "./fake-slack-types.js";

/**
 * The fake Slack's interactivity: button presses sent as Socket Mode envelopes, the response_url
 * each press carries, the Web API methods an interactive app answers with (chat.update,
 * chat.postEphemeral, usergroups.users.list) and the signed HTTP mode.
 */

export interface FakeSlackUpdate {
  readonly channel: string;
  readonly ts: string;
  readonly text?: string;
  readonly blocks?: unknown;
}

export interface FakeSlackEphemeral {
  readonly via: "chat.postEphemeral" | "response_url";
  readonly channel?: string;
  readonly user?: string;
  readonly text?: string;
  readonly blocks?: unknown;
  /** response_url posts only: whether the post replaced (or deleted) the original message. */
  readonly replaceOriginal?: boolean;
  readonly deleteOriginal?: boolean;
  /** response_url posts only: "in_channel" posts a new message visible to everyone. */
  readonly responseType?: "ephemeral" | "in_channel";
}

export interface FakeButtonPress {
  readonly channel: string;
  readonly ts: string;
  readonly actionId: string;
  readonly userId: string;
  readonly selectedOption?: string;
}

export interface FakeSlackInteractivity {
  /** Signing secret of the HTTP interactivity mode. */
  readonly signingSecret: string;
  /**
   * Builds Slack's block_actions payload for a press on a posted (or updated) message and sends it
   * as an "interactive" envelope; throws if no Socket Mode connection is open or the message has
   * no such element.
   */
  pressButton(press: FakeButtonPress): FakeSocketEnvelope;
  /** chat.update calls applied, in order; posted() shows each message's current text/blocks. */
  updates(): ReadonlyArray<FakeSlackUpdate>;
  /** chat.postEphemeral calls and response_url posts, in order. */
  ephemerals(): ReadonlyArray<FakeSlackEphemeral>;
  /**
   * The optional HTTP mode: POSTs `payload=<json>` form-encoded to `url`, signed like Slack
   * (X-Slack-Request-Timestamp, X-Slack-Signature v0) with `signingSecret`, or `options.secret`.
   */
  postInteractivity(
    url: string,
    payload: unknown,
    options?: { timestamp?: number; secret?: string },
  ): Promise<{ status: number; body: string }>;
}

/** What the interactivity side needs of the fake's world. */
export interface InteractivityWorld {
  /** The fake's messages, edited in place (a message is replaced by its edited copy). */
  readonly messages: FakeSlackMessage[];
  /** A channel by id (conversations.* style). */
  channelById(id: string): FakeSlackChannel | undefined;
  /** A channel by id, name or #name (chat.postMessage style). */
  channelByRef(ref: string): FakeSlackChannel | undefined;
  /** email -> user id. */
  readonly users: ReadonlyMap<string, string>;
  readonly usergroups: ReadonlyMap<string, readonly string[]>;
  nextTs(): string;
  /** `http://127.0.0.1:<port>` of the fake. */
  origin(): string;
  /** Adds a message as chat.postMessage does (a response_url post "in_channel"). */
  addMessage(message: FakeSlackMessage): void;
  readonly hub: SocketModeHub;
  readonly signingSecret: string;
  readonly ids: { readonly appId: string; readonly teamId: string; readonly botId: string; readonly botUserId: string };
}

/** Slack accepts up to five posts to one response_url (within 30 minutes). */
const RESPONSE_URL_USES = 5;

const responseBodySchema = z.object({
  text: z.string().optional(),
  blocks: z.array(z.unknown()).optional(),
  replace_original: z.union([z.boolean(), z.enum(["true", "false"])]).optional(),
  delete_original: z.union([z.boolean(), z.enum(["true", "false"])]).optional(),
  response_type: z.enum(["ephemeral", "in_channel"]).optional(),
  thread_ts: z.string().optional(),
});

const truthy = (value: boolean | "true" | "false" | undefined) => value === true || value === "true";

interface ResponseTarget {
  readonly channel: string;
  readonly ts: string;
  readonly user: string;
  uses: number;
}

export interface Interactivity {
  readonly api: FakeSlackInteractivity;
  /** The Web API methods of interactivity; undefined for any other method. */
  method(name: string, args: Readonly<Record<string, unknown>>): FakeSlackAnswer | undefined;
  /** A POST to a response_url (`/actions/...`); undefined when the path is not one. */
  responseUrl(path: string, rawBody: string): FakeSlackAnswer | undefined;
}

export function createInteractivity(world: InteractivityWorld): Interactivity {
  const updates: FakeSlackUpdate[] = [];
  const ephemerals: FakeSlackEphemeral[] = [];
  const responseTargets = new Map<string, ResponseTarget>();
  /** People who pressed something are workspace members too, whether or not they have an email here. */
  const pressers = new Set<string>();
  let pressCounter = 0;

  const isWorkspaceUser = (id: string) =>
    pressers.has(id) ||
    [...world.users.values()].includes(id) ||
    [...world.usergroups.values()].some((members) => members.includes(id));
  const messageIndex = (channel: string, ts: string) =>
    world.messages.findIndex((m) => m.channel === channel && m.ts === ts);
  /** A channel id the fake knows: a channel, or a DM that has messages. */
  const knownChannelId = (ref: string) =>
    world.channelById(ref)?.id ?? (world.messages.some((m) => m.channel === ref) ? ref : undefined);

  function edit(index: number, text: string | undefined, blocks: unknown): FakeSlackMessage {
    const current = world.messages[index] as FakeSlackMessage;
    const { text: _oldText, blocks: _oldBlocks, ...rest } = current;
    const newText = text ?? current.text;
    // an empty array removes the blocks, as Slack documents for chat.update
    const newBlocks =
      blocks === undefined ? current.blocks : Array.isArray(blocks) && blocks.length === 0 ? undefined : blocks;
    const edited: FakeSlackMessage = {
      ...rest,
      ...(newText !== undefined ? { text: newText } : {}),
      ...(newBlocks !== undefined ? { blocks: newBlocks } : {}),
    };
    world.messages[index] = edited;
    return edited;
  }

  function chatUpdate(args: Readonly<Record<string, unknown>>): FakeSlackAnswer {
    const channel = knownChannelId(typeof args.channel === "string" ? args.channel : "");
    if (!channel) return failAnswer("channel_not_found");
    const ts = typeof args.ts === "string" ? args.ts : "";
    const index = messageIndex(channel, ts);
    if (index < 0) return failAnswer("message_not_found");
    const text = typeof args.text === "string" ? args.text : undefined;
    if (text === undefined && args.blocks === undefined && args.attachments === undefined) return failAnswer("no_text");
    if (args.blocks !== undefined && !Array.isArray(args.blocks)) return failAnswer("invalid_blocks");
    const edited = edit(index, text, args.blocks);
    updates.push({
      channel,
      ts,
      ...(text !== undefined ? { text } : {}),
      ...(args.blocks !== undefined ? { blocks: args.blocks } : {}),
    });
    return {
      status: 200,
      body: {
        ok: true,
        channel,
        ts,
        text: edited.text ?? "",
        message: { type: "message", text: edited.text ?? "", blocks: edited.blocks, bot_id: world.ids.botId },
      },
    };
  }

  function postEphemeral(args: Readonly<Record<string, unknown>>): FakeSlackAnswer {
    const channel = world.channelByRef(typeof args.channel === "string" ? args.channel : "");
    if (!channel) return failAnswer("channel_not_found");
    if (!channel.isMember) return failAnswer("not_in_channel");
    const user = typeof args.user === "string" ? args.user : "";
    if (!isWorkspaceUser(user)) return failAnswer("user_not_in_channel");
    const text = typeof args.text === "string" ? args.text : undefined;
    if (text === undefined && args.blocks === undefined && args.attachments === undefined) return failAnswer("no_text");
    ephemerals.push({
      via: "chat.postEphemeral",
      channel: channel.id,
      user,
      ...(text !== undefined ? { text } : {}),
      ...(args.blocks !== undefined ? { blocks: args.blocks } : {}),
    });
    return { status: 200, body: { ok: true, message_ts: world.nextTs() } };
  }

  function usergroupUsers(args: Readonly<Record<string, unknown>>): FakeSlackAnswer {
    const members = world.usergroups.get(typeof args.usergroup === "string" ? args.usergroup : "");
    return members ? { status: 200, body: { ok: true, users: [...members] } } : failAnswer("no_such_subteam");
  }

  function responseUrl(path: string, rawBody: string): FakeSlackAnswer | undefined {
    if (!path.startsWith("/actions/")) return undefined;
    const target = responseTargets.get(path);
    if (!target) return { status: 404, body: { ok: false, error: "expired_url" } };
    if (target.uses >= RESPONSE_URL_USES) return { status: 404, body: { ok: false, error: "used_url" } };
    let json: unknown;
    try {
      json = JSON.parse(rawBody);
    } catch {
      return { status: 400, body: { ok: false, error: "invalid_payload" } };
    }
    const parsed = responseBodySchema.safeParse(json);
    if (!parsed.success) return { status: 400, body: { ok: false, error: "invalid_payload" } };
    const body = parsed.data;
    const replaceOriginal = truthy(body.replace_original);
    const deleteOriginal = truthy(body.delete_original);
    if (!deleteOriginal && body.text === undefined && body.blocks === undefined) return failAnswer("no_text");
    target.uses += 1;
    const index = messageIndex(target.channel, target.ts);
    if ((replaceOriginal || deleteOriginal) && index < 0) return failAnswer("message_not_found");
    if (deleteOriginal) world.messages.splice(index, 1);
    else if (replaceOriginal) edit(index, body.text ?? "", body.blocks ?? []);
    else if (body.response_type === "in_channel") {
      const channel = world.channelById(target.channel);
      world.addMessage({
        channel: target.channel,
        ts: world.nextTs(),
        args: { ...body },
        ...(channel ? { channelName: channel.name } : {}),
        ...(body.thread_ts !== undefined ? { threadTs: body.thread_ts } : {}),
        ...(body.text !== undefined ? { text: body.text } : {}),
        ...(body.blocks !== undefined ? { blocks: body.blocks } : {}),
      });
    }
    ephemerals.push({
      via: "response_url",
      channel: target.channel,
      user: target.user,
      replaceOriginal,
      ...(deleteOriginal ? { deleteOriginal } : {}),
      ...(body.response_type !== undefined ? { responseType: body.response_type } : {}),
      ...(body.text !== undefined ? { text: body.text } : {}),
      ...(body.blocks !== undefined ? { blocks: body.blocks } : {}),
    });
    return { status: 200, body: { ok: true } };
  }

  function userOf(id: string) {
    const email = [...world.users].find(([, userId]) => userId === id)?.[0];
    const username = email?.split("@")[0] ?? id.toLowerCase();
    return { id, username, name: username };
  }

  const api: FakeSlackInteractivity = {
    signingSecret: world.signingSecret,
    pressButton(press) {
      if (!world.hub.hasAnyConnection())
        throw new Error("no Socket Mode connection is open: nobody would get the press");
      const channel = world.channelByRef(press.channel);
      const channelId = channel?.id ?? press.channel;
      const message = world.messages.find((m) => m.channel === channelId && m.ts === press.ts);
      if (!message) throw new Error(`no message ${press.ts} in ${press.channel}`);
      const now = Date.now();
      const actionTs = `${Math.floor(now / 1000)}.${String((now % 1000) * 1000).padStart(6, "0")}`;
      const pressed: PressedMessage = {
        channel: channelId,
        channelName: channel?.name ?? "directmessage",
        ts: message.ts,
        ...(message.threadTs !== undefined ? { threadTs: message.threadTs } : {}),
        ...(message.text !== undefined ? { text: message.text } : {}),
        ...(message.blocks !== undefined ? { blocks: message.blocks } : {}),
      };
      const action = pressedAction(pressed, press.actionId, press.selectedOption, actionTs);
      pressCounter += 1;
      const path = `/actions/${world.ids.teamId}/${pressCounter}/${randomBytes(12).toString("hex")}`;
      responseTargets.set(path, { channel: channelId, ts: message.ts, user: press.userId, uses: 0 });
      pressers.add(press.userId);
      const payload = blockActionsPayload(pressed, action, {
        user: userOf(press.userId),
        teamId: world.ids.teamId,
        teamDomain: "fake-workspace",
        appId: world.ids.appId,
        botId: world.ids.botId,
        botUserId: world.ids.botUserId,
        responseUrl: `${world.origin()}${path}`,
        triggerId: `${pressCounter}.${Math.floor(now / 1000)}.${randomBytes(16).toString("hex")}`,
        actionTs,
      });
      return world.hub.sendEnvelope({ type: "interactive", payload });
    },
    updates: () => [...updates],
    ephemerals: () => [...ephemerals],
    async postInteractivity(url, payload, options = {}) {
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "x-slack-request-timestamp": String(timestamp),
          "x-slack-signature": slackSignature(options.secret ?? world.signingSecret, timestamp, body),
        },
        body,
      });
      return { status: response.status, body: await response.text() };
    },
  };

  return {
    api,
    method(name, args) {
      switch (name) {
        case "chat.update":
          return chatUpdate(args);
        case "chat.postEphemeral":
          return postEphemeral(args);
        case "usergroups.users.list":
          return usergroupUsers(args);
        default:
          return undefined;
      }
    },
    responseUrl,
  };
}
