import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planDeliveries } from "../../src/alerts/plan-deliveries.js";
import { openStateStore } from "../../src/store/state-store.js";
import { buildAlert } from "../alerts/support/build-alert.js";
import { bundleEntry } from "../helpers/bundle-entry.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { auditChildOutput } from "../helpers/log-audit.js";
import { buildSender } from "./support/build-sender.js";

describe("a real process killed between Slack's confirmation and mark-sent", () => {
  let slack: FakeSlack;
  let dir: string;
  let childScript: string;

  beforeAll(async () => {
    childScript = await bundleEntry("test/delivery/support/crash-child.ts", "crash-child");
    slack = await startFakeSlack();
    dir = mkdtempSync(join(tmpdir(), "rs-kill-"));
  });
  afterAll(async () => {
    await slack.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    { pacing: "paced posts", burst: 1 },
    { pacing: "back-to-back posts (a burst)", burst: 5 },
  ])("loses nothing and posts only the in-flight alert twice: $pacing", async ({ burst }) => {
    const file = join(dir, `state-${burst}.sqlite`);
    const alerts = Array.from({ length: 5 }, (_, i) => buildAlert({ person: { name: `Killed-${i}` } }));
    const plan = planDeliveries({
      alerts,
      routing: { routes: [{ lens: "both", minRiskScore: 0, channel: "hr-alerts" }] },
      digestThreshold: 10,
      managerDm: false,
    });
    const setup = await openStateStore(file);
    await buildSender(setup, slack).outbox.enqueue(plan.drafts, Date.now());
    await setup.close();

    const crashKey = alerts[2]?.key ?? "";
    // The fake Slack is shared by the cases: only what this case posts counts.
    const posted = (() => {
      const already = slack.posted("hr-alerts").length;
      return () => slack.posted("hr-alerts").slice(already);
    })();
    const child = spawn(process.execPath, [childScript, file, slack.url, slack.token, crashKey, String(burst)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const childOutput = auditChildOutput("crash child (child process)", child);
    const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
    expect({ code, signal }, childOutput.text()).toEqual({ code: null, signal: "SIGKILL" });
    expect(posted()).toHaveLength(3);

    const restarted = await openStateStore(file);
    const report = await buildSender(restarted, slack).sender.flush();
    await restarted.close();
    const texts = posted().map((m) => String(m.text));
    expect(report).toMatchObject({ possibleDuplicates: 1, sent: 3, pending: 0 });
    expect(new Set(texts).size).toBe(5);
    expect(texts.filter((t) => t.includes("Killed-2"))).toHaveLength(2);
    expect(texts).toHaveLength(6);
    console.info(
      `double-post window: only the entry confirmed but not yet marked sent is posted again; mark-sent took at most ${report.maxMarkSentMs.toFixed(2)} ms after confirmation (${report.sent} posts)`,
    );
  });
});
