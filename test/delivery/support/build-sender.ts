import type { Alert } from "../../../src/alerts/alert.js";
import { ChannelPacer } from "../../../src/delivery/channel-pacer.js";
import { Outbox, ThreadIndex } from "../../../src/delivery/outbox.js";
import { OutboxSender, type OutboxSenderOptions } from "../../../src/delivery/outbox-sender.js";
import type { Logger } from "../../../src/logger.js";
import { silentLogger } from "../../../src/logger.js";
import { createSlackWebClient, webClientPoster } from "../../../src/slack/slack-poster.js";
import type { StateStore } from "../../../src/store/state-store.js";
import type { FakeSlack } from "../../helpers/fake-slack.js";

export interface SenderParts {
  readonly outbox: Outbox<Alert>;
  readonly threads: ThreadIndex;
  readonly sender: OutboxSender<Alert>;
}

/** An OutboxSender over a state store and the fake Slack, with fast pacing and retries for tests. */
export function buildSender(
  store: StateStore,
  slack: FakeSlack,
  overrides: Partial<OutboxSenderOptions<Alert>> & { logger?: Logger; messagesPerSecond?: number } = {},
): SenderParts {
  const logger = overrides.logger ?? silentLogger();
  const outbox = new Outbox<Alert>(store);
  const threads = new ThreadIndex(store, 86_400_000);
  const poster = webClientPoster(
    createSlackWebClient({ token: slack.token, apiUrl: slack.url, logger, timeoutMs: 2000 }),
  );
  const sender = new OutboxSender<Alert>({
    outbox,
    threads,
    poster,
    pacer: new ChannelPacer(overrides.messagesPerSecond ?? 10),
    logger,
    retry: { baseMs: 5, maxMs: 20, attemptsPerFlush: 3 },
    ...overrides,
  });
  return { outbox, threads, sender };
}
