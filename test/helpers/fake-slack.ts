/** The fake Slack Web API lives in packages/emulator because the demo uses it as its local Slack sink. */
import { type FakeSlack, type FakeSlackOptions, startFakeSlack as startServer } from "@retention-sync/emulator";
import { registerSecret } from "./known-secrets.js";

export type {
  FakeButtonPress,
  FakeSlack,
  FakeSlackCall,
  FakeSlackChannel,
  FakeSlackEphemeral,
  FakeSlackFailure,
  FakeSlackFaults,
  FakeSlackMessage,
  FakeSlackOptions,
  FakeSlackRateLimit,
  FakeSlackUpdate,
  FakeSocketEnvelope,
  FakeSocketEnvelopeType,
  FakeSocketEvent,
} from "@retention-sync/emulator";

/** The fake Slack, its tokens and signing secret known to the log audit. */
export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const slack = await startServer(options);
  registerSecret(slack.token, "fake Slack token");
  registerSecret(slack.appToken, "fake Slack app-level token");
  registerSecret(slack.signingSecret, "fake Slack signing secret");
  return slack;
}
