import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAlertJobs } from "../../src/alerts/alert-jobs.js";
import { alertSettings } from "../../src/alerts/alert-settings.js";
import { RetentionClient } from "../../src/api/client.js";
import { createDelivery } from "../../src/app/runtime.js";
import { configSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/logger.js";
import { createSlackWebClient, webClientPoster } from "../../src/slack/slack-poster.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { useEmulator } from "../helpers/start-emulator.js";

const emulator = useEmulator({ rateLimitPerMinute: 100_000 });

describe("createAlertJobs (the daemon's alerts part)", () => {
  let slack: FakeSlack;
  let store: StateStore;
  let client: RetentionClient;

  beforeEach(async () => {
    await emulator().control.reset();
    slack = await startFakeSlack();
    store = await openStateStore(":memory:");
    client = new RetentionClient({
      baseUrl: emulator().baseUrl,
      apiKey: emulator().readKey,
      requestsPerMinute: 100_000,
    });
  });
  afterEach(async () => {
    await client.close();
    await store.close();
    await slack.close();
  });

  it("polls into Slack and serves the webhook receiver with the backstop interval when webhooks are on", async () => {
    const config = configSchema.parse({
      slack: { token: slack.token, apiUrl: slack.url, channel: "hr-alerts", messagesPerSecondPerChannel: 10 },
      alerts: {
        initialLookback: 120,
        pollInterval: 30,
        backstopPollInterval: 600,
        webhook: { enabled: true, host: "127.0.0.1", port: 1, secrets: ["whsec_test_secret"] },
      },
    });
    const reports: number[] = [];
    const jobs = createAlertJobs({
      config: {
        ...config,
        alerts: { ...config.alerts, webhook: { ...config.alerts.webhook, port: 0 } },
      } as typeof config,
      settings: alertSettings(config),
      store,
      client,
      delivery: createDelivery(alertSettings(config), {
        store,
        poster: webClientPoster(
          createSlackWebClient({ token: slack.token, apiUrl: slack.url, logger: silentLogger() }),
        ),
        logger: silentLogger(),
      }),
      logger: silentLogger(),
    });
    jobs.pipeline.events.on("poll-pass", ({ report }) => reports.push(report.alerts));
    expect(jobs.poll.intervalSeconds).toBe(600);
    await jobs.poll.run(new AbortController().signal);
    await emulator().control.signals({
      count: 2,
      organizationId: emulator().organizationId,
      riskScore: 0.9,
      changeType: "open_to_work",
    });
    await jobs.poll.run(new AbortController().signal);
    expect(reports.at(-1)).toBe(2);
    expect(slack.posted("hr-alerts")).toHaveLength(2);

    const receiver = await jobs.webhookReceiver?.();
    if (!receiver) throw new Error("the receiver is on");
    try {
      const res = await fetch(receiver.url, {
        method: "POST",
        body: "{}",
        headers: { "x-service-signature": `t=1,v1=${"0".repeat(64)}` },
      });
      expect(res.status).toBe(401);
    } finally {
      await receiver.close();
    }
  });
});
