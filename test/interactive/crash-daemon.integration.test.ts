/**
 * `retention-sync run` as a real process, SIGKILLed while its Stop-tracking PATCH is held at a
 * proxy (the press journaled and acked, the service not yet reached): the restarted daemon
 * applies the press at start, once: one PATCH reaches the service, one message update, one hold.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ActionJournal } from "../../src/interactive/action-journal.js";
import { loadKeptUntracked } from "../../src/roster/kept-untracked.js";
import { openStateStore } from "../../src/store/state-store.js";
import { bundleEntry } from "../helpers/bundle-entry.js";
import { spawnDaemon, waitForLog } from "../helpers/daemon-process.js";
import { type GatedProxy, startGatedProxy } from "../helpers/gated-proxy.js";
import {
  ALLOWED,
  blocksText,
  configYaml,
  current,
  type InteractiveWorld,
  rootAbout,
  startInteractiveWorld,
} from "./support/interactive-world.js";

let cli: string;
let world: InteractiveWorld;
let proxy: GatedProxy;

beforeAll(async () => {
  cli = await bundleEntry("src/cli.ts", "cli");
  world = await startInteractiveWorld();
  proxy = await startGatedProxy(world.emulator.baseUrl);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await world?.close();
});

const isPatch = (r: { method: string; path: string }) => r.method === "PATCH" && r.path.includes("/employees/");

describe("a real daemon killed between Slack's envelope and the API call", () => {
  it("applies the press once after the restart", async () => {
    const ids: number[] = [];
    for await (const e of world.client.iterateEmployees()) ids.push(e.id);
    const [jane] = ids;
    if (jane === undefined) throw new Error("no people");
    const state = `${world.files.dir}/crash.sqlite`;
    const env = {
      RETENTION_API_URL: proxy.baseUrl,
      RETENTION_API_KEY: world.emulator.writeKey,
      SLACK_BOT_TOKEN: world.slack.token,
      SLACK_APP_TOKEN: world.slack.appToken,
      SLACK_API_URL: world.slack.url,
      SLACK_CHANNEL: "#hr-alerts",
      RETENTION_SYNC_STATE: state,
      RETENTION_SYNC_CONFIG: await world.files.write("crash.yaml", configYaml()),
      LOG_LEVEL: "debug",
    };

    const first = await spawnDaemon(cli, env);
    await world.emulator.control.signals({ employeeId: jane, changeType: "open_to_work", riskScore: 0.9 });
    const root = await rootAbout(world.slack, jane);
    await world.slack.waitForSocketConnection();
    const patch = proxy.hold(isPatch);
    const envelope = world.slack.pressButton({
      channel: root.channel,
      ts: root.ts,
      actionId: "rs_untrack",
      userId: ALLOWED,
    });
    await world.slack.waitForAck(envelope.envelopeId);
    await patch;
    first.child.kill("SIGKILL");
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect((await world.client.getEmployee(jane)).tracked).toBe(true);
    expect(world.slack.updates()).toHaveLength(0);

    const second = await spawnDaemon(cli, env);
    await waitForLog(second, "press applied");
    expect((await world.client.getEmployee(jane)).tracked).toBe(false);
    expect(blocksText(current(world.slack, root))).toContain("Tracking stopped by <@U0CAROL>");
    second.child.kill("SIGTERM");
    expect(await second.exited).toEqual({ code: 0, signal: null });

    // The held PATCH never reached the service; the restart's did, once.
    expect(proxy.requests.filter(isPatch)).toHaveLength(2);
    expect((await world.emulator.control.requests()).filter((r) => r.method === "PATCH")).toHaveLength(1);
    expect(world.slack.updates()).toHaveLength(1);
    expect(envelope.attempts).toBe(1);
    const store = await openStateStore(state);
    try {
      expect((await new ActionJournal(store).all()).map((e) => e.outcome)).toEqual(["applied"]);
      expect([...(await loadKeptUntracked(store)).values()].map((h) => h.employeeId)).toEqual([jane]);
    } finally {
      await store.close();
    }
  }, 60_000);
});
