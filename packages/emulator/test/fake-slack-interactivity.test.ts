import { createHmac } from "node:crypto";
import { LogLevel, WebClient } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeSlack, startFakeSlack } from "../src/fake-slack-server.js";
import { type Receiver, startReceiver } from "./support/receiver.js";
import { connectPlain, type Frame, type PlainSocketClient } from "./support/socket-client.js";

let slack: FakeSlack;
let client: WebClient;
let socket: PlainSocketClient | undefined;

const CARD = [
  { type: "section", block_id: "summary", text: { type: "mrkdwn", text: "*Ada* may leave" } },
  {
    type: "actions",
    block_id: "alert-actions",
    elements: [
      {
        type: "button",
        action_id: "ack",
        text: { type: "plain_text", text: "Acknowledge" },
        value: "chg_1",
        style: "primary",
      },
      {
        type: "static_select",
        action_id: "snooze",
        placeholder: { type: "plain_text", text: "Snooze" },
        options: [
          { text: { type: "plain_text", text: "1 day" }, value: "1d" },
          { text: { type: "plain_text", text: "7 days" }, value: "7d" },
        ],
      },
    ],
  },
  {
    type: "section",
    text: { type: "mrkdwn", text: "More" },
    accessory: {
      type: "overflow",
      action_id: "more",
      options: [
        { text: { type: "plain_text", text: "Stop tracking" }, value: "untrack" },
        { text: { type: "plain_text", text: "Open profile" }, value: "profile" },
      ],
    },
  },
];

