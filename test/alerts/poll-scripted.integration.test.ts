/**
 * Polling against a purpose-built service (a scripted server): changes the service shows late,
 * dated before the last pass, are still posted; hostile text and links in a change never reach
 * Slack as markup.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ScriptedServer, startScriptedServer } from "../api/support/scripted-server.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { type Harness, messageText, startHarness } from "./support/alert-harness.js";
import { type ScriptedFeed, scriptedFeed } from "./support/scripted-feed.js";

let server: ScriptedServer;
let slack: FakeSlack;
let feed: ScriptedFeed;
let harness: Harness | undefined;

beforeEach(async () => {
  server = await startScriptedServer();
  feed = scriptedFeed();
  server.setHandler(feed.handler);
  slack = await startFakeSlack();
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await slack.close();
  await server.close();
});

async function start(alerts: Record<string, unknown> = {}): Promise<Harness> {
  harness = await startHarness({ baseUrl: server.baseUrl, readKey: "rk_scripted_feed_key_0001" }, slack, {
    alerts: { routes: [{ name: "hr", lens: "retention", minRiskScore: 0.5, channel: "hr-alerts" }], ...alerts },
  });
  return harness;
}

const iso = (ms: number) => new Date(ms).toISOString();
const names = () => slack.posted("hr-alerts").map(messageText).join("\n");

describe("late arrivals", () => {
  it("posts a change that becomes visible after a pass although it is dated before that pass's cursor", async () => {
    const h = await start();
    const t = Date.now();
    feed.show({ id: 1, detectedAt: iso(t - 30_000), overrides: { employee: { id: 11, name: "Ada Early" } } });
    await h.pipeline.poll({ now: new Date(t), dryRun: false });
    expect(names()).toContain("Ada Early");

    // Detection lag at the service: dated three minutes ago, visible only now.
    feed.show({ id: 2, detectedAt: iso(t - 180_000), overrides: { employee: { id: 12, name: "Ben Late" } } });
    const second = await h.pipeline.poll({ now: new Date(t + 60_000), dryRun: false });
    expect(names()).toContain("Ben Late");
    // The overlap re-read the first change too; it was deduped by id, not posted again.
    expect(second.lenses[0]).toMatchObject({ fetched: 2, fresh: 1, duplicates: 1 });
    expect(slack.posted("hr-alerts")).toHaveLength(2);
    // Ten minutes (alerts.cursorOverlap) before the cursor the first pass committed.
    expect(Date.parse(feed.sinces[1] ?? "")).toBe(t - 30_000 - 600_000);
  });

  it("reads only from the cursor when the overlap is set to 0 (the late change is then missed)", async () => {
    const h = await start({ cursorOverlap: 0 });
    const t = Date.now();
    feed.show({ id: 1, detectedAt: iso(t - 30_000) });
    await h.pipeline.poll({ now: new Date(t), dryRun: false });
    feed.show({ id: 2, detectedAt: iso(t - 180_000), overrides: { employee: { id: 12, name: "Ben Late" } } });
    await h.pipeline.poll({ now: new Date(t + 60_000), dryRun: false });
    expect(names()).not.toContain("Ben Late");
  });
});

describe("untrusted text and links from the service", () => {
  const hostile = {
    employee: {
      id: 66,
      name: "Eve\n:red_circle: *Fake Person* — Engineer\u202e\u200b",
      networkUrl: "https://www.linkedin.com@evil.example/in/x",
      url: "https://evil.example/app/people/66",
    },
    summary: "<!channel> click <https://evil.example|here>",
  };

  it("posts a single alert with escaped notification text and no foreign link", async () => {
    const h = await start();
    feed.show({ id: 1, detectedAt: iso(Date.now() - 1000), overrides: hostile });
    await h.pipeline.poll({ now: new Date(), dryRun: false });
    const [message] = slack.posted("hr-alerts");
    if (!message) throw new Error("nothing posted");
    expect(message.text).not.toMatch(/[\n\u202e\u200b]/);
    expect(message.text).not.toContain("<!channel>");
    // No live link to the foreign host (escaped text that mentions it is harmless).
    expect(messageText(message)).not.toMatch(/<https?:\/\/[^>|\s]*evil\.example/);
    expect(messageText(message)).toContain("&lt;!channel&gt;");
  });

  it("keeps a hostile name on its own line in a digest: one line per alert", async () => {
    const h = await start({ digestThreshold: 3 });
    const t = Date.now();
    feed.show({ id: 1, detectedAt: iso(t - 1000), overrides: hostile });
    for (let id = 2; id <= 5; id += 1) feed.show({ id, detectedAt: iso(t - 1000 - id) });
    await h.pipeline.poll({ now: new Date(t), dryRun: false });
    const [digest] = slack.posted("hr-alerts");
    if (!digest) throw new Error("nothing posted");
    const lines = (digest.blocks as Array<{ type: string; text?: { text: string } }>)
      .filter((b) => b.type === "section")
      .flatMap((b) => (b.text?.text ?? "").split("\n"));
    expect(lines.filter((line) => line.startsWith(":red_circle:"))).toHaveLength(5);
    expect(messageText(digest)).not.toMatch(/<https?:\/\/[^>|\s]*evil\.example/);
  });
});
