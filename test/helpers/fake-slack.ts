/** The fake Slack Web API lives in packages/emulator because the demo uses it as its local Slack sink. */
import { type FakeSlack, type FakeSlackOptions, startFakeSlack as startServer } from "@retention-sync/emulator";
import { registerSecret } from "./known-secrets.js";

export type {
  FakeSlack,
  FakeSlackCall,
  FakeSlackChannel,
  FakeSlackFailure,
  FakeSlackFaults,
  FakeSlackMessage,
  FakeSlackOptions,
  FakeSlackRateLimit,
} from "@retention-sync/emulator";

/** The fake Slack, its token known to the log audit. */
export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const slack = await startServer(options);
  registerSecret(slack.token, "fake Slack token");
  return slack;
}
