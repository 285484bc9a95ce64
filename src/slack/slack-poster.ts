import {
  type ChatPostMessageArguments,
  LogLevel,
  type RetryOptions,
  type Logger as SlackLogger,
  WebClient,
  type WebClientOptions,
} from "@slack/web-api";
import type { Logger } from "../logger.js";
import { sdkLogger } from "./sdk-logger.js";
import type { Block } from "./slack-message.js";

export interface PostMessageInput {
  readonly channel: string;
  readonly text: string;
  readonly blocks: readonly Block[];
  readonly threadTs?: string | undefined;
}

export interface PostedMessage {
  /** The channel id Slack put the message in (names resolve to ids). */
  readonly channel: string;
  readonly ts: string;
}

/** The Slack calls delivery needs; the WebClient adapter and the dry-run printer implement it. */
export interface SlackPoster {
  postMessage(input: PostMessageInput): Promise<PostedMessage>;
  /** Slack user id of a workspace member by email (users.lookupByEmail). */
  lookupUserByEmail(email: string): Promise<string>;
  /** The DM channel id with a user (conversations.open). */
  openDirectMessage(userId: string): Promise<string>;
}

export interface SlackClientOptions {
  readonly token: string;
  /** Web API base URL (SLACK_API_URL), ending with `/api/`. */
  readonly apiUrl: string;
  readonly logger: Logger;
  readonly timeoutMs?: number;
  /** The SDK's own retries; none by default (see createSlackWebClient). `check` asks for one. */
  readonly retry?: RetryOptions;
}

function slackLogger(logger: Logger): SlackLogger {
  const child = logger.child({ component: "slack-web-api" });
  // The SDK warns on every failed request; our delivery loop logs failures once, with the fix.
  return sdkLogger(child, { debug: "trace", info: "debug", warn: "debug", error: "warn" }, LogLevel.WARN);
}

/**
 * The program's one kind of WebClient: retries off and 429s rejected at once, because the outbox
 * sender owns retries and pacing per channel. The SDK's own retry would pause its one queue
 * (every channel) on a 429 and hide an outage behind 30 minutes of silent retries. Its HTTP is
 * the SDK's own, with Slack's answers capped (`capAnswers`).
 */
export function createSlackWebClient(options: SlackClientOptions): WebClient {
  return new WebClient(options.token, {
    slackApiUrl: options.apiUrl.endsWith("/") ? options.apiUrl : `${options.apiUrl}/`,
    retryConfig: options.retry ?? { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: options.timeoutMs ?? 10_000,
    logger: slackLogger(options.logger),
    requestInterceptor: capAnswers,
  });
}

/** The most of a Slack answer read: its answers are a few KB; this only stops a runaway body. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * Caps every answer the SDK reads (axios's `maxContentLength`): a runaway body fails the call as a
 * request error (retried by the outbox) instead of filling the daemon's memory.
 */
const capAnswers: NonNullable<WebClientOptions["requestInterceptor"]> = (config) => {
  config.maxContentLength = MAX_ANSWER_BYTES;
  return config;
};

function requireString(value: unknown, what: string): string {
  if (typeof value !== "string" || value === "") throw new Error(`Slack answered without ${what}`);
  return value;
}

/** The SlackPoster over a WebClient. Errors are the SDK's coded errors (see classifySlackError). */
export function webClientPoster(client: WebClient): SlackPoster {
  return {
    async postMessage(input) {
      // Our Block type is a JSON subset of Slack's; the SDK's union type cannot see that.
      const args = {
        channel: input.channel,
        text: input.text,
        blocks: input.blocks,
        unfurl_links: false,
        unfurl_media: false,
        ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
      } as unknown as ChatPostMessageArguments;
      const result = await client.chat.postMessage(args);
      return { channel: requireString(result.channel, "a channel"), ts: requireString(result.ts, "a ts") };
    },
    async lookupUserByEmail(email) {
      const result = await client.users.lookupByEmail({ email });
      return requireString(result.user?.id, "a user id");
    },
    async openDirectMessage(userId) {
      const result = await client.conversations.open({ users: userId });
      return requireString(result.channel?.id, "a channel id");
    },
  };
}
