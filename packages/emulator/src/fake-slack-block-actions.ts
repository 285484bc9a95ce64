import { createHmac } from "node:crypto";

/**
 * Pure pieces of Slack's interactivity, as its reference documents them: finding the element a
 * user pressed in a message's Block Kit blocks, the `block_actions` payload Slack sends for that
 * press, and the v0 request signature of the HTTP interactivity mode.
 */

/** What Slack knows about the message a press happened on (its current text and blocks). */
export interface PressedMessage {
  readonly channel: string;
  readonly channelName: string;
  readonly ts: string;
  readonly threadTs?: string;
  readonly text?: string;
  readonly blocks?: unknown;
}

export interface PressContext {
  readonly user: { readonly id: string; readonly username: string; readonly name: string };
  readonly teamId: string;
  readonly teamDomain: string;
  readonly appId: string;
  readonly botId: string;
  readonly botUserId: string;
  readonly responseUrl: string;
  readonly triggerId: string;
  /** Slack's action_ts: the time of the press, "seconds.micros". */
  readonly actionTs: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;

/**
 * Slack gives every block without a block_id one of its own when the message is posted; the fake
 * derives it from the message and the block's place so repeated presses see the same id.
 */
function blockIdOf(block: Json, ts: string, index: number): string {
  return typeof block.block_id === "string" ? block.block_id : `fake-${ts.replace(".", "")}-${index}`;
}

/** The message's blocks as Slack returns them: every block has its block_id. */
export function blocksWithIds(blocks: unknown, ts: string): unknown {
  if (!Array.isArray(blocks)) return blocks;
  return blocks.map((block: unknown, index) =>
    isObject(block) ? { ...block, block_id: blockIdOf(block, ts, index) } : block,
  );
}

interface FoundElement {
  readonly element: Json;
  readonly blockId: string;
}

/** Interactive elements live in `actions` blocks' elements and in `section` accessories. */
function findElement(blocks: unknown, actionId: string, ts: string): FoundElement | undefined {
  if (!Array.isArray(blocks)) return undefined;
  for (const [index, block] of blocks.entries()) {
    if (!isObject(block)) continue;
    const candidates: unknown[] = [];
    if (block.type === "actions" && Array.isArray(block.elements)) candidates.push(...block.elements);
    if (block.type === "section" && block.accessory !== undefined) candidates.push(block.accessory);
    for (const element of candidates) {
      if (isObject(element) && element.action_id === actionId) {
        return { element, blockId: blockIdOf(block, ts, index) };
      }
    }
  }
  return undefined;
}

/** An option (overflow, static_select: options or option_groups) by its value. */
function findOption(element: Json, value: string): Json | undefined {
  const groups = Array.isArray(element.option_groups) ? element.option_groups : [];
  const options: unknown[] = [
    ...(Array.isArray(element.options) ? element.options : []),
    ...groups.flatMap((group: unknown) => (isObject(group) && Array.isArray(group.options) ? group.options : [])),
  ];
  return options.find((option): option is Json => isObject(option) && option.value === value);
}

const OPTION_ELEMENTS = new Set(["overflow", "static_select"]);

/** The `actions[0]` entry Slack sends for a press; throws when the message has no such element. */
export function pressedAction(
  message: PressedMessage,
  actionId: string,
  selectedOption: string | undefined,
  actionTs: string,
): Json {
  const found = findElement(message.blocks, actionId, message.ts);
  if (!found) throw new Error(`message ${message.ts} in ${message.channel} has no element with action_id ${actionId}`);
  const { element, blockId } = found;
  const type = String(element.type);
  const base: Json = { action_id: actionId, block_id: blockId, type, action_ts: actionTs };
  if (type === "button") {
    if (selectedOption !== undefined) throw new Error(`${actionId} is a button: it takes no selectedOption`);
    return {
      ...base,
      text: element.text,
      ...(element.value !== undefined ? { value: element.value } : {}),
      ...(element.style !== undefined ? { style: element.style } : {}),
    };
  }
  if (OPTION_ELEMENTS.has(type)) {
    if (selectedOption === undefined) throw new Error(`${actionId} is a ${type}: pressing it needs a selectedOption`);
    const option = findOption(element, selectedOption);
    if (!option) throw new Error(`${actionId} has no option with value ${selectedOption}`);
    return {
      ...base,
      selected_option: { text: option.text, value: option.value },
      ...(type === "static_select" && element.placeholder !== undefined ? { placeholder: element.placeholder } : {}),
    };
  }
  throw new Error(`${actionId} is a ${type}: the fake presses buttons, overflow menus and static selects only`);
}

/** Slack's `block_actions` payload for a press on a message the app posted. */
export function blockActionsPayload(message: PressedMessage, action: Json, context: PressContext): Json {
  const { user, teamId } = context;
  return {
    type: "block_actions",
    user: { id: user.id, username: user.username, name: user.name, team_id: teamId },
    api_app_id: context.appId,
    container: { type: "message", message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
    trigger_id: context.triggerId,
    team: { id: teamId, domain: context.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: message.channel, name: message.channelName },
    message: {
      type: "message",
      subtype: "bot_message",
      user: context.botUserId,
      bot_id: context.botId,
      app_id: context.appId,
      ts: message.ts,
      text: message.text ?? "",
      ...(message.blocks !== undefined ? { blocks: blocksWithIds(message.blocks, message.ts) } : {}),
      ...(message.threadTs !== undefined ? { thread_ts: message.threadTs } : {}),
      team: teamId,
    },
    state: { values: {} },
    response_url: context.responseUrl,
    actions: [action],
  };
}

/** Slack's v0 signature: `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<body>` with the signing secret. */
export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}