beforeEach(async () => {
  slack = await startFakeSlack({
    users: { "ada.manager@example.com": "UMANAGER01" },
    usergroups: { S0HRTEAM: ["UMANAGER01", "UHR000002"] },
  });
  client = new WebClient(slack.token, {
    slackApiUrl: slack.url,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
});
afterEach(async () => {
  await socket?.close();
  socket = undefined;
  await slack.close();
});

async function connect(): Promise<PlainSocketClient> {
  const app = new WebClient(slack.appToken, { slackApiUrl: slack.url, logLevel: LogLevel.ERROR });
  socket = await connectPlain((await app.apps.connections.open({})).url ?? "");
  await slack.waitForSocketConnection();
  return socket;
}

async function postCard(): Promise<{ channel: string; ts: string }> {
  const posted = await client.chat.postMessage({ channel: "#hr-alerts", text: "Ada may leave", blocks: CARD });
  return { channel: posted.channel ?? "", ts: posted.ts ?? "" };
}

/** The payload of the envelope the plain client receives next. */
async function nextPayload(from: PlainSocketClient): Promise<Record<string, unknown>> {
  const frame: Frame = await from.nextEnvelope();
  expect(frame.type).toBe("interactive");
  return frame.payload as Record<string, unknown>;
}

describe("chat.update, chat.postEphemeral, usergroups.users.list", () => {
  it("chat.update edits the message posted() shows and is recorded", async () => {
    const { channel, ts } = await postCard();
    const blocks = [{ type: "section", text: { type: "mrkdwn", text: "Acknowledged by <@UMANAGER01>" } }];
    const answer = await client.chat.update({ channel, ts, text: "Ada may leave (acknowledged)", blocks });
    expect(answer).toMatchObject({ ok: true, channel, ts, text: "Ada may leave (acknowledged)" });
    const [message] = slack.posted("hr-alerts");
    expect(message).toMatchObject({ ts, text: "Ada may leave (acknowledged)", blocks });
    expect(slack.updates()).toEqual([{ channel, ts, text: "Ada may leave (acknowledged)", blocks }]);
    // text alone keeps the blocks, as Slack documents
    await client.chat.update({ channel, ts, text: "again" });
    expect(slack.posted("hr-alerts")[0]).toMatchObject({ text: "again", blocks });
    expect(slack.updates()).toHaveLength(2);
  });

  it("chat.update edits a direct message by its DM id", async () => {
    const dm = await client.conversations.open({ users: "UMANAGER01" });
    const dmId = dm.channel?.id ?? "";
    const posted = await client.chat.postMessage({ channel: dmId, text: "psst" });
    await client.chat.update({ channel: dmId, ts: posted.ts ?? "", text: "psst (edited)" });
    expect(slack.posted(dmId).map((m) => m.text)).toEqual(["psst (edited)"]);
  });

  it("chat.update answers message_not_found and channel_not_found", async () => {
    const { channel } = await postCard();
    await expect(client.chat.update({ channel, ts: "1.000001", text: "x" })).rejects.toMatchObject({
      data: { error: "message_not_found" },
    });
    await expect(client.chat.update({ channel: "CNOPE00001", ts: "1.000001", text: "x" })).rejects.toMatchObject({
      data: { error: "channel_not_found" },
    });
    expect(slack.updates()).toEqual([]);
  });

  it("chat.postEphemeral records the ephemeral and answers its message_ts", async () => {
    const channel = slack.channels.get("hr-alerts")?.id ?? "";
    const answer = await client.chat.postEphemeral({ channel, user: "UMANAGER01", text: "Snoozed for 7 days" });
    expect(answer.message_ts).toMatch(/^\d+\.\d{6}$/);
    expect(slack.ephemerals()).toEqual([
      { via: "chat.postEphemeral", channel, user: "UMANAGER01", text: "Snoozed for 7 days" },
    ]);
    expect(slack.posted()).toEqual([]);
    await expect(client.chat.postEphemeral({ channel, user: "UNOBODY001", text: "x" })).rejects.toMatchObject({
      data: { error: "user_not_in_channel" },
    });
    await expect(client.chat.postEphemeral({ channel: "#nope", user: "UMANAGER01", text: "x" })).rejects.toMatchObject({
      data: { error: "channel_not_found" },
    });
    expect(slack.ephemerals()).toHaveLength(1);
  });

  it("usergroups.users.list lists a group's members or answers no_such_subteam", async () => {
    await expect(client.usergroups.users.list({ usergroup: "S0HRTEAM" })).resolves.toMatchObject({
      ok: true,
      users: ["UMANAGER01", "UHR000002"],
    });
    await expect(client.usergroups.users.list({ usergroup: "S0NOPE" })).rejects.toMatchObject({
      data: { error: "no_such_subteam" },
    });
  });
});

describe("pressButton", () => {
  it("sends Slack's block_actions payload for a button", async () => {
    const from = await connect();
    const { channel, ts } = await postCard();
    const envelope = slack.pressButton({ channel: "#hr-alerts", ts, actionId: "ack", userId: "UMANAGER01" });
    const payload = await nextPayload(from);
    expect(envelope).toMatchObject({ type: "interactive", attempts: 1, acked: false });
    expect(envelope.payload).toEqual(payload);
    expect(payload).toMatchObject({
      type: "block_actions",
      user: { id: "UMANAGER01", username: "ada.manager", name: "ada.manager", team_id: "TFAKE0001" },
      api_app_id: "A0FAKE0001",
      container: { type: "message", message_ts: ts, channel_id: channel, is_ephemeral: false },
      channel: { id: channel, name: "hr-alerts" },
      message: { ts, text: "Ada may leave", type: "message" },
    });
    expect(payload.trigger_id).toMatch(/^\d+\.\d+\.[0-9a-f]+$/);
    expect(payload.response_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${new URL(slack.url).port}/actions/`));
    const message = payload.message as { blocks: Array<{ block_id?: string }> };
    // Slack gives blocks posted without a block_id one of its own
    expect(message.blocks.map((b) => typeof b.block_id)).toEqual(["string", "string", "string"]);
    expect(message.blocks[0]?.block_id).toBe("summary");
    const actions = payload.actions as Array<Record<string, unknown>>;
    expect(actions).toEqual([
      {
        action_id: "ack",
        block_id: "alert-actions",
        type: "button",
        text: { type: "plain_text", text: "Acknowledge" },
        value: "chg_1",
        style: "primary",
        action_ts: expect.stringMatching(/^\d+\.\d{6}$/),
      },
    ]);
  });

  it("presses overflow and static_select options by value", async () => {
    const from = await connect();
    const { ts } = await postCard();
    slack.pressButton({ channel: "#hr-alerts", ts, actionId: "more", userId: "UHR000002", selectedOption: "untrack" });
    const overflow = (await nextPayload(from)).actions as Array<Record<string, unknown>>;
    expect(overflow[0]).toMatchObject({
      type: "overflow",
      action_id: "more",
      block_id: expect.stringMatching(/.+/),
      selected_option: { text: { type: "plain_text", text: "Stop tracking" }, value: "untrack" },
    });
    expect(overflow[0]).not.toHaveProperty("value");
    slack.pressButton({ channel: "#hr-alerts", ts, actionId: "snooze", userId: "UHR000002", selectedOption: "7d" });
    const select = (await nextPayload(from)).actions as Array<Record<string, unknown>>;
    expect(select[0]).toMatchObject({
      type: "static_select",
      block_id: "alert-actions",
      selected_option: { value: "7d" },
      placeholder: { type: "plain_text", text: "Snooze" },
    });
  });

  it("throws on unknown action ids, options, messages, and with no connection", async () => {
    const { ts } = await postCard();
    const press = { channel: "#hr-alerts", ts, userId: "UMANAGER01" };
    expect(() => slack.pressButton({ ...press, actionId: "ack" })).toThrow(/no Socket Mode connection/);
    await connect();
    expect(() => slack.pressButton({ ...press, actionId: "nope" })).toThrow(/no element with action_id nope/);
    expect(() => slack.pressButton({ ...press, actionId: "more" })).toThrow(/needs a selectedOption/);
    expect(() => slack.pressButton({ ...press, actionId: "more", selectedOption: "x" })).toThrow(/no option/);
    expect(() => slack.pressButton({ ...press, actionId: "ack", selectedOption: "x" })).toThrow(/takes no/);
    expect(() => slack.pressButton({ ...press, ts: "1.000001", actionId: "ack" })).toThrow(/no message/);
    expect(slack.envelopes()).toEqual([]);
  });

  it("presses what the message shows now, after chat.update", async () => {
    const from = await connect();
    const { channel, ts } = await postCard();
    const undo = {
      type: "actions",
      block_id: "done",
      elements: [{ type: "button", action_id: "undo", text: { type: "plain_text", text: "Undo" } }],
    };
    await client.chat.update({ channel, ts, text: "Acknowledged", blocks: [undo] });
    expect(() => slack.pressButton({ channel, ts, actionId: "ack", userId: "UMANAGER01" })).toThrow(/no element/);
    slack.pressButton({ channel, ts, actionId: "undo", userId: "UMANAGER01" });
    const payload = await nextPayload(from);
    expect(payload.message).toMatchObject({ text: "Acknowledged", blocks: [undo] });
    expect((payload.actions as unknown[])[0]).not.toHaveProperty("value");
  });
});

describe("response_url", () => {
  async function pressed(): Promise<{ channel: string; ts: string; responseUrl: string }> {
    const from = await connect();
    const { channel, ts } = await postCard();
    slack.pressButton({ channel, ts, actionId: "ack", userId: "UMANAGER01" });
    return { channel, ts, responseUrl: String((await nextPayload(from)).response_url) };
  }
  const post = (url: string, body: unknown) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  it("replace_original edits the message; an ephemeral answer leaves it; both are recorded", async () => {
    const { channel, ts, responseUrl } = await pressed();
    const replaced = await post(responseUrl, { replace_original: true, text: "Acknowledged by Ada" });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toEqual({ ok: true });
    expect(slack.posted("hr-alerts")).toEqual([expect.objectContaining({ ts, text: "Acknowledged by Ada" })]);
    expect(slack.posted("hr-alerts")[0]).not.toHaveProperty("blocks");
    await post(responseUrl, { text: "Only you can see this" });
    expect(slack.posted("hr-alerts")[0]?.text).toBe("Acknowledged by Ada");
    expect(slack.ephemerals()).toEqual([
      { via: "response_url", channel, user: "UMANAGER01", replaceOriginal: true, text: "Acknowledged by Ada" },
      { via: "response_url", channel, user: "UMANAGER01", replaceOriginal: false, text: "Only you can see this" },
    ]);
    // chat.update calls only
    expect(slack.updates()).toEqual([]);
  });

  it("in_channel posts a new message for everyone; delete_original removes the message", async () => {
    const { channel, ts, responseUrl } = await pressed();
    await post(responseUrl, { response_type: "in_channel", text: "Ada was acknowledged" });
    expect(slack.posted("hr-alerts").map((m) => m.text)).toEqual(["Ada may leave", "Ada was acknowledged"]);
    expect((await post(responseUrl, { delete_original: true })).status).toBe(200);
    expect(slack.posted("hr-alerts").map((m) => m.ts)).not.toContain(ts);
    expect(slack.ephemerals().map((e) => [e.responseType, e.deleteOriginal, e.replaceOriginal])).toEqual([
      ["in_channel", undefined, false],
      [undefined, true, false],
    ]);
    expect(slack.ephemerals()[1]).toMatchObject({ channel, user: "UMANAGER01" });
  });

  it("takes five posts, then answers used_url; an unknown one expired_url", async () => {
    const { responseUrl } = await pressed();
    for (let i = 0; i < 5; i++) expect((await post(responseUrl, { text: `n${i}` })).status).toBe(200);
    const sixth = await post(responseUrl, { text: "n5" });
    expect(sixth.status).toBe(404);
    expect(await sixth.json()).toMatchObject({ ok: false, error: "used_url" });
    const unknown = await post(`${responseUrl}0`, { text: "x" });
    expect(await unknown.json()).toMatchObject({ ok: false, error: "expired_url" });
    expect(slack.ephemerals()).toHaveLength(5);
  });
});

describe("postInteractivity (the HTTP mode)", () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  const expectedSignature = (secret: string, timestamp: string, body: string) =>
    `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;

  it("posts payload=<json> form-encoded, signed v0 with the signing secret", async () => {
    const payload = { type: "block_actions", actions: [{ action_id: "ack", value: "a b&c=d" }] };
    const answer = await slack.postInteractivity(receiver.url, payload);
    expect(answer).toEqual({ status: 200, body: "ok" });
    const [delivery] = await receiver.waitFor(1);
    if (!delivery) throw new Error("no delivery");
    expect(delivery.method).toBe("POST");
    expect(delivery.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(JSON.parse(new URLSearchParams(delivery.raw).get("payload") ?? "")).toEqual(payload);
    const timestamp = String(delivery.headers["x-slack-request-timestamp"]);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(300);
    expect(delivery.headers["x-slack-signature"]).toBe(expectedSignature(slack.signingSecret, timestamp, delivery.raw));
  });

  it("signs with another timestamp or secret when asked, and returns the receiver's answer", async () => {
    receiver.respondWith(401);
    const answer = await slack.postInteractivity(
      receiver.url,
      { type: "x" },
      { timestamp: 1_000_000, secret: "wrong" },
    );
    expect(answer.status).toBe(401);
    const [delivery] = await receiver.waitFor(1);
    expect(delivery?.headers["x-slack-request-timestamp"]).toBe("1000000");
    expect(delivery?.headers["x-slack-signature"]).toBe(expectedSignature("wrong", "1000000", delivery?.raw ?? ""));
    expect(delivery?.headers["x-slack-signature"]).not.toBe(
      expectedSignature(slack.signingSecret, "1000000", delivery?.raw ?? ""),
    );
  });
});
