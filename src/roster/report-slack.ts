import type { Block as SlackBlock, SlackMessage } from "../slack/slack-message.js";
import { escapeMrkdwn, singleLine } from "../slack/slack-text.js";
import { approvedInSlackBlock, heldPlanBlocks } from "./held-plan-slack.js";
import type { EndedHold, KeptPerson } from "./plan-types.js";
import { describeHoldEnd, describeStop, describeWho } from "./plan-words.js";
import type { ReconcileReport } from "./report.js";
import { ROUTINE_DEFERRALS } from "./report-attention.js";
import { deferredLine, failureLine, refusalLine, stepLine, stepSections } from "./report-text.js";
import { problemPlace, ROW_ERROR_REASONS } from "./roster-rows.js";

/** Longest list the ops post shows of one kind: the post is read on a phone; `--json` has them all. */
export const SLACK_LIST_LIMIT = 10;
/** Below Slack's 3,000-character limit of a section's text. */
const SECTION_CHARS = 2900;

/**
 * Text for a Slack mrkdwn code block. Values from the HRIS file reach the report (names, cell
 * excerpts in row problems): Slack's control characters are escaped (its formatting guide) and
 * backticks are replaced, so nothing can close the code block, link, or mention anyone.
 */
export function slackCodeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/`/g, "'");
}

/** A titled code block of lines, cut to fit a section, never inside an escape; `more` follows the count of the rest. */
export function codeSection(title: string, lines: readonly string[], more = ", see --json"): SlackBlock {
  const kept: string[] = [];
  let size = title.length + 8;
  for (const [i, line] of lines.entries()) {
    const escaped = slackCodeText(line);
    if (size + escaped.length + 1 > SECTION_CHARS - 40) {
      kept.push(`...and ${lines.length - i} more${more}`);
      break;
    }
    kept.push(escaped);
    size += escaped.length + 1;
  }
  // verbatim: Slack must not turn URLs or channel names in the body into links.
  return {
    type: "section",
    text: { type: "mrkdwn", text: `${slackCodeText(title)}\n\`\`\`${kept.join("\n")}\`\`\``, verbatim: true },
  };
}

/** A Slack user id (`U...`, `W...`) as the Slack actions store it: shown as a mention, anything else as text. */
const SLACK_USER_ID = /^[UW][A-Z0-9]{2,40}$/;

function stopperMention(stoppedBy: string): string {
  return SLACK_USER_ID.test(stoppedBy) ? `<@${stoppedBy}>` : escapeMrkdwn(singleLine(stoppedBy).slice(0, 40));
}

/** `• Ada (E1, Eng) https://... - stopped in Slack by <@U123> on 2026-11-20`: the name escaped, the stopper mentioned. */
function holdLine(person: KeptPerson | EndedHold): string {
  const who = escapeMrkdwn(singleLine(describeWho(person.who, person.url)));
  const stop = describeStop(person, stopperMention(person.stoppedBy));
  return "cause" in person ? `• ${who} - ${describeHoldEnd(person.cause)} (${stop})` : `• ${who} - ${stop}`;
}

/**
 * A titled mrkdwn list, not a code block: its `<@U...>` mentions must render. Everything from the
 * HRIS is escaped (`escapeMrkdwn`); `verbatim` keeps Slack from linking URLs and names itself.
 */
function mentionSection(title: string, lines: readonly string[], limit: number): SlackBlock {
  const kept: string[] = [];
  let size = title.length + 8;
  for (const [i, line] of lines.entries()) {
    if (i >= limit || size + line.length + 1 > SECTION_CHARS - 40) {
      kept.push(`...and ${lines.length - i} more, see --json`);
      break;
    }
    kept.push(line);
    size += line.length + 1;
  }
  return { type: "section", text: { type: "mrkdwn", text: `*${title}*\n${kept.join("\n")}`, verbatim: true } };
}

/** `3 added, 2 archived`: what a routine run did or would do. */
function didWhat(r: ReconcileReport): string {
  const parts: string[] = [];
  const verbs = {
    add: "added",
    revive: "revived",
    track: "tracked",
    untrack: "untracked",
    archive: "archived",
    erase: "erased",
  };
  for (const [kind, n] of Object.entries(r.planned)) {
    if (n > 0) parts.push(`${n} ${r.dryRun ? `to ${kind}` : verbs[kind as keyof typeof verbs]}`);
  }
  return parts.length > 0 ? parts.join(", ") : "nothing to change";
}

