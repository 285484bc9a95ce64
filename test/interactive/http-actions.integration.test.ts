/**
 * Issue 18's optional HTTP mode: Slack POSTs the press to the ops server, signed; a good
 * signature is applied, a bad or stale one is refused with 401 and changes nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FakeSlackMessage } from "../helpers/fake-slack.js";
import {
  blocksText,
  current,
  type InteractiveWorld,
  rootAbout,
  startInteractiveWorld,
  until,
} from "./support/interactive-world.js";

let world: InteractiveWorld;
beforeEach(async () => {
  world = await startInteractiveWorld();
});
afterEach(async () => {
  await world.close();
});

/** Slack's block_actions payload for a press of `actionId` on `message` (as Slack would POST it). */
function pressPayload(message: FakeSlackMessage, actionId: string, userId: string, actionTs: string) {
  const blocks = (message.blocks ?? []) as Array<{
    block_id?: string;
    elements?: Array<{ action_id?: string; value?: string }>;
  }>;
  const element = blocks.flatMap((b) => b.elements ?? []).find((e) => e.action_id === actionId);
  if (!element) throw new Error(`no ${actionId} on the message`);
  return {
    type: "block_actions",
    user: { id: userId, username: userId.toLowerCase(), team_id: "TFAKE0001" },
    api_app_id: "A0FAKE0001",
    container: { type: "message", message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
    channel: { id: message.channel, name: "hr-alerts" },
    message: { ts: message.ts, text: message.text, blocks: message.blocks },
    trigger_id: "1.2.3",
    actions: [
      { action_id: actionId, block_id: "rs_actions", type: "button", value: element.value, action_ts: actionTs },
    ],
  };
}

describe("interactive alerts over HTTP", () => {
  it("applies a press with a good signature and refuses a bad and a stale one", async () => {
    const ids: number[] = [];
    for await (const e of world.client.iterateEmployees()) ids.push(e.id);
    const [jane] = ids;
    if (jane === undefined) throw new Error("no people");
    const configured = await world.start({
      mode: "http",
      env: { SLACK_APP_TOKEN: "", SLACK_SIGNING_SECRET: world.slack.signingSecret },
    });
    const url = `${configured.daemon.opsUrl}/slack/interactivity`;
    await world.emulator.control.signals({ employeeId: jane, changeType: "open_to_work", riskScore: 0.9 });
    const root = await rootAbout(world.slack, jane);
    expect(blocksText(root)).toContain('"action_id":"rs_ack"');
    expect(world.slack.socketConnections()).toBe(0);

    const bad = await world.slack.postInteractivity(url, pressPayload(root, "rs_ack", "U0MALLORY", "1700000001.1"), {
      secret: "not-the-signing-secret",
    });
    expect(bad.status).toBe(401);
    const stale = await world.slack.postInteractivity(url, pressPayload(root, "rs_ack", "U0MALLORY", "1700000002.1"), {
      timestamp: Math.floor(Date.now() / 1000) - 301,
    });
    expect(stale.status).toBe(401);
    expect(world.slack.updates()).toHaveLength(0);

    const good = await world.slack.postInteractivity(url, pressPayload(root, "rs_ack", "U0ALICE", "1700000003.1"));
    expect(good.status).toBe(200);
    await until("the acknowledged message", () =>
      blocksText(current(world.slack, root)).includes("Acknowledged by <@U0ALICE>") ? true : undefined,
    );
    expect(world.slack.updates()).toHaveLength(1);
    // The first refusal is logged at once; the stale one is counted with the next.
    const records = world.logs
      .text()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as unknown);
    expect(records).toContainEqual(
      expect.objectContaining({
        server: "ops",
        refused: 1,
        sample: expect.objectContaining({ reason: "bad_signature", path: "/slack/interactivity", detail: "mismatch" }),
      }),
    );
  });
});
