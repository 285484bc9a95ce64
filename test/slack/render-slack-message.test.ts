import { describe, expect, it } from "vitest";
import { renderSlackMessage } from "../../src/slack/render-slack-message.js";

describe("renderSlackMessage", () => {
  it("reads Block Kit back as lines with visible link targets", () => {
    const out = renderSlackMessage({
      channel: "#hr-alerts",
      text: "fallback",
      blocks: [
        { type: "header", text: { type: "plain_text", text: "High risk" } },
        {
          type: "section",
          text: { type: "mrkdwn", text: "*Ada*\nEngineer" },
          fields: [{ type: "mrkdwn", text: "Score 0.91" }],
        },
        {
          type: "context",
          elements: [
            { type: "mrkdwn", text: "<https://x.test/p|Profile>" },
            { type: "mrkdwn", text: "retention" },
          ],
        },
        { type: "divider" },
      ],
    });
    expect(out.split("\n")).toEqual([
      "┌─ Slack #hr-alerts",
      "│ HIGH RISK",
      "│ *Ada*",
      "│ Engineer",
      "│   Score 0.91",
      "│   Profile (https://x.test/p)  ·  retention",
      "│   ----",
      "└─",
    ]);
  });

  it("falls back to the text and marks thread replies", () => {
    expect(renderSlackMessage({ channel: "C1", text: "hello\nworld", threadTs: "1.2" })).toBe(
      "┌─ Slack C1 (in thread)\n│ hello\n│ world\n└─",
    );
  });

  it("shows buttons, menus and overflow accessories", () => {
    const out = renderSlackMessage({
      channel: "#hr-alerts",
      blocks: [
        {
          type: "section",
          text: { type: "mrkdwn", text: "Ada — open to work" },
          accessory: { type: "overflow", action_id: "rs_menu", options: [] },
        },
        {
          type: "actions",
          elements: [
            { type: "button", text: { type: "plain_text", text: "Acknowledge" }, action_id: "rs_ack" },
            { type: "static_select", placeholder: { type: "plain_text", text: "Snooze" }, action_id: "rs_snooze" },
            { type: "button", text: { type: "plain_text", text: "Open profile ↗" }, url: "https://x.test" },
          ],
        },
      ],
    });
    expect(out.split("\n")).toEqual([
      "┌─ Slack #hr-alerts",
      "│ Ada — open to work  [ ⋯ ]",
      "│ [ Acknowledge ] [ Snooze ▾ ] [ Open profile ↗ ]",
      "└─",
    ]);
  });

  it("undoes Slack's escapes and shows links, channels and @here as a person reads them", () => {
    const out = renderSlackMessage({
      channel: "#hr-alerts",
      blocks: [
        { type: "header", text: { type: "plain_text", text: "R&amp;D <lead>" } },
        { type: "section", text: { type: "mrkdwn", text: "*<https://x.test/p?a=1&amp;b=2|&lt;Ada&gt; &amp; Co>*" } },
        { type: "context", elements: [{ type: "mrkdwn", text: "see <#C0123456|hr-ops> <!here> <mailto:a@x.test>" }] },
      ],
    });
    expect(out.split("\n")).toEqual([
      "┌─ Slack #hr-alerts",
      // plain_text is shown as Slack shows it: no escapes to undo there
      "│ R&AMP;D <LEAD>",
      "│ *<Ada> & Co (https://x.test/p?a=1&b=2)*",
      "│   see #hr-ops @here mailto:a@x.test",
      "└─",
    ]);
    expect(renderSlackMessage({ channel: "C1", text: "&lt;name&gt; left" })).toBe("┌─ Slack C1\n│ <name> left\n└─");
  });
});
