/** The fake Slack Web API lives in src/ because the demo ships it as its local Slack sink. */
import {
  type FakeSlack,
  type FakeSlackOptions,
  startFakeSlack as startServer,
} from "../../src/demo/fake-slack-server.js";
import { registerSecret } from "./known-secrets.js";

export * from "../../src/demo/fake-slack-server.js";

/** The fake Slack, its token known to the log audit. */
export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const slack = await startServer(options);
  registerSecret(slack.token, "fake Slack token");
  return slack;
}
