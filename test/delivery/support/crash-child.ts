/**
 * A separate process for the crash test: delivers the outbox of a state file into the fake Slack
 * and kills itself with SIGKILL right after Slack confirms the entry carrying `crashKey`, before
 * mark-sent: the worst moment for a real crash. With a burst (`burst` > 1) the posts go back to
 * back, without pacing waits between them.
 */

import { ChannelPacer } from "../../../src/delivery/channel-pacer.js";
import { Outbox, ThreadIndex } from "../../../src/delivery/outbox.js";
import { OutboxSender } from "../../../src/delivery/outbox-sender.js";
import { silentLogger } from "../../../src/logger.js";
import { createSlackWebClient, webClientPoster } from "../../../src/slack/slack-poster.js";
import { openStateStore } from "../../../src/store/state-store.js";

const [file, apiUrl, token, crashKey, burst = "1"] = process.argv.slice(2);
if (!file || !apiUrl || !token || !crashKey)
  throw new Error("usage: crash-child <state> <slack url> <token> <key> [burst]");
const store = await openStateStore(file);
const logger = silentLogger();
const sender = new OutboxSender({
  outbox: new Outbox(store),
  threads: new ThreadIndex(store, 86_400_000),
  poster: webClientPoster(createSlackWebClient({ token, apiUrl, logger })),
  pacer: new ChannelPacer(10, Date.now, undefined, Number(burst)),
  logger,
  afterPost: (entry) => {
    if (entry.alertKeys.includes(crashKey)) process.kill(process.pid, "SIGKILL");
  },
});
await sender.flush();
await store.close();
