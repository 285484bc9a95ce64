/** A Slack message as the sink received it. */
export interface ReceivedSlackMessage {
  readonly channel: string;
  readonly text?: string | undefined;
  readonly blocks?: unknown;
  readonly threadTs?: string | undefined;
}

interface TextObject {
  readonly text?: unknown;
}

function textOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && typeof (value as TextObject).text === "string") {
    return (value as { text: string }).text;
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

/** Slack mrkdwn links `<url|label>` shown as `label (url)`, so the terminal shows where they go. */
function plainLinks(line: string): string {
  return line.replace(/<([^|>]+)\|([^>]+)>/g, "$2 ($1)").replace(/<(https?:[^>]+)>/g, "$1");
}

/** Renders a posted message readably for the demo's terminal. */
export function renderSlackMessage(message: ReceivedSlackMessage): string {
  const where = message.threadTs ? `${message.channel} (in thread)` : message.channel;
  const body = Array.isArray(message.blocks) ? message.blocks.flatMap(blockLines) : [];
  const lines = body.length > 0 ? body : (message.text ?? "").split("\n");
  return [`┌─ Slack ${where}`, ...lines.map((line) => `│ ${plainLinks(line)}`), "└─"].join("\n");
}
