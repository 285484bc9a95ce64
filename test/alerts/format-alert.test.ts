import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatAlert } from "../../src/alerts/format-alert.js";
import { formatDigest, shouldDigest } from "../../src/alerts/format-digest.js";
import type { Block, SlackMessage } from "../../src/slack/slack-message.js";
import { ACME, buildAlert } from "./support/build-alert.js";

function texts(message: SlackMessage): string[] {
  const out: string[] = [];
  const visit = (block: Block) => {
    if (block.type === "header") out.push(block.text.text);
    if (block.type === "section") {
      out.push(block.text.text);
      for (const f of block.fields ?? []) out.push(f.text);
    }
    if (block.type === "context") for (const e of block.elements) out.push(e.text);
  };
  message.blocks.forEach(visit);
  return out;
}

function assertWithinLimits(message: SlackMessage): void {
  expect(message.blocks.length).toBeLessThanOrEqual(50);
  expect(message.text.length).toBeGreaterThan(0);
  expect(message.text.length).toBeLessThanOrEqual(3000);
  for (const block of message.blocks) {
    if (block.type === "header") expect(block.text.text.length).toBeLessThanOrEqual(150);
    if (block.type === "section") {
      expect(block.text.text.length).toBeLessThanOrEqual(3000);
      expect((block.fields ?? []).length).toBeLessThanOrEqual(10);
      for (const f of block.fields ?? []) expect(f.text.length).toBeLessThanOrEqual(2000);
    }
  }
}

describe("formatAlert", () => {
  it("shows who, where, lens, risk with marker and score, the change in words, summary, factors and links", () => {
    const alert = buildAlert({
      lens: ACME,
      riskScore: 0.82,
      riskLevel: "high",
      changeType: "open_to_work",
      person: {
        name: "Jane Roe",
        title: "Staff Engineer",
        department: "Platform",
        location: "Lisbon",
        employeeId: 42,
        dashboardUrl: "https://app.example.com/employees/42",
      },
    });
    const message = formatAlert(alert);
    const all = texts(message).join("\n");
    for (const expected of ["Jane Roe", "Staff Engineer", "Platform", "Lisbon", "Poaching · Acme Corp"]) {
      expect(all).toContain(expected);
    }
    expect(all).toContain(":red_circle: High · 0.82");
    expect(all).toContain("Marked themselves open to work");
    expect(all).toContain("Marked open to work after a title change");
    expect(all).toContain("• Title change within 30 days");
    expect(all).toContain(`<${alert.person.profileUrl}|Profile>`);
    expect(all).toContain("<https://app.example.com/employees/42|Dashboard>");
    expect(message.text).toBe(
      "High · 0.82 risk (Poaching · Acme Corp): Jane Roe, Staff Engineer: Marked themselves open to work",
    );
    assertWithinLimits(message);
  });

  it("reads a departure without a score as High and omits empty summary and factors", () => {
    const message = formatAlert(
      buildAlert({ changeType: "employee_departed", riskScore: null, riskLevel: "high", summary: "", factors: [] }),
    );
    const all = texts(message).join("\n");
    expect(all).toContain(":red_circle: High");
    expect(all).toContain("Left the company");
    expect(all).not.toContain("*Summary*");
    expect(all).not.toContain("*Factors*");
  });

  it("escapes control characters and neutralises mentions in untrusted text", () => {
    const message = formatAlert(
      buildAlert({
        summary: "<!channel> hi @here & <https://evil.example|click>",
        factors: ["<@U123> said @everyone"],
        person: { name: "Eve <!here>", title: "a > b" },
      }),
    );
    for (const text of texts(message)) {
      expect(text).not.toMatch(/<!(channel|here|everyone)/);
      expect(text).not.toMatch(/<@U/);
      expect(text).not.toMatch(/@(here|channel|everyone)/);
      expect(text).not.toContain("<https://evil.example");
    }
    const all = texts(message).join("\n");
    expect(all).toContain("&lt;!channel&gt;");
    expect(all).toContain("&amp;");
    expect(all).toContain("a &gt; b");
  });

  it("stays within Slack's limits for any input", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 5000 }),
        fc.string({ maxLength: 400 }),
        fc.array(fc.string({ maxLength: 3000 }), { maxLength: 40 }),
        fc.webUrl(),
        (summary, name, factors, url) => {
          const message = formatAlert(buildAlert({ summary, factors, person: { name, title: name, profileUrl: url } }));
          assertWithinLimits(message);
          for (const text of texts(message)) expect(text).not.toMatch(/@(here|channel|everyone)/);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("formatDigest", () => {
  it("digests only above the threshold", () => {
    expect(shouldDigest(10, 10)).toBe(false);
    expect(shouldDigest(11, 10)).toBe(true);
  });

  it("lists every alert in one message, riskiest first", () => {
    const alerts = [
      buildAlert({ riskScore: 0.55, riskLevel: "watch", person: { name: "Low Watch" } }),
      buildAlert({ riskScore: 0.9, riskLevel: "high", person: { name: "Top Risk" } }),
      buildAlert({ changeType: "employee_departed", riskScore: null, riskLevel: "high", person: { name: "Gone" } }),
    ];
    const messages = formatDigest(alerts);
    expect(messages).toHaveLength(1);
    const [message] = messages;
    if (!message) throw new Error("no message");
    const all = texts(message).join("\n");
    expect(all.indexOf("Top Risk")).toBeLessThan(all.indexOf("Low Watch"));
    expect(all).toContain("Gone");
    expect(message.text).toBe("3 risk alerts (2 high, 1 watch)");
  });

  it("splits over several messages only when the block limit forces it, losing no alert", () => {
    const alerts = Array.from({ length: 1000 }, (_, i) =>
      buildAlert({ summary: "x".repeat(i), person: { name: `Person-${i}-x`, title: "t".repeat(300) } }),
    );
    const messages = formatDigest(alerts);
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages) assertWithinLimits(message);
    const all = messages.flatMap(texts).join("\n");
    for (let i = 0; i < 1000; i += 1) expect(all).toContain(`Person-${i}-x`);
    expect(messages[0]?.text).toContain(`(part 1 of ${messages.length})`);
    expect(formatDigest(alerts.slice(0, 100))).toHaveLength(1);
  });
});
