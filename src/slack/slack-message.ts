/** The subset of Block Kit this program sends; plain JSON, so the pure core needs no Slack SDK. */
export interface PlainTextObject {
  readonly type: "plain_text";
  readonly text: string;
  readonly emoji?: boolean;
}
export interface MrkdwnObject {
  readonly type: "mrkdwn";
  readonly text: string;
  /** Slack leaves URLs and channel names as typed (no auto-linking). */
  readonly verbatim?: boolean;
}
export type TextObject = PlainTextObject | MrkdwnObject;

export type Block =
  | { readonly type: "header"; readonly text: PlainTextObject }
  | { readonly type: "section"; readonly text: MrkdwnObject; readonly fields?: readonly MrkdwnObject[] }
  | { readonly type: "context"; readonly elements: readonly TextObject[] }
  | { readonly type: "divider" };

/** A message ready for chat.postMessage: `text` is the notification and screen-reader fallback. */
export interface SlackMessage {
  readonly text: string;
  readonly blocks: readonly Block[];
}
