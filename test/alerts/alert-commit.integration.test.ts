import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Alert } from "../../src/alerts/alert.js";
import { AlertCommitLog } from "../../src/alerts/alert-commit.js";
import { createAlertPipeline } from "../../src/alerts/alert-pipeline.js";
import { alertSettings } from "../../src/alerts/alert-settings.js";
import { DELIVERED_KEYS, DeliveryLedger } from "../../src/alerts/delivery-ledger.js";
import { RetentionClient } from "../../src/api/client.js";
import { createDelivery } from "../../src/app/runtime.js";
import { configSchema } from "../../src/config/schema.js";
import { Outbox, type OutboxDraft } from "../../src/delivery/outbox.js";
import { silentLogger } from "../../src/logger.js";
import { createSlackWebClient, webClientPoster } from "../../src/slack/slack-poster.js";
import { type KeySet, openStateStore, type StateStore, type StoreScope } from "../../src/store/state-store.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { useEmulator } from "../helpers/start-emulator.js";
import { ROUTES } from "./support/alert-harness.js";

class SimulatedCrash extends Error {}

/** The same store, except that inside a transaction the writes to one key set die mid-batch. */
function crashingOn(store: StateStore, crashing: string): StateStore {
  const failing = (scope: StoreScope): StoreScope => ({
    namespace: (name) => scope.namespace(name),
    queue: (name) => scope.queue(name),
    keySet(name: string): KeySet {
      const inner = scope.keySet(name);
      if (name !== crashing) return inner;
      return {
        has: (keys, nowMs) => inner.has(keys, nowMs),
        add: async () => {
          throw new SimulatedCrash(`simulated crash writing ${name}`);
        },
      };
    },
  });
  return Object.assign(Object.create(store) as StateStore, {
    transaction: <T>(work: (scope: StoreScope) => Promise<T>) => store.transaction((scope) => work(failing(scope))),
  });
}

function draft(id: string): OutboxDraft<Alert> {
  return { id, channel: "hr-alerts", kind: "alert", message: { text: id, blocks: [] }, alertKeys: [id] };
}

describe("AlertCommitLog", () => {
  let store: StateStore;
  beforeEach(async () => {
    store = await openStateStore(":memory:");
  });

  function parts(on: StateStore) {
    const outbox = new Outbox<Alert>(on);
    const ledger = new DeliveryLedger(on, 60_000);
    const commits = new AlertCommitLog({
      store: on,
      outbox,
      ledger,
      cursorNamespace: "alerts.cursor",
      logger: silentLogger(),
    });
    return { outbox, ledger, cursors: on.namespace("alerts.cursor"), commits };
  }

  it("leaves no trace of a batch whose transaction failed midway: no message, no handled key, no cursor", async () => {
    const now = Date.now();
    const batch = {
      drafts: [draft("a|1"), draft("a|2")],
      keys: ["chg:1", "chg:2"],
      cursors: { own: "T1" },
      nowMs: now,
    };
    await expect(parts(crashingOn(store, DELIVERED_KEYS)).commits.commit(batch)).rejects.toThrow(
      "simulated crash writing alerts.delivered",
    );
    const restarted = parts(store);
    expect(await restarted.outbox.pending()).toEqual([]);
    expect(await restarted.ledger.handled(["chg:1", "chg:2"])).toEqual(new Set());
    expect(await restarted.cursors.get("own")).toBeUndefined();
    expect(await restarted.commits.commit(batch)).toBe(2);
    expect(await restarted.ledger.handled(["chg:1", "chg:2"])).toEqual(new Set(["chg:1", "chg:2"]));
    expect(await restarted.cursors.get("own")).toBe("T1");
  });

  it("never queues a delivered message again, even when its batch is replayed", async () => {
    const { outbox, commits } = parts(store);
    const batch = { drafts: [draft("a|1")], keys: ["chg:1"], cursors: {}, nowMs: Date.now() };
    expect(await commits.commit(batch)).toBe(1);
    const [entry] = await outbox.pending();
    if (!entry) throw new Error("no entry");
    await outbox.markSent(entry);
    expect(await commits.commit(batch)).toBe(0);
    expect(await outbox.pending()).toEqual([]);
  });
});

describe("a poll pass killed in the middle of its hand-over", () => {
  const emulator = useEmulator({ seed: "empty", rateLimitPerMinute: 100_000 });
  let slack: FakeSlack;
  let client: RetentionClient;
  beforeAll(async () => {
    slack = await startFakeSlack();
    client = new RetentionClient({
      baseUrl: emulator().baseUrl,
      apiKey: emulator().readKey,
      requestsPerMinute: 100_000,
    });
    await emulator().control.seedPeople({ count: 30, slugPrefix: "own", tracked: true });
  });
  afterAll(async () => {
    await client.close();
    await slack.close();
  });

  it("posts each change once when the next pass finds more changes (no second digest of the same changes)", async () => {
    const store = await openStateStore(":memory:");
    const config = configSchema.parse({
      slack: { token: slack.token, apiUrl: slack.url, messagesPerSecondPerChannel: 10 },
      alerts: ROUTES,
    });
    const settings = alertSettings(config);
    const pipelineOn = (on: StateStore) =>
      createAlertPipeline({
        settings,
        store: on,
        client,
        logger: silentLogger(),
        delivery: createDelivery(settings, {
          store: on,
          poster: webClientPoster(
            createSlackWebClient({ token: slack.token, apiUrl: slack.url, logger: silentLogger() }),
          ),
          logger: silentLogger(),
        }),
      });
    const people: number[] = [];
    for await (const e of client.iterateEmployees({ pageSize: 100 })) people.push(e.id);
    const raise = async (ids: readonly number[]) => {
      for (const employeeId of ids) await emulator().control.signals({ employeeId, riskScore: 0.9 });
    };

    await raise(people.slice(0, 15));
    await expect(
      pipelineOn(crashingOn(store, DELIVERED_KEYS)).poll({ now: new Date(), dryRun: false }),
    ).rejects.toThrow("simulated crash");
    expect(slack.posted()).toHaveLength(0);

    await raise(people.slice(15, 20));
    const report = await pipelineOn(store).poll({ now: new Date(), dryRun: false });
    expect(report.flush?.pending).toBe(0);
    const names = slack
      .posted()
      .flatMap((m) => [...JSON.stringify(m.blocks).matchAll(/\|(Person own \d+)>/g)].map((match) => match[1]));
    // The interrupted pass left nothing behind (one transaction): the next one plans all 20 once.
    expect(names).toHaveLength(20);
    expect(new Set(names).size).toBe(20);
    await store.close();
  });
});
