import { RISK_LEVELS } from "../api/spec-records.js";
import { digestMenu } from "../interactive/action-blocks.js";
import { actionTargetOf } from "../interactive/action-target.js";
import type { Block, SlackMessage } from "../slack/slack-message.js";
import {
  escapeMrkdwn,
  MAX_BLOCKS,
  MAX_FALLBACK,
  MAX_HEADER,
  MAX_TEXT,
  singleLine,
  truncate,
} from "../slack/slack-text.js";
import { type Alert, effectiveScore } from "./alert.js";
import { dashboardLink, networkProfileHref, profileLink } from "./alert-links.js";
import { changeInWords, riskMarker } from "./change-words.js";
import { type FormatOptions, scoreInWords } from "./format-alert.js";
import { lensLabel } from "./lens.js";

/** Longest line one alert takes in a digest; a section packs as many lines as fit in 3,000 characters. */
const MAX_LINE = 600;
/** Header and footer blocks around the sections of each digest message. */
const FRAME_BLOCKS = 2;

/** Whether a channel's alerts of one pass should become a digest instead of one message each. */
export function shouldDigest(alertCount: number, digestThreshold: number): boolean {
  return alertCount > digestThreshold;
}

/** One alert on one line: every untrusted value is kept to one line, so no name can fake another alert. */
function digestLine(alert: Alert, options: FormatOptions): string {
  const { person } = alert;
  const where = [person.title, person.department, person.location]
    .map((part) => (part === undefined ? "" : singleLine(part)))
    .filter((part) => part.length > 0);
  const name = networkProfileHref(person.profileUrl)
    ? profileLink(person.profileUrl, person.name)
    : dashboardLink(person.dashboardUrl, person.name, options.dashboardOrigins);
  const score = scoreInWords(alert);
  const parts = [
    `${riskMarker(alert.riskLevel)} *${name}*`,
    where.length > 0 ? escapeMrkdwn(where.join(" · ")) : undefined,
    escapeMrkdwn(score ? `${changeInWords(alert.changeType)} (${score})` : changeInWords(alert.changeType)),
    escapeMrkdwn(singleLine(lensLabel(alert.lens))),
  ].filter((part): part is string => part !== undefined);
  return truncate(parts.join(" — "), MAX_LINE);
}

/** A section of a digest and the alerts its lines are about. */
interface DigestSection {
  readonly block: Block;
  readonly alerts: readonly Alert[];
}

function packSections(lines: ReadonlyArray<{ readonly line: string; readonly alert: Alert }>): DigestSection[] {
  const sections: DigestSection[] = [];
  let current = "";
  let carried: Alert[] = [];
  const close = () => {
    if (current)
      sections.push({ block: { type: "section", text: { type: "mrkdwn", text: current } }, alerts: carried });
  };
  for (const { line, alert } of lines) {
    const next = current ? `${current}\n${line}` : line;
    if (next.length > MAX_TEXT && current) {
      close();
      current = line;
      carried = [alert];
    } else {
      current = next;
      carried.push(alert);
    }
  }
  close();
  return sections;
}

function countByLevel(alerts: readonly Alert[]): string {
  const counts = { high: 0, watch: 0, low: 0 };
  for (const alert of alerts) counts[alert.riskLevel] += 1;
  return RISK_LEVELS.filter((level) => counts[level] > 0)
    .map((level) => `${counts[level]} ${level}`)
    .join(", ");
}

/** One digest message and the alerts it carries (its buttons act on their people only). */
export interface DigestPart {
  readonly message: SlackMessage;
  readonly alerts: readonly Alert[];
}

/**
 * A burst of alerts for one channel as digest messages, riskiest first: one message listing them
 * all, split over several only when the 50-block limit forces it.
 */
export function formatDigest(alerts: readonly Alert[], options: FormatOptions = {}): SlackMessage[] {
  return digestParts(alerts, options).map((part) => part.message);
}

/** `formatDigest`, each message with the alerts it carries. */
export function digestParts(alerts: readonly Alert[], options: FormatOptions = {}): DigestPart[] {
  const ordered = [...alerts].sort((a, b) => effectiveScore(b) - effectiveScore(a));
  // With buttons, one section per person carries that person's menu; without, lines are packed.
  const sections: DigestSection[] = options.actions
    ? ordered.map((alert) => ({
        block: {
          type: "section",
          text: { type: "mrkdwn", text: digestLine(alert, options) },
          accessory: digestMenu(actionTargetOf(alert)),
        },
        alerts: [alert],
      }))
    : packSections(ordered.map((alert) => ({ line: digestLine(alert, options), alert })));
  const perMessage = MAX_BLOCKS - FRAME_BLOCKS;
  const parts = Math.max(1, Math.ceil(sections.length / perMessage));
  const summary = `${alerts.length} risk alerts (${countByLevel(alerts)})`;
  const messages: DigestPart[] = [];
  for (let part = 0; part < parts; part += 1) {
    const suffix = parts > 1 ? ` (part ${part + 1} of ${parts})` : "";
    const carried = sections.slice(part * perMessage, (part + 1) * perMessage);
    const blocks: Block[] = [
      {
        type: "header",
        text: { type: "plain_text", text: truncate(`:bell: ${summary}${suffix}`, MAX_HEADER), emoji: true },
      },
      ...carried.map((section) => section.block),
      {
        type: "context",
        elements: [{ type: "mrkdwn", text: "Digest: more alerts than the per-pass threshold arrived at once." }],
      },
    ];
    messages.push({
      message: { text: truncate(`${summary}${suffix}`, MAX_FALLBACK), blocks },
      alerts: carried.flatMap((section) => section.alerts),
    });
  }
  return messages;
}
