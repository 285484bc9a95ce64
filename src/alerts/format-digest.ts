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
import { dashboardLink, isNetworkProfileUrl, profileLink } from "./alert-links.js";
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
  const name = isNetworkProfileUrl(person.profileUrl)
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

function packSections(lines: readonly string[]): string[] {
  const sections: string[] = [];
  let current = "";
  for (const line of lines) {
    const next = current ? `${current}\n${line}` : line;
    if (next.length > MAX_TEXT && current) {
      sections.push(current);
      current = line;
    } else {
      current = next;
    }
  }
  if (current) sections.push(current);
  return sections;
}

function countByLevel(alerts: readonly Alert[]): string {
  const counts = { high: 0, watch: 0, low: 0 };
  for (const alert of alerts) counts[alert.riskLevel] += 1;
  return RISK_LEVELS.filter((level) => counts[level] > 0)
    .map((level) => `${counts[level]} ${level}`)
    .join(", ");
}

/**
 * A burst of alerts for one channel as digest messages, riskiest first: one message listing them
 * all, split over several only when the 50-block limit forces it.
 */
export function formatDigest(alerts: readonly Alert[], options: FormatOptions = {}): SlackMessage[] {
  const ordered = [...alerts].sort((a, b) => effectiveScore(b) - effectiveScore(a));
  // With buttons, one section per person carries that person's menu; without, lines are packed.
  const sections: Block[] = options.actions
    ? ordered.map((alert) => ({
        type: "section",
        text: { type: "mrkdwn", text: digestLine(alert, options) },
        accessory: digestMenu(actionTargetOf(alert)),
      }))
    : packSections(ordered.map((alert) => digestLine(alert, options))).map(
        (text): Block => ({ type: "section", text: { type: "mrkdwn", text } }),
      );
  const perMessage = MAX_BLOCKS - FRAME_BLOCKS;
  const parts = Math.max(1, Math.ceil(sections.length / perMessage));
  const summary = `${alerts.length} risk alerts (${countByLevel(alerts)})`;
  const messages: SlackMessage[] = [];
  for (let part = 0; part < parts; part += 1) {
    const suffix = parts > 1 ? ` (part ${part + 1} of ${parts})` : "";
    const blocks: Block[] = [
      {
        type: "header",
        text: { type: "plain_text", text: truncate(`:bell: ${summary}${suffix}`, MAX_HEADER), emoji: true },
      },
      ...sections.slice(part * perMessage, (part + 1) * perMessage),
      {
        type: "context",
        elements: [{ type: "mrkdwn", text: "Digest: more alerts than the per-pass threshold arrived at once." }],
      },
    ];
    messages.push({ text: truncate(`${summary}${suffix}`, MAX_FALLBACK), blocks });
  }
  return messages;
}
