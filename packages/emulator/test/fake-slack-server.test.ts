import { ErrorCode, LogLevel, retryPolicies, WebClient } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeSlack, INCOMING_WEBHOOK, startFakeSlack } from "../src/fake-slack-server.js";

let slack: FakeSlack;
let client: WebClient;

beforeEach(async () => {
  slack = await startFakeSlack();
  client = new WebClient(slack.token, {
    slackApiUrl: slack.url,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
});
afterEach(async () => {
  await slack.close();
});

describe("fake Slack with the real WebClient", () => {
  it("posts by name and by id, records calls and decodes blocks", async () => {
    const blocks = [{ type: "section", text: { type: "mrkdwn", text: "*hi*" } }];
    const first = await client.chat.postMessage({ channel: "#hr-alerts", text: "hello", blocks });
    const id = slack.channels.get("hr-alerts")?.id ?? "";
    const reply = await client.chat.postMessage({ channel: id, text: "reply", thread_ts: first.ts ?? "" });
    expect(first.channel).toBe(id);
    const posted = slack.posted("hr-alerts");
    expect(posted.map((m) => m.text)).toEqual(["hello", "reply"]);
    expect(posted[0]?.blocks).toEqual(blocks);
    expect(posted[1]?.threadTs).toBe(first.ts);
    expect(reply.ts).not.toBe(first.ts);
    expect(slack.calls.map((c) => c.method)).toEqual(["chat.postMessage", "chat.postMessage"]);
    expect(slack.calls[0]?.args).not.toHaveProperty("token");
  });

  it("records a post to its incoming webhook URL and answers a plain ok, as Slack does", async () => {
    const payload = { channel: "#hr-alerts", attachments: [{ title: "[FIRING:1]", text: "e1 " }] };
    const res = await fetch(slack.incomingWebhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(payload),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("ok");
    expect(slack.calls).toEqual([{ method: INCOMING_WEBHOOK, args: payload, at: expect.any(Number), status: 200 }]);
    expect(slack.posted()).toEqual([]);
  });

  it("validates the token", async () => {
    const wrong = new WebClient("xoxb-wrong", {
      slackApiUrl: slack.url,
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
    });
    await expect(wrong.auth.test()).rejects.toMatchObject({
      code: ErrorCode.PlatformError,
      data: { error: "invalid_auth" },
    });
    await expect(client.auth.test()).resolves.toMatchObject({ ok: true, user_id: "UBOT000001" });
  });

  it("answers channel_not_found, not_in_channel and msg_too_long", async () => {
    slack.addChannel("secret", { member: false });
    await expect(client.chat.postMessage({ channel: "#nope", text: "x" })).rejects.toMatchObject({
      data: { error: "channel_not_found" },
    });
    await expect(client.chat.postMessage({ channel: "#secret", text: "x" })).rejects.toMatchObject({
      data: { error: "not_in_channel" },
    });
    await expect(client.chat.postMessage({ channel: "#general", text: "x".repeat(40_001) })).rejects.toMatchObject({
      data: { error: "msg_too_long" },
    });
    // conversations.info takes ids only, like the real API
    await expect(client.conversations.info({ channel: "#general" })).rejects.toMatchObject({
      data: { error: "channel_not_found" },
    });
    const info = await client.conversations.info({ channel: slack.channels.get("secret")?.id ?? "" });
    expect(info.channel?.is_member).toBe(false);
  });

  it("paginates conversations.list and resolves users and DMs", async () => {
    for (let i = 0; i < 5; i++) slack.addChannel(`extra-${i}`);
    const names: string[] = [];
    for await (const page of client.paginate("conversations.list", { limit: 3 })) {
      for (const c of (page as { channels?: Array<{ name?: string }> }).channels ?? []) names.push(c.name ?? "");
    }
    expect(names).toHaveLength(slack.channels.size);
    const user = await client.users.lookupByEmail({ email: "manager@example.com" });
    const dm = await client.conversations.open({ users: user.user?.id ?? "" });
    await client.chat.postMessage({ channel: dm.channel?.id ?? "", text: "psst" });
    expect(slack.posted(dm.channel?.id)).toHaveLength(1);
    await expect(client.users.lookupByEmail({ email: "nobody@example.com" })).rejects.toMatchObject({
      data: { error: "users_not_found" },
    });
  });

  it("injects 429 with Retry-After, ratelimited, 5xx and outages", async () => {
    const rejecting = new WebClient(slack.token, {
      slackApiUrl: slack.url,
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
      rejectRateLimitedCalls: true,
    });
    slack.failNext("chat.postMessage", { status: 429, retryAfter: 7 });
    await expect(rejecting.chat.postMessage({ channel: "#general", text: "x" })).rejects.toMatchObject({
      code: ErrorCode.RateLimitedError,
      retryAfter: 7,
    });
    slack.failNext("chat.postMessage", "ratelimited");
    await expect(client.chat.postMessage({ channel: "#general", text: "x" })).rejects.toMatchObject({
      data: { error: "ratelimited" },
    });
    slack.failNext("*", { status: 500 });
    await expect(client.auth.test()).rejects.toMatchObject({ code: ErrorCode.HTTPError, statusCode: 500 });
    slack.setOutage(true);
    await expect(client.auth.test()).rejects.toMatchObject({ statusCode: 503 });
    slack.setOutage(true, "reset");
    await expect(client.auth.test()).rejects.toMatchObject({ code: ErrorCode.RequestError });
    slack.setOutage(false);
    await expect(client.auth.test()).resolves.toMatchObject({ ok: true });
  });

  it("rate limits after the configured number of calls, and the SDK retries after Retry-After", async () => {
    const retrying = new WebClient(slack.token, {
      slackApiUrl: slack.url,
      retryConfig: retryPolicies.rapidRetryPolicy,
      logLevel: LogLevel.ERROR,
    });
    slack.setRateLimit({ method: "chat.postMessage", limit: 1, windowMs: 500, retryAfter: 1 });
    await retrying.chat.postMessage({ channel: "#general", text: "one" });
    await retrying.chat.postMessage({ channel: "#general", text: "two" });
    expect(slack.calls.filter((c) => c.status === 429).length).toBeGreaterThanOrEqual(1);
    expect(slack.posted("general").map((m) => m.text)).toEqual(["one", "two"]);
  });

  it("injects seeded random 5xx, 429s and resets that never post, replayable with the same seed", async () => {
    const rejecting = new WebClient(slack.token, {
      slackApiUrl: slack.url,
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
      rejectRateLimitedCalls: true,
    });
    const outcomes = async (): Promise<string[]> => {
      const seen: string[] = [];
      for (let i = 0; i < 60; i += 1) {
        const result = await rejecting.chat
          .postMessage({ channel: "#general", text: `m${i}` })
          .then(() => "ok")
          .catch((error: { code?: string; statusCode?: number }) => `${error.code}:${error.statusCode ?? ""}`);
        seen.push(result);
      }
      return seen;
    };
    slack.setFaults({ method: "chat.postMessage", errorRate: 0.2, rateLimitRate: 0.2, resetRate: 0.2, seed: 7 });
    const first = await outcomes();
    const okCount = first.filter((o) => o === "ok").length;
    expect(okCount).toBeGreaterThan(5);
    expect(okCount).toBeLessThan(55);
    expect(new Set(first)).toEqual(
      new Set([
        "ok",
        `${ErrorCode.HTTPError}:500`,
        `${ErrorCode.HTTPError}:503`,
        `${ErrorCode.RateLimitedError}:`,
        `${ErrorCode.RequestError}:`,
      ]),
    );
    // a failed call never lands: only the successful ones are in the channel
    expect(slack.posted("general")).toHaveLength(okCount);
    expect(slack.calls.filter((c) => c.status === 0)).toHaveLength(
      first.filter((o) => o.startsWith(ErrorCode.RequestError)).length,
    );
    slack.setFaults({ method: "chat.postMessage", errorRate: 0.2, rateLimitRate: 0.2, resetRate: 0.2, seed: 7 });
    expect(await outcomes()).toEqual(first);
    slack.setFaults(null);
    await expect(client.auth.test()).resolves.toMatchObject({ ok: true });
  });
});

describe("fake Slack as an open workspace (the sandbox)", () => {
  it("accepts any channel name or id, lists the known ones, and knows every email", async () => {
    const known = ["#people-leads", "C0SANDBOX1"];
    const open = await startFakeSlack({ openWorkspace: true, knownChannels: () => known });
    const web = new WebClient(open.token, {
      slackApiUrl: open.url,
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
    });
    try {
      const listed = await web.conversations.list({});
      const names = (listed.channels ?? []).map((c) => c.name);
      expect(names).toEqual(expect.arrayContaining(["people-leads", "C0SANDBOX1"]));
      expect((await web.conversations.info({ channel: "C0NEWONE99" })).channel).toMatchObject({ is_member: true });
      const posted = await web.chat.postMessage({ channel: "#never-heard-of", text: "hi" });
      expect(open.posted("never-heard-of").map((m) => m.ts)).toEqual([posted.ts]);
      const user = await web.users.lookupByEmail({ email: "Lead@Example.com" });
      expect(user.user?.id).toMatch(/^U[0-9A-F]{10}$/);
      expect((await web.conversations.open({ users: user.user?.id ?? "" })).channel?.id).toMatch(/^D/);
    } finally {
      await open.close();
    }
  });

  it("stays closed by default: an unknown channel is not found", async () => {
    await expect(client.chat.postMessage({ channel: "#never-heard-of", text: "hi" })).rejects.toMatchObject({
      data: { error: "channel_not_found" },
    });
    await expect(client.users.lookupByEmail({ email: "lead@example.com" })).rejects.toMatchObject({
      data: { error: "users_not_found" },
    });
  });
});
