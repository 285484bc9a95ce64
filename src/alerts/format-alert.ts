import { alertActionsBlock } from "../interactive/action-blocks.js";
import { actionTargetOf } from "../interactive/action-target.js";
import { acknowledgedLine } from "../interactive/message-update.js";
import type { Block, MrkdwnObject, SlackMessage } from "../slack/slack-message.js";
import {
  escapeMrkdwn,
  isLinkableUrl,
  MAX_FALLBACK,
  MAX_FIELD,
  MAX_HEADER,
  MAX_TEXT,
  plainText,
  singleLine,
  truncate,
} from "../slack/slack-text.js";
import { type Alert, DEPARTURE } from "./alert.js";
import { dashboardLink, isServiceUrl, networkProfileHref, profileLink } from "./alert-links.js";
import {
  changeInWords,
  type NextSteps,
  nextStepFor,
  readableTime,
  riskInWords,
  riskMarker,
  scoreLabel,
  scoreMovement,
} from "./change-words.js";
import { lensLabel } from "./lens.js";

const MAX_FACTORS = 10;

/** What formatting takes from the config (`AlertSettings.format`). */
export interface FormatOptions {
  /** `alerts.nextSteps` over the defaults. */
  readonly nextSteps?: NextSteps | undefined;
  /** Origins a dashboard link may point to (the service's); undefined accepts any http(s) URL. */
  readonly dashboardOrigins?: readonly string[] | undefined;
  /** Buttons (Acknowledge, Snooze, Stop tracking, links): only when interactivity answers them (`buttonsEnabled`). */
  readonly actions?: boolean | undefined;
}

/** Untrusted one-line text, escaped for mrkdwn. */
const text = (value: string): string => escapeMrkdwn(singleLine(value));

function field(label: string, value: string): MrkdwnObject {
  return { type: "mrkdwn", text: truncate(`*${label}*\n${value}`, MAX_FIELD) };
}

function section(body: string, fields?: MrkdwnObject[]): Block {
  const block = { type: "section" as const, text: { type: "mrkdwn" as const, text: truncate(body, MAX_TEXT) } };
  return fields && fields.length > 0 ? { ...block, fields } : block;
}

/** "Jane Doe, Staff Engineer": the one-line identity (plain, unescaped). */
export function personLine(alert: Alert): string {
  const name = singleLine(alert.person.name);
  const title = alert.person.title === undefined ? "" : singleLine(alert.person.title);
  return title ? `${name}, ${title}` : name;
}

/**
 * What happened, in words (plain, unescaped): "Left the company: Jane Doe", "Marked themselves
 * open to work: Jane Doe at Acme Corp", "Left Acme Corp: Jane Doe".
 */
export function headline(alert: Alert): string {
  const name = singleLine(alert.person.name);
  if (alert.lens.kind === "retention") return `${changeInWords(alert.changeType)}: ${name}`;
  const competitor = singleLine(alert.lens.competitor.name);
  if (alert.changeType === DEPARTURE) return `Left ${competitor}: ${name}`;
  return `${changeInWords(alert.changeType)}: ${name} at ${competitor}`;
}

/**
 * The score in the lens's words, with its movement since the person's previous delivered change:
 * "Risk of leaving: High · 0.52 → 0.81". A departure has no score: its line names the last one.
 */
export function scoreInWords(alert: Alert): string | undefined {
  const label = scoreLabel(alert.lens.kind);
  if (alert.riskScore === null) {
    return alert.previousScore === undefined ? undefined : `${label} before this: ${alert.previousScore.toFixed(2)}`;
  }
  const level = riskInWords(alert.riskLevel, null);
  return `${label}: ${level} · ${scoreMovement(alert.previousScore, alert.riskScore)}`;
}

/** The notification line of one alert, escaped like the blocks (Slack reads `text` as mrkdwn). */
export function alertFallback(alert: Alert): string {
  const score = scoreInWords(alert);
  const line = score ? `${headline(alert)} · ${score}` : headline(alert);
  return truncate(escapeMrkdwn(line), MAX_FALLBACK);
}

/** The summary, unless it only says again what the headline says (a third time with the fallback). */
function summaryWorthShowing(alert: Alert): string | undefined {
  const summary = alert.summary?.trim();
  if (!summary) return undefined;
  const words = changeInWords(alert.changeType).toLowerCase();
  return summary.toLowerCase().includes(words) ? undefined : summary;
}

