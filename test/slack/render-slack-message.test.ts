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
});
