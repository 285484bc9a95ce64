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

/** Slack's built-in "are you sure?" dialog of an interactive element. */
export interface ConfirmDialog {
  readonly title: PlainTextObject;
  readonly text: PlainTextObject | MrkdwnObject;
  readonly confirm: PlainTextObject;
  readonly deny: PlainTextObject;
  readonly style?: "danger" | "primary";
}

/** An option of a select or overflow menu: `value` is at most 150 characters. */
export interface OptionObject {
  readonly text: PlainTextObject;
  readonly value: string;
}

/** Interactive elements (buttons carry `value` ≤ 2,000 characters; a URL button opens `url`). */
export type InteractiveElement =
  | {
      readonly type: "button";
      readonly action_id: string;
      readonly text: PlainTextObject;
      readonly value?: string;
      readonly url?: string;
      readonly style?: "primary" | "danger";
      readonly confirm?: ConfirmDialog;
    }
  | {
      readonly type: "static_select";
      readonly action_id: string;
      readonly placeholder: PlainTextObject;
      readonly options: readonly OptionObject[];
    }
  | {
      readonly type: "overflow";
      readonly action_id: string;
      readonly options: readonly OptionObject[];
      readonly confirm?: ConfirmDialog;
    };

export type Block =
  | { readonly type: "header"; readonly text: PlainTextObject }
  | {
      readonly type: "section";
      readonly text: MrkdwnObject;
      readonly fields?: readonly MrkdwnObject[];
      readonly block_id?: string;
      readonly accessory?: InteractiveElement;
    }
  | { readonly type: "context"; readonly elements: readonly TextObject[]; readonly block_id?: string }
  | { readonly type: "divider" }
  | { readonly type: "actions"; readonly block_id?: string; readonly elements: readonly InteractiveElement[] };

/** A message ready for chat.postMessage: `text` is the notification and screen-reader fallback. */
export interface SlackMessage {
  readonly text: string;
  readonly blocks: readonly Block[];
}
