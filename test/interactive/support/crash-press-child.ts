/**
 * A separate process for the crash test: the daemon's button machinery (journal, Socket Mode
 * client) on a state file; it kills itself with SIGKILL right after a press is journaled and
 * acked, before anything is applied: the worst moment for a real crash.
 */
import { RetentionClient } from "../../../src/api/client.js";
import { interactivitySettings } from "../../../src/interactive/interactive-settings.js";
import { createInteractivity } from "../../../src/interactive/start-interactivity.js";
import { silentLogger } from "../../../src/logger.js";
import { createSlackWebClient } from "../../../src/slack/slack-poster.js";
import { openStateStore } from "../../../src/store/state-store.js";
import { crashWorldConfig } from "./crash-config.js";

const [file, slackUrl, botToken, appToken, apiUrl, apiKey, allowed] = process.argv.slice(2);
if (!file || !slackUrl || !botToken || !appToken || !apiUrl || !apiKey || !allowed) {
  throw new Error("usage: crash-press-child <state> <slack url> <bot token> <app token> <api url> <api key> <user>");
}
const logger = silentLogger();
const store = await openStateStore(file);
const interactivity = createInteractivity({
  settings: interactivitySettings(crashWorldConfig({ botToken, appToken, slackUrl, allowed })),
  store,
  slack: createSlackWebClient({ token: botToken, apiUrl: slackUrl, logger }),
  slackApiUrl: slackUrl,
  client: new RetentionClient({ baseUrl: apiUrl, apiKey }),
  logger,
  beforeApply: () => {
    process.kill(process.pid, "SIGKILL");
  },
});
await interactivity.leaderService.start();
process.stdout.write("connected\n");
// Runs until the press kills it (or the test does).
setInterval(() => undefined, 60_000);