function summary(r: ReconcileReport): string[] {
  const lines = [`file ${r.file}`];
  if (r.export) {
    lines.push(
      `export written ${r.export.modifiedAt.slice(0, 10)}, ${r.export.newExport ? "new" : "same as the last run"}${r.export.stale ? `, unchanged for ${r.export.ageDays} days` : ""}`,
    );
  }
  lines.push(`rows read ${r.rows.read}, in scope ${r.rows.inScope}`);
  const reasons = Object.entries(r.rows.byReason).map(([k, n]) => `${k} ${n}`);
  if (reasons.length > 0) lines.push(`rows not used: ${reasons.join(", ")}`);
  lines.push(
    `billing ${r.billing.state} (plan ${r.billing.planStatus ?? "unknown"}, ${r.billing.perSeatUsd} USD/seat)`,
  );
  const planned = Object.entries(r.planned)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  lines.push(`planned: ${planned}`);
  if (r.applied) {
    const a = r.applied;
    lines.push(
      `done: add ${a.addedTracked + a.addedUntracked}, revive ${a.revived}, track ${a.tracked}, untrack ${a.untracked}, archive ${a.archived}, erase ${a.erased}` +
        `${a.alreadyPresent > 0 ? `, already there ${a.alreadyPresent}` : ""}${a.unconfirmed > 0 ? `, unconfirmed ${a.unconfirmed}` : ""}`,
    );
  }
  lines.push(`seat delta ${r.seatDelta >= 0 ? "+" : ""}${r.seatDelta} (${r.monthlyCostDeltaUsd.toFixed(2)} USD/month)`);
  if (r.heldForBrokenRows > 0) {
    lines.push(`archives held for broken rows: ${r.heldForBrokenRows} (still in the file; see the warnings)`);
  }
  if (r.waitingToArchive > 0)
    lines.push(`missing from this export, archived after more missing exports: ${r.waitingToArchive}`);
  if (r.keptUntracked.length > 0) lines.push(`kept untracked (stopped in Slack): ${r.keptUntracked.length}`);
  if (r.holdsEnded.length > 0) {
    lines.push(`holds ${r.dryRun ? "that would end" : "ended"} (stopped in Slack): ${r.holdsEnded.length}`);
  }
  if (r.deferred.total > 0) {
    const why = Object.entries(r.deferred.byReason)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ");
    lines.push(`deferred to a later run: ${r.deferred.total} (${why})`);
  }
  for (const f of r.findings) lines.push(`${f.severity.toUpperCase()}: ${f.message}`);
  lines.push(`${r.requests} requests (${r.writeRequests} writes) in ${(r.durationMs / 1000).toFixed(1)} s`);
  return lines;
}

function headline(r: ReconcileReport): string {
  const dry = r.dryRun ? " (dry run)" : "";
  if (r.findings.some((f) => f.kind === "billing-blocked" && f.message.includes("charge"))) {
    return `:rotating_light: Roster reconcile${dry}: a seat charge failed, no one can be added`;
  }
  if (r.outcome === "needs-attention") {
    return `:warning: Roster reconcile${dry} needs attention: ${r.attention.join("; ")}`;
  }
  if (r.guardLifted) {
    const { means, archives } = r.guardLifted;
    return `:warning: Roster reconcile${dry}: mass-archive guard lifted by ${means} for ${archives} ${archives === 1 ? "person" : "people"}: ${didWhat(r)}`;
  }
  return `:white_check_mark: Roster reconcile${dry}, routine: ${didWhat(r)}`;
}

/**
 * The report as a Slack ops-channel message: a headline that tells routine from needs-attention,
 * a summary, then every list (the plan's people by change, who the guard held back, who the
 * service refused, what failed, the rows to fix) named and collapsed.
 */
export function renderReportSlack(r: ReconcileReport, limit = SLACK_LIST_LIMIT): SlackMessage {
  const title = headline(r);
  const blocks: SlackBlock[] = [
    { type: "section", text: { type: "mrkdwn", text: `*${slackCodeText(title).slice(0, SECTION_CHARS)}*` } },
    ...(r.approvedInSlack ? [approvedInSlackBlock(r.approvedInSlack)] : []),
    codeSection("Summary", summary(r)),
    // Before the lists: the message is cut at 50 blocks, and the buttons must stay.
    ...(r.heldPlan ? heldPlanBlocks(r.heldPlan) : []),
  ];
  for (const section of stepSections(r.steps, limit)) {
    blocks.push(codeSection(`${section.kind} (${r.planned[section.kind]})`, section.lines));
  }
  const list = (title: string, lines: readonly string[]) => {
    if (lines.length === 0) return;
    const shown =
      lines.length > limit ? [...lines.slice(0, limit), `...and ${lines.length - limit} more, see --json`] : lines;
    blocks.push(codeSection(title, shown));
  };
  if (r.keptUntracked.length > 0) {
    const title = `Kept untracked (stopped in Slack) (${r.keptUntracked.length})`;
    blocks.push(mentionSection(title, r.keptUntracked.map(holdLine), limit));
  }
  if (r.holdsEnded.length > 0) {
    const title = `Holds ${r.dryRun ? "that would end" : "ended"} (${r.holdsEnded.length})`;
    blocks.push(mentionSection(title, r.holdsEnded.map(holdLine), limit));
  }
  if (r.guard) {
    list(
      `Held by the mass-archive guard (${r.guard.people.length} of ${r.guard.managed} managed, ${r.guard.percent} %)`,
      r.guard.people.map(stepLine),
    );
  }
  list(`Refused by the service (${r.refusals.length})`, r.refusals.map(refusalLine));
  list(`Failed (${r.failures.length})`, r.failures.map(failureLine));
  if (r.rows.reported) {
    const errors = r.rows.problems.filter((p) => ROW_ERROR_REASONS.has(p.reason));
    list(
      `Rows to fix (${errors.length})`,
      errors.map((p) => `${problemPlace(p)}: ${p.reason}: ${p.message}`),
    );
  }
  // Deferrals a person must lift (caps, trial, billing); the daily allowances' are only counted above.
  const stuck = r.deferred.items.filter((d) => !ROUTINE_DEFERRALS.has(d.reason) && d.reason !== "interrupted");
  list(`Deferred (${stuck.length})`, stuck.map(deferredLine));
  return { text: title.slice(0, SECTION_CHARS), blocks: blocks.slice(0, 50) };
}
