import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Alert } from "../../src/alerts/alert.js";
import { AlertCommitLog, COMMIT_NAMESPACE } from "../../src/alerts/alert-commit.js";
import { createAlertPipeline } from "../../src/alerts/alert-pipeline.js";
import { alertSettings } from "../../src/alerts/alert-settings.js";
import { DELIVERED_NAMESPACE, DeliveryLedger } from "../../src/alerts/delivery-ledger.js";
import { RetentionClient } from "../../src/api/client.js";
import { createDelivery } from "../../src/app/runtime.js";
import { configSchema } from "../../src/config/schema.js";
import { OUTBOX_INDEX_NAMESPACE, OUTBOX_NAMESPACE, Outbox, type OutboxDraft } from "../../src/delivery/outbox.js";
import { silentLogger } from "../../src/logger.js";
import { createSlackWebClient, webClientPoster } from "../../src/slack/slack-poster.js";
import { type KeyValueNamespace, openStateStore, type StateStore } from "../../src/store/state-store.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { useEmulator } from "../helpers/start-emulator.js";
import { ROUTES } from "./support/alert-harness.js";

class SimulatedCrash extends Error {}

/** The same store, except that writes to one namespace die: the process stopping at that write. */
function crashingOn(store: StateStore, crashing: string): StateStore {
  return {
    location: store.location,
    close: () => store.close(),
    namespace(name: string): KeyValueNamespace {
      const inner = store.namespace(name);
      if (name !== crashing) return inner;
      return {
        get: (key) => inner.get(key),
        delete: (key) => inner.delete(key),
        entries: () => inner.entries(),
        clear: () => inner.clear(),
        set: async () => {
          throw new SimulatedCrash(`simulated crash writing ${name}`);
        },
      };
    },
  };
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
    const outbox = new Outbox<Alert>(on.namespace(OUTBOX_NAMESPACE), on.namespace(OUTBOX_INDEX_NAMESPACE));
    const ledger = new DeliveryLedger(on.namespace(DELIVERED_NAMESPACE), 60_000);
    const cursors = on.namespace("alerts.cursor");
    const commits = new AlertCommitLog({
      journal: on.namespace(COMMIT_NAMESPACE),
      outbox,
      ledger,
      cursors,
      logger: silentLogger(),
    });
    return { outbox, ledger, cursors, commits };
  }

  it("finishes a batch cut short after its record: messages queued, changes recorded, cursor moved", async () => {
    const batch = { drafts: [draft("a|1"), draft("a|2")], keys: ["chg:1", "chg:2"], cursors: { own: "T1" }, nowMs: 1 };
    await expect(parts(crashingOn(store, DELIVERED_NAMESPACE)).commits.commit(batch)).rejects.toBeInstanceOf(
      SimulatedCrash,
    );
    const restarted = parts(store);
    expect(await restarted.ledger.has("chg:1")).toBe(false);
    expect(await restarted.commits.recover()).toEqual({ recovered: true, enqueued: 0 });
    expect((await restarted.outbox.pending()).map((e) => e.id)).toEqual(["a|1", "a|2"]);
    expect(await restarted.ledger.handled(["chg:1", "chg:2", "chg:3"])).toEqual(new Set(["chg:1", "chg:2"]));
    expect(await restarted.cursors.get("own")).toBe("T1");
    expect(await restarted.commits.recover()).toEqual({ recovered: false, enqueued: 0 });
  });

  it("leaves no trace of a batch whose record was never written", async () => {
    const batch = { drafts: [draft("a|1")], keys: ["chg:1"], cursors: { own: "T1" }, nowMs: 1 };
    await expect(parts(crashingOn(store, COMMIT_NAMESPACE)).commits.commit(batch)).rejects.toBeInstanceOf(
      SimulatedCrash,
    );
    const restarted = parts(store);
    expect(await restarted.commits.recover()).toEqual({ recovered: false, enqueued: 0 });
    expect(await restarted.outbox.pending()).toEqual([]);
    expect(await restarted.cursors.get("own")).toBeUndefined();
  });

  it("never queues a delivered message again, even when its batch is replayed", async () => {
    const { outbox, commits } = parts(store);
    const batch = { drafts: [draft("a|1")], keys: ["chg:1"], cursors: {}, nowMs: 1 };
    expect(await commits.commit(batch)).toBe(1);
    const [entry] = await outbox.pending();
    if (!entry) throw new Error("no entry");
    await outbox.markSent(entry);
    expect(await commits.commit(batch)).toBe(0);
    expect(await outbox.pending()).toEqual([]);
  });
});

describe("a poll pass killed between the outbox and the dedupe record", () => {
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
      pipelineOn(crashingOn(store, DELIVERED_NAMESPACE)).poll({ now: new Date(), dryRun: false }),
    ).rejects.toBeInstanceOf(SimulatedCrash);
    expect(slack.posted()).toHaveLength(0);

    await raise(people.slice(15, 20));
    const report = await pipelineOn(store).poll({ now: new Date(), dryRun: false });
    expect(report.flush?.pending).toBe(0);
    const names = slack
      .posted()
      .flatMap((m) => [...JSON.stringify(m.blocks).matchAll(/\|(Person own \d+)>/g)].map((match) => match[1]));
    expect(names).toHaveLength(20);
    expect(new Set(names).size).toBe(20);
    // the interrupted pass's 15 changes went out as its digest; the 5 new ones one message each
    expect(slack.posted()).toHaveLength(6);
    await store.close();
  });
});
