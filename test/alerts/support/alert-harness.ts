import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AlertPipeline, createAlertPipeline } from "../../../src/alerts/alert-pipeline.js";
import { alertSettings } from "../../../src/alerts/alert-settings.js";
import type { HrisLookup } from "../../../src/alerts/enrich.js";
import { RetentionClient } from "../../../src/api/client.js";
import { createDelivery } from "../../../src/app/runtime.js";
import { type Config, type ConfigInput, configSchema } from "../../../src/config/schema.js";
import { type Logger, silentLogger } from "../../../src/logger.js";
import { createSlackWebClient, webClientPoster } from "../../../src/slack/slack-poster.js";
import { openStateStore, type StateStore } from "../../../src/store/state-store.js";
import type { FakeSlack } from "../../helpers/fake-slack.js";
import type { TestEmulator } from "../../helpers/start-emulator.js";

export interface Harness {
  readonly config: Config;
  readonly client: RetentionClient;
  store: StateStore;
  pipeline: AlertPipeline;
  /** Closes the store and opens it again from the same file: a process restart. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export const ROUTES: ConfigInput["alerts"] = {
  initialLookback: 120,
  digestThreshold: 10,
  routes: [
    { name: "hr", lens: "retention", minRiskScore: 0.5, channel: "hr-alerts" },
    { name: "poaching", lens: "poaching", minRiskScore: 0.5, channel: "poaching-alerts" },
  ],
};

/** Emulator + fake Slack + a file-backed state store, wired through the real alert pipeline. */
export async function startHarness(
  emulator: Pick<TestEmulator, "baseUrl" | "readKey">,
  slack: FakeSlack,
  options: {
    alerts?: ConfigInput["alerts"];
    slack?: { channel?: string; poachingChannel?: string };
    logger?: Logger;
    hris?: HrisLookup | undefined;
  } = {},
): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "rs-alerts-"));
  const file = join(dir, "state.sqlite");
  const config = configSchema.parse({
    api: { url: emulator.baseUrl },
    slack: { token: slack.token, apiUrl: slack.url, messagesPerSecondPerChannel: 10, ...options.slack },
    alerts: options.alerts ?? ROUTES,
  });
  const logger = options.logger ?? silentLogger();
  const client = new RetentionClient({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.readKey,
    retryBaseDelayMs: 5,
    requestsPerMinute: 100_000,
    logger,
  });
  const settings = alertSettings(config);
  const build = (store: StateStore) =>
    createAlertPipeline({
      settings,
      store,
      client,
      delivery: createDelivery(settings, {
        store,
        poster: webClientPoster(
          createSlackWebClient({ token: slack.token, apiUrl: slack.url, logger, timeoutMs: 2000 }),
        ),
        logger,
        sender: { retry: { baseMs: 5, maxMs: 20, attemptsPerFlush: 3 } },
      }),
      logger,
      hris: options.hris,
    });
  const store = await openStateStore(file);
  const harness: Harness = {
    config,
    client,
    store,
    pipeline: build(store),
    async restart() {
      await harness.store.close();
      harness.store = await openStateStore(file);
      harness.pipeline = build(harness.store);
    },
    async close() {
      await harness.store.close();
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** Every text of a posted message (fallback, header, sections, fields). */
export function messageText(message: { text?: string | undefined; blocks?: unknown }): string {
  return `${message.text ?? ""}\n${JSON.stringify(message.blocks ?? [])}`;
}
