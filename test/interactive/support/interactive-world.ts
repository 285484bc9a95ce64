/**
 * The buttons' world: the emulator (people seeded, tracked), the fake Slack with Socket Mode and a
 * user group, and `retention-sync run`'s daemon in this process with an app token, polling every
 * second. Helpers find posted alerts, press their buttons through the real Socket Mode client and
 * wait for what follows.
 */
import { RetentionClient } from "../../../src/api/client.js";
import { type ConfiguredDaemon, startConfiguredDaemon } from "../../../src/app/configured-daemon.js";
import { loadConfig } from "../../../src/config/load-config.js";
import { captureStream } from "../../helpers/capture-stream.js";
import { type FakeSlack, type FakeSlackMessage, startFakeSlack } from "../../helpers/fake-slack.js";
import { rosterDir } from "../../helpers/roster-files.js";
import { startTestEmulator, type TestEmulator } from "../../helpers/start-emulator.js";

export const ALLOWED = "U0CAROL";
export const GROUP_MEMBER = "U0DAVE";
export const HR_GROUP = "S0HRADMIN";

export interface InteractiveWorld {
  readonly emulator: TestEmulator;
  readonly slack: FakeSlack;
  readonly files: Awaited<ReturnType<typeof rosterDir>>;
  readonly client: RetentionClient;
  configured: ConfiguredDaemon | undefined;
  readonly logs: ReturnType<typeof captureStream>;
  /** Starts (or restarts) the daemon on the world's state file. */
  start(options?: {
    extra?: string;
    alertLines?: readonly string[];
    mode?: string;
    env?: Record<string, string>;
    /** Lines under `slack.interactivity:` (indented by four). */
    interactivityLines?: readonly string[];
  }): Promise<ConfiguredDaemon>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The daemon's config; `alertLines` go under `alerts:` (routes), `interactivityLines` under
 * `slack.interactivity:`, `extra` at the top level.
 */
export function configYaml(
  extra = "",
  alertLines: readonly string[] = [],
  mode?: string,
  interactivityLines: readonly string[] = [],
): string {
  return [
    // Polls every second: the default budget (120 a minute) would starve reconcile's requests.
    "api:",
    "  requestsPerMinute: 10000",
    "alerts:",
    "  pollInterval: 1s",
    "  initialLookback: 1h",
    "  cursorOverlap: 0s",
    ...alertLines,
    "slack:",
    "  interactivity:",
    ...(mode ? [`    mode: ${mode}`] : []),
    "    stopTracking:",
    `      allowedUsers: ["${ALLOWED}"]`,
    `      allowedUsergroups: ["${HR_GROUP}"]`,
    ...interactivityLines,
    "daemon:",
    "  host: 127.0.0.1",
    "  port: 0",
    extra,
    "",
  ].join("\n");
}

export async function startInteractiveWorld(options: { people?: number } = {}): Promise<InteractiveWorld> {
  const emulator = await startTestEmulator({
    seed: "empty",
    rateLimitPerMinute: 100_000,
    addHoldMs: 0,
    apiSeatsPerDay: 100_000,
  });
  if ((options.people ?? 4) > 0) await emulator.control.seedPeople({ count: options.people ?? 4, tracked: true });
  // Resends come quickly: the resend test's envelope goes unacked until the daemon is back.
  // Carol is a workspace user: an ephemeral note to her is answered `user_not_in_channel` otherwise
  // (Dave is one as a member of the group), whichever of the two wins a race of approvals.
  const slack = await startFakeSlack({
    users: { "manager@example.com": "UMANAGER01", "carol@example.com": ALLOWED },
    usergroups: { [HR_GROUP]: [GROUP_MEMBER] },
    socketResendAfterMs: 200,
  });
  const files = await rosterDir();
  const client = new RetentionClient({ baseUrl: emulator.baseUrl, apiKey: emulator.readKey });
  const logs = captureStream();
  const world: InteractiveWorld = {
    emulator,
    slack,
    files,
    client,
    configured: undefined,
    logs,
    async start(options = {}) {
      const configFile = await files.write(
        "config.yaml",
        configYaml(options.extra, options.alertLines, options.mode, options.interactivityLines),
      );
      const extraEnv = options.env ?? {};
      const env = {
        RETENTION_API_URL: emulator.baseUrl,
        RETENTION_API_KEY: emulator.writeKey,
        SLACK_BOT_TOKEN: slack.token,
        SLACK_APP_TOKEN: slack.appToken,
        SLACK_API_URL: slack.url,
        SLACK_CHANNEL: "#hr-alerts",
        RETENTION_SYNC_STATE: `${files.dir}/state.sqlite`,
        LOG_LEVEL: "info",
        ...extraEnv,
      };
      world.configured = await startConfiguredDaemon(loadConfig({ file: configFile, env }), {
        argv: [],
        env,
        stdout: logs.stream,
        stderr: logs.stream,
      });
      return world.configured;
    },
    async stop() {
      await world.configured?.stop("test over");
      world.configured = undefined;
    },
    async close() {
      await world.stop();
      await client.close();
      await slack.close();
      await emulator.close();
      await files.cleanup();
    },
  };
  return world;
}

/** Polls `probe` (every 20 ms, up to 20 s) until it returns a value. */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 1000; i += 1) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The messages posted about an employee (their button values carry the employee id). */
export function messagesAbout(slack: FakeSlack, employeeId: number): FakeSlackMessage[] {
  return slack.posted().filter((m) => JSON.stringify(m.blocks ?? "").includes(`\\"e\\":${employeeId},`));
}

