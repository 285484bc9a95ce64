/** The fake Slack's records shared by its server and its interactivity side. */

export interface FakeSlackMessage {
  /** Channel id the message landed in (names are resolved to ids). */
  readonly channel: string;
  readonly channelName?: string;
  readonly ts: string;
  readonly threadTs?: string;
  /** The current text and blocks: a chat.update or a response_url replacement changes them. */
  readonly text?: string;
  readonly blocks?: unknown;
  /** The arguments of the chat.postMessage call that posted it. */
  readonly args: Readonly<Record<string, unknown>>;
}

export interface FakeSlackChannel {
  readonly id: string;
  readonly name: string;
  isMember: boolean;
  isPrivate: boolean;
}

/** An HTTP answer of the fake: status, JSON body, extra headers. */
export interface FakeSlackAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers?: Record<string, string>;
}

export const failAnswer = (error: string): FakeSlackAnswer => ({ status: 200, body: { ok: false, error } });
