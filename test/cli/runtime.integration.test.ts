import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openRuntime } from "../../src/app/runtime.js";
import { loadConfig } from "../../src/config/load-config.js";
import { ConfigError } from "../../src/errors.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { startTinyService, type TinyService } from "./cli-harness.js";

let service: TinyService;
let slack: FakeSlack;
const io = () => ({ argv: [], env: {}, stdout: new PassThrough(), stderr: new PassThrough() });

beforeEach(async () => {
  service = await startTinyService();
  slack = await startFakeSlack();
});
afterEach(async () => {
  await service.close();
  await slack.close();
});

describe("openRuntime", () => {
  it("wires the API clients, the store and the Slack client from the config", async () => {
    const config = loadConfig({
      env: {
        RETENTION_API_URL: service.baseUrl,
        RETENTION_API_KEY: service.writeKey,
        SLACK_BOT_TOKEN: slack.token,
        SLACK_API_URL: slack.url,
        RETENTION_SYNC_STATE: ":memory:",
      },
    });
    const runtime = await openRuntime(config, io(), { client: true, store: true, slack: true });
    try {
      await expect(runtime.client.me()).resolves.toMatchObject({ organization: { name: "Acme Corp" } });
      await expect(runtime.bulkClient.me()).resolves.toMatchObject({ scopes: ["read", "write"] });
      await runtime.slack.chat.postMessage({ channel: "#general", text: "hello" });
      expect(slack.posted("general").map((m) => m.text)).toEqual(["hello"]);
      const ns = runtime.store.namespace("test.runtime");
      await ns.set("k", { v: 1 });
      await expect(ns.get("k")).resolves.toEqual({ v: 1 });
    } finally {
      await runtime.close();
      await runtime.close(); // idempotent
    }
  });

  it("builds only what is asked for", async () => {
    const runtime = await openRuntime(loadConfig({ env: {} }), io(), {});
    expect(runtime.client).toBeUndefined();
    expect(runtime.store).toBeUndefined();
    expect(runtime.slack).toBeUndefined();
    await runtime.close();
  });

  it("names RETENTION_API_URL, RETENTION_API_KEY and SLACK_BOT_TOKEN when they are missing", async () => {
    const error = await openRuntime(loadConfig({ env: {} }), io(), { client: true, slack: true }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain("RETENTION_API_URL");
    expect(message).toContain("RETENTION_API_KEY");
    expect(message).toContain("SLACK_BOT_TOKEN");
  });

  it("logs JSON lines to the command's stderr at the configured level", async () => {
    const stderr = new PassThrough();
    const chunks: string[] = [];
    stderr.on("data", (c: Buffer) => chunks.push(c.toString()));
    const runtime = await openRuntime(loadConfig({ env: { LOG_LEVEL: "warn" } }), { ...io(), stderr }, {});
    runtime.logger.info("hidden");
    runtime.logger.warn({ jobs: 2 }, "shown");
    await runtime.close();
    const records = chunks
      .join("")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string });
    expect(records.map((r) => r.msg)).toEqual(["shown"]);
  });
});
