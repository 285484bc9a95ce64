/**
 * A real process killed between Slack's envelope and the API call: the press was journaled and
 * acked (Slack will not send it again), nothing was applied. The next start applies it once.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { personKey } from "../../src/alerts/alert.js";
import { formatAlert } from "../../src/alerts/format-alert.js";
import { RetentionClient } from "../../src/api/client.js";
import { ActionJournal, isPersonEntry } from "../../src/interactive/action-journal.js";
import { interactivitySettings } from "../../src/interactive/interactive-settings.js";
import { postedPeopleOf } from "../../src/interactive/posted-people.js";
import { createInteractivity } from "../../src/interactive/start-interactivity.js";
import { silentLogger } from "../../src/logger.js";
import { loadKeptUntracked } from "../../src/roster/kept-untracked.js";
import { POSTED_NAMESPACE, postedKey } from "../../src/slack/posted-messages.js";
import { createSlackWebClient, webClientPoster } from "../../src/slack/slack-poster.js";
import { openStateStore } from "../../src/store/state-store.js";
import { buildAlert } from "../alerts/support/build-alert.js";
import { bundleEntry } from "../helpers/bundle-entry.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { auditChildOutput } from "../helpers/log-audit.js";
import { rosterDir } from "../helpers/roster-files.js";
import { startTestEmulator, type TestEmulator } from "../helpers/start-emulator.js";
import { crashWorldConfig } from "./support/crash-config.js";

const ALLOWED = "U0CAROL";

describe("a real process killed after a press is journaled and acked, before the API call", () => {
  let emulator: TestEmulator;
  let slack: FakeSlack;
  let files: Awaited<ReturnType<typeof rosterDir>>;
  let childScript: string;

  beforeAll(async () => {
    childScript = await bundleEntry("test/interactive/support/crash-press-child.ts", "crash-press-child");
    emulator = await startTestEmulator({ seed: "empty", rateLimitPerMinute: 100_000 });
    await emulator.control.seedPeople({ count: 2, tracked: true });
    slack = await startFakeSlack({ socketResendAfterMs: 200 });
    files = await rosterDir();
  });
  afterAll(async () => {
    await slack.close();
    await emulator.close();
    await files.cleanup();
  });

  it("applies the stop once after the restart", async () => {
    const client = new RetentionClient({ baseUrl: emulator.baseUrl, apiKey: emulator.writeKey });
    const [employee] = (await client.listEmployees({ pageSize: 10 })).items;
    if (!employee) throw new Error("no people");
    const logger = silentLogger();
    const web = createSlackWebClient({ token: slack.token, apiUrl: slack.url, logger });
    const alert = buildAlert({
      lens: { kind: "retention", organizationId: employee.organizationId },
      person: { employeeId: employee.id, name: employee.name, profileUrl: employee.networkUrl },
    });
    const message = formatAlert(alert, { actions: true });
    const posted = await webClientPoster(web).postMessage({ channel: "#hr-alerts", ...message });
    const file = `${files.dir}/state.sqlite`;
    // Posted without the outbox here: the record delivery keeps of a post with buttons, written by hand.
    const seeded = await openStateStore(file);
    await seeded.namespace(POSTED_NAMESPACE).set(postedKey(posted.channel, posted.ts), postedPeopleOf([alert]));
    await seeded.close();

    const child = spawn(
      process.execPath,
      [childScript, file, slack.url, slack.token, slack.appToken, emulator.baseUrl, emulator.writeKey, ALLOWED],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const childOutput = auditChildOutput("crash press child (child process)", child);
    const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    await slack.waitForSocketConnection();
    const envelope = slack.pressButton({
      channel: posted.channel,
      ts: posted.ts,
      actionId: "rs_untrack",
      userId: ALLOWED,
    });
    const [code, signal] = await exited;
    expect({ code, signal }, childOutput.text()).toEqual({ code: null, signal: "SIGKILL" });
    expect((await slack.waitForAck(envelope.envelopeId)).acked).toBe(true);
    expect((await client.getEmployee(employee.id)).tracked).toBe(true);
    expect(slack.updates()).toHaveLength(0);

    const store = await openStateStore(file);
    try {
      const journal = new ActionJournal(store);
      expect((await journal.all()).map((e) => e.outcome)).toEqual(["pending"]);
      const config = crashWorldConfig({
        botToken: slack.token,
        appToken: slack.appToken,
        slackUrl: slack.url,
        allowed: ALLOWED,
      });
      const restarted = createInteractivity({
        settings: { ...interactivitySettings(config), mode: "off" },
        store,
        slack: web,
        slackApiUrl: slack.url,
        client,
        logger,
      });
      expect(await restarted.actions.recover()).toBe(1);
      expect((await client.getEmployee(employee.id)).tracked).toBe(false);
      const entries = (await journal.all()).filter(isPersonEntry);
      expect(entries.map((e) => [e.outcome, e.press.kind, e.press.target.personRef])).toEqual([
        ["applied", "untrack", personKey(alert)],
      ]);
      expect([...(await loadKeptUntracked(store)).values()].map((h) => h.employeeId)).toEqual([employee.id]);
      expect(slack.updates()).toHaveLength(1);
      expect(JSON.stringify(slack.updates()[0]?.blocks)).toContain("Tracking stopped by <@U0CAROL>");
      // Applied once: a second start finds nothing to do, and Slack had no reason to send it again.
      expect(await restarted.actions.recover()).toBe(0);
      expect(slack.envelopes().filter((e) => e.envelopeId === envelope.envelopeId)[0]?.attempts).toBe(1);
      const patches = (await emulator.control.requests()).filter(
        (r) => r.method === "PATCH" && String(r.path).includes(`/employees/${employee.id}`),
      );
      expect(patches).toHaveLength(1);
    } finally {
      await store.close();
      await client.close();
    }
  });
});