function hrisBlock(alert: Alert): Block | undefined {
  const hris = alert.person.hris;
  if (!hris) return undefined;
  const manager = [hris.managerName, hris.managerEmail].filter((v): v is string => !!v?.trim());
  const managerText =
    manager.length === 2 ? `${text(manager[0] ?? "")} (${text(manager[1] ?? "")})` : text(manager[0] ?? "—");
  const fields = [
    field("Employee ID", text(hris.employeeId ?? "—")),
    field("HR title", text(hris.title ?? "—")),
    field("HR department", text(hris.department ?? "—")),
    field("Manager", managerText),
  ];
  return section("*HR data* (from the roster file)", fields);
}

/**
 * One alert as a Block Kit message an HR lead can act on: what happened (header), who, how the
 * score moved, where and when, the HR data when the person is in the roster file, why, a
 * suggested next step, and links to the profile and the dashboard. Untrusted text is escaped and
 * kept on one line where it should be; every limit holds.
 */
export function formatAlert(alert: Alert, options: FormatOptions = {}): SlackMessage {
  const { person } = alert;
  const blocks: Block[] = [
    {
      type: "header",
      text: { type: "plain_text", text: truncate(plainText(headline(alert)), MAX_HEADER), emoji: true },
    },
  ];
  const title = person.title ? `, ${text(person.title)}` : "";
  const who = `${riskMarker(alert.riskLevel)} *${profileLink(person.profileUrl, person.name)}*${title}`;
  const score = scoreInWords(alert);
  const fields: MrkdwnObject[] = [field("Lens", text(lensLabel(alert.lens)))];
  if (alert.detectedAt) fields.push(field("Detected", text(readableTime(alert.detectedAt))));
  fields.push(field("Location", text(person.location ?? "—")));
  // With HR data, the department is the HR one (below); the profile's is shown only without it.
  if (!person.hris) fields.push(field("Department", text(person.department ?? "—")));
  blocks.push(section(score ? `${who}\n${escapeMrkdwn(score)}` : who, fields));
  const hris = hrisBlock(alert);
  if (hris) blocks.push(hris);

  const summary = summaryWorthShowing(alert);
  if (summary) blocks.push(section(`*Why*\n${escapeMrkdwn(summary)}`));
  const factors = (alert.factors ?? []).map((f) => singleLine(f)).filter((f) => f.length > 0);
  if (factors.length > 0) {
    const shown = factors.slice(0, MAX_FACTORS).map((f) => `• ${escapeMrkdwn(f)}`);
    if (factors.length > MAX_FACTORS) shown.push(`…and ${factors.length - MAX_FACTORS} more`);
    blocks.push(section(`*Signals*\n${shown.join("\n")}`));
  }
  const step = nextStepFor(alert.lens.kind, alert.changeType, options.nextSteps);
  if (step) blocks.push(section(`*Suggested next step*\n${escapeMrkdwn(step)}`));

  const links = [
    profileLink(person.profileUrl, "Profile"),
    dashboardLink(person.dashboardUrl, "Dashboard", options.dashboardOrigins),
  ].filter((link) => link.startsWith("<"));
  if (links.length > 0) blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: links.join(" · ") }] });
  if (alert.acknowledged) {
    blocks.push({
      type: "context",
      elements: [{ type: "mrkdwn", text: acknowledgedLine(alert.acknowledged.by, alert.acknowledged.at) }],
    });
  }
  if (options.actions) blocks.push(actionsBlock(alert, options));
  return { text: alertFallback(alert), blocks };
}

/** The buttons of a single alert; URL buttons only for links the formatter would link too. */
function actionsBlock(alert: Alert, options: FormatOptions): Block {
  const { profileUrl, dashboardUrl } = alert.person;
  const dashboardOk =
    options.dashboardOrigins === undefined
      ? dashboardUrl !== undefined && isLinkableUrl(dashboardUrl)
      : isServiceUrl(dashboardUrl, options.dashboardOrigins);
  return alertActionsBlock(actionTargetOf(alert), {
    profileUrl: networkProfileHref(profileUrl),
    dashboardUrl: dashboardOk ? dashboardUrl : undefined,
  });
}
