/** A Slack message as the sink received it. */
export interface ReceivedSlackMessage {
  readonly channel: string;
  readonly text?: string | undefined;
  readonly blocks?: unknown;
  readonly threadTs?: string | undefined;
}

interface TextObject {
  readonly type?: unknown;
  readonly text?: unknown;
}

/**
 * Mrkdwn as a person reads it: links `<url|label>` as `label (url)` so the terminal shows where
 * they go, `<#C1|name>` as `#name`, `<!here>` as `@here`, and Slack's escapes (`&lt; &gt; &amp;`)
 * undone last, so an escaped `<` in a name is never read as markup. User mentions stay `<@U1>`.
 */
export function readableMrkdwn(text: string): string {
  return text
    .replace(/<#[A-Z0-9]+\|([^>\n]+)>/g, "#$1")
    .replace(/<!(here|channel|everyone)>/g, "@$1")
    .replace(/<([^|>@#!\n][^|>\n]*)\|([^>\n]+)>/g, "$2 ($1)")
    .replace(/<((?:https?|mailto):[^>\n]+)>/g, "$1")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** The text of a string (mrkdwn) or a text object: mrkdwn made readable, plain_text as it is shown. */
function textOf(value: unknown): string | undefined {
  if (typeof value === "string") return readableMrkdwn(value);
  if (value && typeof value === "object" && typeof (value as TextObject).text === "string") {
    const { type, text } = value as { type?: unknown; text: string };
    return type === "plain_text" ? text : readableMrkdwn(text);
  }
  return undefined;
}

/** An interactive element as a terminal button: `[ Acknowledge ]`, `[ Snooze ▾ ]`, `[ Open profile ↗ ]`. */
function elementLabel(element: unknown): string | undefined {
  if (!element || typeof element !== "object") return undefined;
  const e = element as Record<string, unknown>;
  if (e.type === "button") {
    const label = textOf(e.text);
    return label ? `[ ${label} ]` : undefined;
  }
  if (e.type === "static_select") return `[ ${textOf(e.placeholder) ?? "Choose"} ▾ ]`;
  if (e.type === "overflow") return "[ ⋯ ]";
  return undefined;
}

/** Block Kit, read back as the lines a person would see in the Slack client. */
function blockLines(block: unknown): string[] {
  if (!block || typeof block !== "object") return [];
  const b = block as Record<string, unknown>;
  const lines: string[] = [];
  switch (b.type) {
    case "header": {
      const text = textOf(b.text);
      if (text) lines.push(text.toUpperCase());
      break;
    }
    case "section": {
      const text = textOf(b.text);
      if (text) lines.push(...text.split("\n"));
      if (Array.isArray(b.fields)) {
        for (const field of b.fields) {
          const text = textOf(field);
          if (text) lines.push(`  ${text.replace(/\n/g, " ")}`);
        }
      }
      const accessory = elementLabel(b.accessory);
      if (accessory && lines.length > 0) lines[lines.length - 1] = `${lines[lines.length - 1]}  ${accessory}`;
      break;
    }
    case "actions":
      if (Array.isArray(b.elements)) {
        const buttons = b.elements.map(elementLabel).filter((t): t is string => Boolean(t));
        if (buttons.length > 0) lines.push(buttons.join(" "));
      }
      break;
    case "context":
      if (Array.isArray(b.elements)) {
        const parts = b.elements.map(textOf).filter((t): t is string => Boolean(t));
        if (parts.length > 0) lines.push(`  ${parts.join("  ·  ")}`);
      }
      break;
    case "divider":
      lines.push("  ----");
      break;
    default:
      break;
  }
  return lines;
}

/** Renders a posted message readably for the terminal of the demo and the sandbox. */
export function renderSlackMessage(message: ReceivedSlackMessage): string {
  const where = message.threadTs ? `${message.channel} (in thread)` : message.channel;
  const body = Array.isArray(message.blocks) ? message.blocks.flatMap(blockLines) : [];
  const lines = body.length > 0 ? body : readableMrkdwn(message.text ?? "").split("\n");
  return [`┌─ Slack ${where}`, ...lines.map((line) => `│ ${line}`), "└─"].join("\n");
}
