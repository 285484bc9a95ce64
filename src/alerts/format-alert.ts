import type { Block, MrkdwnObject, SlackMessage } from "../slack/slack-message.js";
import {
  escapeMrkdwn,
  MAX_FALLBACK,
  MAX_FIELD,
  MAX_HEADER,
  MAX_TEXT,
  mrkdwnLink,
  plainText,
  truncate,
} from "../slack/slack-text.js";
import type { Alert } from "./alert.js";
import { changeInWords, riskInWords, riskMarker } from "./change-words.js";
import { lensLabel } from "./lens.js";

const MAX_FACTORS = 10;

function field(label: string, value: string): MrkdwnObject {
  return { type: "mrkdwn", text: truncate(`*${label}*\n${value}`, MAX_FIELD) };
}

function section(text: string): Block {
  return { type: "section", text: { type: "mrkdwn", text: truncate(text, MAX_TEXT) } };
}

/** "Jane Doe, Staff Engineer": the one-line identity used in headers and fallbacks. */
export function personLine(alert: Alert): string {
  const { name, title } = alert.person;
  return title ? `${name}, ${title}` : name;
}

/** The plain-text notification line of one alert. */
export function alertFallback(alert: Alert): string {
  const risk = riskInWords(alert.riskLevel, alert.riskScore);
  const text = `${risk} risk (${lensLabel(alert.lens)}): ${personLine(alert)}: ${changeInWords(alert.changeType)}`;
  return truncate(plainText(text), MAX_FALLBACK);
}

/**
 * One alert as a Block Kit message: who, where, which lens, how risky, what changed and why,
 * with links to the profile and the dashboard. Untrusted text is escaped; every limit holds.
 */
export function formatAlert(alert: Alert): SlackMessage {
  const { person } = alert;
  const header = `${riskInWords(alert.riskLevel, alert.riskScore)} risk · ${person.name}`;
  const blocks: Block[] = [
    { type: "header", text: { type: "plain_text", text: truncate(plainText(header), MAX_HEADER), emoji: true } },
  ];
  const who = `${riskMarker(alert.riskLevel)} *${mrkdwnLink(person.profileUrl, person.name)}*`;
  const fields: MrkdwnObject[] = [
    field("Title", escapeMrkdwn(person.title ?? "—")),
    field("Department", escapeMrkdwn(person.department ?? "—")),
    field("Location", escapeMrkdwn(person.location ?? "—")),
    field("Lens", escapeMrkdwn(lensLabel(alert.lens))),
    field("Risk", `${riskMarker(alert.riskLevel)} ${riskInWords(alert.riskLevel, alert.riskScore)}`),
    field("Change", escapeMrkdwn(changeInWords(alert.changeType))),
  ];
  if (alert.detectedAt) fields.push(field("Detected", escapeMrkdwn(alert.detectedAt)));
  blocks.push({
    type: "section",
    text: { type: "mrkdwn", text: truncate(`${who}\n${escapeMrkdwn(changeInWords(alert.changeType))}`, MAX_TEXT) },
    fields,
  });
  if (alert.summary?.trim()) blocks.push(section(`*Summary*\n${escapeMrkdwn(alert.summary.trim())}`));
  const factors = (alert.factors ?? []).map((f) => f.trim()).filter((f) => f.length > 0);
  if (factors.length > 0) {
    const shown = factors.slice(0, MAX_FACTORS).map((f) => `• ${escapeMrkdwn(f)}`);
    if (factors.length > MAX_FACTORS) shown.push(`…and ${factors.length - MAX_FACTORS} more`);
    blocks.push(section(`*Factors*\n${shown.join("\n")}`));
  }
  const links = [mrkdwnLink(person.profileUrl, "Profile"), mrkdwnLink(person.dashboardUrl, "Dashboard")].filter(
    (link) => link.startsWith("<"),
  );
  if (links.length > 0) blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: links.join(" · ") }] });
  return { text: alertFallback(alert), blocks };
}