/** The first alert (thread root) about the employee, once posted. */
export function rootAbout(slack: FakeSlack, employeeId: number): Promise<FakeSlackMessage> {
  return until(`an alert about employee ${employeeId}`, () =>
    messagesAbout(slack, employeeId).find((m) => m.threadTs === undefined),
  );
}

/** The value of a select option of a message's actions block, by its position. */
export function snoozeOption(message: FakeSlackMessage, index: number): string {
  const blocks = (message.blocks ?? []) as Array<{
    elements?: Array<{ action_id?: string; options?: Array<{ value: string }> }>;
  }>;
  const select = blocks.flatMap((b) => b.elements ?? []).find((e) => e.action_id === "rs_snooze");
  const value = select?.options?.[index]?.value;
  if (!value) throw new Error("no snooze menu on the message");
  return value;
}

/** The current state of a message in the fake (after updates). */
export function current(slack: FakeSlack, message: FakeSlackMessage): FakeSlackMessage {
  const now = slack.posted().find((m) => m.ts === message.ts && m.channel === message.channel);
  if (!now) throw new Error(`message ${message.ts} is gone`);
  return now;
}

export const blocksText = (message: FakeSlackMessage): string => JSON.stringify(message.blocks ?? []);

/** The value of a button of a message's actions block. */
export function buttonValue(message: FakeSlackMessage, actionId: string): string {
  const blocks = (message.blocks ?? []) as Array<{ elements?: Array<{ action_id?: string; value?: string }> }>;
  const value = blocks.flatMap((b) => b.elements ?? []).find((e) => e.action_id === actionId)?.value;
  if (!value) throw new Error(`no ${actionId} button on the message`);
  return value;
}

/**
 * Slack's block_actions payload for a press of `actionId` on `message`, as Slack would send it;
 * `value` instead of the button's own is a payload someone tampered with.
 */
export function pressPayload(
  message: FakeSlackMessage,
  actionId: string,
  userId: string,
  actionTs: string,
  value = buttonValue(message, actionId),
) {
  return {
    type: "block_actions",
    user: { id: userId, username: userId.toLowerCase(), team_id: "TFAKE0001" },
    api_app_id: "A0FAKE0001",
    container: { type: "message", message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
    channel: { id: message.channel, name: "hr-alerts" },
    message: { ts: message.ts, text: message.text, blocks: message.blocks },
    trigger_id: "1.2.3",
    actions: [{ action_id: actionId, block_id: "rs_actions", type: "button", value, action_ts: actionTs }],
  };
}

/** Waits for `count` log lines of presses ignored because they do not match what was posted. */
export function ignoredPresses(world: InteractiveWorld, count: number): Promise<Array<Record<string, unknown>>> {
  return until(`${count} ignored presses in the log`, () => {
    const lines = world.logs
      .text()
      .split("\n")
      .filter((line) => line.includes("press ignored: it does not match what this daemon posted"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    return lines.length >= count ? lines : undefined;
  });
}
