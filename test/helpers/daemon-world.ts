import { type FakeSlack, startFakeSlack } from "./fake-slack.js";
import { rosterDir } from "./roster-files.js";
import { startTestEmulator, type TestEmulator } from "./start-emulator.js";

/** What a test of the whole daemon runs against: the emulator (limits raised), the fake Slack and a temp folder. */
export interface DaemonWorld {
  readonly emulator: TestEmulator;
  readonly slack: FakeSlack;
  readonly files: Awaited<ReturnType<typeof rosterDir>>;
  close(): Promise<void>;
}

/**
 * The environment a daemon of this world runs with: the emulator's write key, the fake Slack and
 * a state file of its own in the world's folder, plus `extra`.
 */
export function daemonEnv(
  world: Pick<DaemonWorld, "emulator" | "slack" | "files">,
  stateName: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    RETENTION_API_URL: world.emulator.baseUrl,
    RETENTION_API_KEY: world.emulator.writeKey,
    SLACK_BOT_TOKEN: world.slack.token,
    SLACK_API_URL: world.slack.url,
    SLACK_CHANNEL: "#hr-alerts",
    RETENTION_SYNC_STATE: `${world.files.dir}/${stateName}.sqlite`,
    ...extra,
  };
}

export async function startDaemonWorld(options: { allowLoopbackWebhooks?: boolean } = {}): Promise<DaemonWorld> {
  const emulator = await startTestEmulator({
    seed: "empty",
    rateLimitPerMinute: 100_000,
    addHoldMs: 0,
    apiSeatsPerDay: 100_000,
    ...(options.allowLoopbackWebhooks ? { allowLoopbackWebhooks: true } : {}),
  });
  const slack = await startFakeSlack();
  const files = await rosterDir();
  return {
    emulator,
    slack,
    files,
    async close() {
      await emulator.close();
      await slack.close();
      await files.cleanup();
    },
  };
}
