import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Alert } from "../../src/alerts/alert.js";
import { channelDrafts } from "../../src/alerts/plan-deliveries.js";
import { DeliveryService } from "../../src/delivery/delivery-service.js";
import { silentLogger } from "../../src/logger.js";
import { createSlackWebClient, webClientPoster } from "../../src/slack/slack-poster.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";
import { buildAlert } from "../alerts/support/build-alert.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";

describe("DeliveryService", () => {
  let slack: FakeSlack;
  let store: StateStore;
  let delivery: DeliveryService<Alert>;

  beforeEach(async () => {
    slack = await startFakeSlack();
    store = await openStateStore(":memory:");
    const logger = silentLogger();
    delivery = new DeliveryService<Alert>({
      store,
      poster: webClientPoster(createSlackWebClient({ token: slack.token, apiUrl: slack.url, logger })),
      settings: { messagesPerSecondPerChannel: 10, retentionMs: 86_400_000 },
      logger,
    });
  });
  afterEach(async () => {
    await store.close();
    await slack.close();
  });

  const report = (id: string) =>
    ({
      id,
      channel: "retention-ops",
      kind: "report",
      message: { text: `report ${id}`, blocks: [] },
      alertKeys: [],
    }) as const;

  it("sends a report alone, leaving the alert backlog to the flush that owns it", async () => {
    const alerts = channelDrafts("hr-alerts", [buildAlert(), buildAlert()], 10).drafts;
    await delivery.enqueue(alerts, Date.now());
    const sent = await delivery.send(report("r|1"), Date.now());
    expect(sent?.sent).toBe(1);
    expect(slack.posted("retention-ops").map((m) => m.text)).toEqual(["report r|1"]);
    expect(slack.posted("hr-alerts")).toEqual([]);
    expect((await delivery.outbox.pending()).map((e) => e.id)).toEqual(alerts.map((d) => d.id));

    const flushed = await delivery.flush();
    expect(flushed?.sent).toBe(2);
    expect(slack.posted("hr-alerts")).toHaveLength(2);
  });

  it("keeps a report Slack refused in the outbox until a later delivery, and posts a report id once", async () => {
    slack.failNext("chat.postMessage", { status: 429, retryAfter: 600 });
    await delivery.send(report("r|2"), Date.now());
    expect(slack.posted("retention-ops")).toEqual([]);
    expect((await delivery.outbox.pending()).map((e) => e.id)).toEqual(["r|2"]);
    await delivery.enqueue([report("r|2")], Date.now());
    expect(await delivery.outbox.size()).toBe(1);
  });

  it("without a Slack client, keeps messages waiting and reports no flush", async () => {
    const offline = new DeliveryService<Alert>({
      store,
      settings: { messagesPerSecondPerChannel: 10, retentionMs: 86_400_000 },
      logger: silentLogger(),
    });
    expect(await offline.send(report("r|3"), Date.now())).toBeUndefined();
    expect(await offline.outbox.size()).toBe(1);
  });
});
