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
  it("shows what happened, who, the score in the lens's words, where, when, why, a next step and links", () => {
    const alert = buildAlert({
      lens: ACME,
      riskScore: 0.82,
      riskLevel: "high",
      changeType: "open_to_work",
      detectedAt: "2026-11-24T14:05:09.000Z",
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
    expect(message.blocks[0]).toMatchObject({
      type: "header",
      text: { text: "Marked themselves open to work: Jane Roe at Acme Corp" },
    });
    for (const expected of ["Jane Roe", "Staff Engineer", "Platform", "Lisbon", "Poaching · Acme Corp"]) {
      expect(all).toContain(expected);
    }
    expect(all).toContain("Openness to a move: High · 0.82");
    expect(all).not.toMatch(/risk/i);
    expect(all).toContain("Tue 24 Nov, 14:05 UTC");
    expect(all).not.toContain("2026-11-24T14:05");
    expect(all).toContain("Marked open to work after a title change");
    expect(all).toContain("• Title change within 30 days");
    expect(all).toContain("*Suggested next step*\nShare with the hiring manager of a matching open role");
    expect(all).toContain(`<${alert.person.profileUrl}|Profile>`);
    expect(all).toContain("<https://app.example.com/employees/42|Dashboard>");
    expect(message.text).toBe(
      "Marked themselves open to work: Jane Roe at Acme Corp · Openness to a move: High · 0.82",
    );
    assertWithinLimits(message);
  });

  it("heads a departure with what happened, not with a risk level, and says no sentence three times", () => {
    const message = formatAlert(
      buildAlert({
        changeType: "employee_departed",
        riskScore: null,
        riskLevel: "high",
        summary: "Person X left the company.",
        factors: [],
        person: { name: "Dana Gone" },
      }),
    );
    expect(message.blocks[0]).toMatchObject({ type: "header", text: { text: "Left the company: Dana Gone" } });
    const all = [message.text, ...texts(message)].join("\n");
    expect(all).not.toContain("High risk");
    expect(all.match(/left the company/gi)?.length).toBe(2);
    expect(all).not.toContain("*Why*");
    expect(all).not.toContain("*Signals*");
    expect(all).toContain("Confirm the departure with the manager");
    const poached = formatAlert(buildAlert({ lens: ACME, changeType: "employee_departed", riskScore: null }));
    expect(poached.blocks[0]).toMatchObject({ text: { text: expect.stringMatching(/^Left Acme Corp: Person \d+$/) } });
  });

  it("shows how the score moved since the person's previous delivered change", () => {
    const moved = formatAlert(buildAlert({ riskScore: 0.81, riskLevel: "high", previousScore: 0.52 }));
    expect(texts(moved).join("\n")).toContain("Risk of leaving: High · 0.52 → 0.81");
    expect(moved.text).toContain("0.52 → 0.81");
    const first = formatAlert(buildAlert({ riskScore: 0.81, riskLevel: "high" }));
    expect(texts(first).join("\n")).toContain("Risk of leaving: High · 0.81");
    const departed = formatAlert(
      buildAlert({ changeType: "employee_departed", riskScore: null, riskLevel: "high", previousScore: 0.77 }),
    );
    expect(texts(departed).join("\n")).toContain("Risk of leaving before this: 0.77");
  });

  it("labels the roster file's data as HR data beside the profile's title", () => {
    const message = formatAlert(
      buildAlert({
        person: {
          title: "Growth Hacker",
          department: "Marketing",
          hris: {
            employeeId: "E-1042",
            title: "Marketing Specialist II",
            department: "Marketing",
            managerEmail: "boss@example.com",
            managerName: "Bo Ss",
          },
        },
      }),
    );
    const all = texts(message).join("\n");
    expect(all).toContain("*HR data* (from the roster file)");
    expect(all).toContain("*Employee ID*\nE-1042");
    expect(all).toContain("*HR title*\nMarketing Specialist II");
    expect(all).toContain("*HR department*\nMarketing");
    // The "@" of an email is followed by a word joiner so Slack never reads it as a mention.
    expect(all).toMatch(/\*Manager\*\nBo Ss \(boss@\u2060?example\.com\)/);
    expect(all).toContain(", Growth Hacker");
    expect(all).not.toContain("*Department*");
    expect(texts(formatAlert(buildAlert())).join("\n")).not.toContain("HR data");
  });

  it("takes next steps from alerts.nextSteps over the defaults; an empty one shows none", () => {
    const nextSteps = {
      retention: { open_to_work: "Call Maria in People Ops.", default: "" },
      poaching: {},
    };
    const own = formatAlert(buildAlert({ changeType: "open_to_work" }), { nextSteps });
    expect(texts(own).join("\n")).toContain("*Suggested next step*\nCall Maria in People Ops.");
    const other = formatAlert(buildAlert({ changeType: "new_skills" }), { nextSteps });
    expect(texts(other).join("\n")).not.toContain("Suggested next step");
    const theirs = formatAlert(buildAlert({ lens: ACME, changeType: "new_skills" }), { nextSteps });
    expect(texts(theirs).join("\n")).toContain("Add them to the talent pipeline");
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

  it("escapes the notification text like the blocks", () => {
    const message = formatAlert(buildAlert({ person: { name: "<!channel> <https://evil.example|x> & co" } }));
    expect(message.text).not.toMatch(/<!channel>|<https:/);
    expect(message.text).toContain("&lt;!channel&gt;");
    expect(message.text).toContain("&amp; co");
  });

  it("keeps single-line fields on one line, without bidi overrides or zero-width characters", () => {
    const message = formatAlert(
      buildAlert({
        person: {
          name: "Mallory\n:red_circle: *Fake Person*\u202e\u200bgnp.exe",
          title: "CEO\r\nof everything",
          location: "Berlin\u2066\u2069",
        },
      }),
    );
    for (const text of [message.text, ...texts(message)]) {
      expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b-\u200d\ufeff]/);
    }
    expect(message.blocks[0]).toMatchObject({ text: { text: expect.not.stringContaining("\n") } });
    expect(message.text).not.toContain("\n");
    const who = texts(message)[1] ?? "";
    expect(who.split("\n")[0]).toContain("Mallory :red_circle: *Fake Person*gnp.exe");
    expect(who.split("\n")[0]).toContain("CEO of everything");
  });

  it("links a profile only to https on the network's own host, and the dashboard only to the service", () => {
    const hostile = [
      "https://www.linkedin.com@evil.example/in/x",
      "http://www.linkedin.com/in/x",
      "https://linkedin.com.evil.example/in/x",
      "https://www.linkedin.com:8443/in/x",
      "javascript:alert(1)",
    ];
    for (const profileUrl of hostile) {
      const message = formatAlert(buildAlert({ person: { name: "Eve", profileUrl, dashboardUrl: undefined } }));
      const all = texts(message).join("\n");
      expect(all).not.toContain("evil.example|");
      expect(all).not.toMatch(/<[^>]*\|Eve>/);
      expect(all).not.toContain("|Profile>");
    }
    const ok = formatAlert(buildAlert({ person: { name: "Ann", profileUrl: "https://de.linkedin.com/in/ann" } }));
    expect(texts(ok).join("\n")).toContain("<https://de.linkedin.com/in/ann|Ann>");

    const origins = ["https://retention.example.com"];
    const own = formatAlert(buildAlert({ person: { dashboardUrl: "https://retention.example.com/app/people/1" } }), {
      dashboardOrigins: origins,
    });
    expect(texts(own).join("\n")).toContain("|Dashboard>");
    const foreign = formatAlert(buildAlert({ person: { dashboardUrl: "https://evil.example/app/people/1" } }), {
      dashboardOrigins: origins,
    });
    expect(texts(foreign).join("\n")).not.toContain("Dashboard");
  });

  it("links a profile as the parsed URL, and only a LinkedIn /in/<slug> page", () => {
    const notLinked = [
      // Parsers disagree on this one's host: WHATWG reads www.linkedin.com, others evil.example.
      "https://www.linkedin.com\\@evil.example/in/x",
      "https://www.linkedin.com/redir/redirect?url=https%3A%2F%2Fevil.example%2F",
      "https://www.linkedin.com/company/acme",
      "https://www.linkedin.com/in/",
      "https://www.linkedin.com/in/x/posts",
      "https://evil.linkedin.com/in/x",
    ];
    for (const profileUrl of notLinked) {
      const alert = buildAlert({ person: { name: "Eve <b>", profileUrl, dashboardUrl: undefined } });
      const message = formatAlert(alert, { actions: true });
      const all = texts(message).join("\n");
      expect(all, profileUrl).toContain("*Eve &lt;b&gt;*");
      expect(all, profileUrl).not.toMatch(/<[^>]*\|Eve/);
      expect(all, profileUrl).not.toContain("|Profile>");
      expect(JSON.stringify(message.blocks), profileUrl).not.toContain('"action_id":"rs_profile"');
      const digest = formatDigest([alert, buildAlert()], { actions: true }).flatMap(texts).join("\n");
      expect(digest, profileUrl).not.toMatch(/<[^>]*\|Eve/);
    }
    const linked: Array<[string, string]> = [
      ["https://www.linkedin.com/in/jane-doe", "https://www.linkedin.com/in/jane-doe"],
      ["https://de.linkedin.com/in/jane-doe/", "https://de.linkedin.com/in/jane-doe/"],
      ["https://LinkedIn.com:443/in/Jane-Doe", "https://linkedin.com/in/Jane-Doe"],
    ];
    for (const [profileUrl, href] of linked) {
      const message = formatAlert(buildAlert({ person: { name: "Jane", profileUrl } }), { actions: true });
      const all = texts(message).join("\n");
      expect(all).toContain(`<${href}|Jane>`);
      expect(all).toContain(`<${href}|Profile>`);
      expect(JSON.stringify(message.blocks)).toContain(
        `"action_id":"rs_profile","text":{"type":"plain_text","text":"Open profile ↗","emoji":true},"url":"${href}"`,
      );
    }
  });

  it("never leaves a link cut open when a long text is shortened", () => {
    // The profile link alone (1,900-character URL, 2,500-character name) is longer than a section.
    const profileUrl = `https://www.linkedin.com/in/${"x".repeat(1900)}`;
    const message = formatAlert(buildAlert({ person: { name: "n".repeat(2500), profileUrl } }));
    const who = texts(message)[1] ?? "";
    expect(who.length).toBeLessThanOrEqual(3000);
    for (const text of texts(message)) {
      const opened = text.lastIndexOf("<");
      expect(opened === -1 || text.indexOf(">", opened) !== -1).toBe(true);
    }
    assertWithinLimits(message);
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

  it("keeps every alert on its own line: a name cannot fake extra lines", () => {
    const alerts = [
      buildAlert({ person: { name: "Eve\n:red_circle: *Fake Person* — Engineer\u2028:red_circle: *Another*" } }),
      buildAlert({ person: { name: "Real" } }),
    ];
    const [message] = formatDigest(alerts);
    if (!message) throw new Error("no message");
    const lines = texts(message)
      .filter((t) => t.startsWith(":"))
      .flatMap((t) => t.split("\n"));
    expect(lines.filter((line) => line.startsWith(":red_circle:"))).toHaveLength(2);
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
