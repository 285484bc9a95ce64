import { createWriteStream, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RosterPerson } from "@retention-sync/emulator";
import { RetentionClient } from "../api/client.js";
import { startConfiguredDaemon } from "../app/configured-daemon.js";
import { loadConfig } from "../config/load-config.js";
import { EXIT_OK, type ExitCode, UsageError } from "../errors.js";
import { renderSlackMessage } from "../slack/render-slack-message.js";
import { startTimer } from "../timers.js";
import { type CommandIO, parseCommandFlags, writeLine } from "./command-io.js";
import { loadEmulatorPackage } from "./load-emulator-package.js";

const FLAGS = {
  dir: { type: "string" },
  seconds: { type: "string" },
  press: { type: "string" },
} as const;

/** The demo's Slack user: the one who presses `--press` buttons (allowed to stop tracking). */
const DEMO_USER = "U0DEMOUSER";

const PRESS_ACTIONS = { ack: "rs_ack", snooze: "rs_snooze", unsnooze: "rs_unsnooze", untrack: "rs_untrack" } as const;
type PressVerb = keyof typeof PRESS_ACTIONS;

/** `--press ack:2` (the second alert message shown) or `--press ack:<message ts>`. */
export function parsePress(text: string): { verb: PressVerb; nth?: number; ts?: string } {
  const match = /^(ack|snooze|unsnooze|untrack):(\d+(?:\.\d+)?)$/.exec(text);
  if (!match?.[1] || !match[2]) {
    throw new UsageError(
      `demo: --press expects ACTION:N (the N-th alert message shown) or ACTION:TS (a message ts), ACTION one of ack, snooze, unsnooze, untrack; got "${text}"`,
    );
  }
  const verb = match[1] as PressVerb;
  return match[2].includes(".") ? { verb, ts: match[2] } : { verb, nth: Number(match[2]) };
}

function snoozeOption(blocks: unknown): string | undefined {
  if (!Array.isArray(blocks)) return undefined;
  for (const block of blocks as Array<{
    elements?: Array<{ action_id?: string; options?: Array<{ value?: string }> }>;
  }>) {
    const select = block.elements?.find((e) => e.action_id === PRESS_ACTIONS.snooze);
    if (select?.options?.[0]?.value) return select.options[0].value;
  }
  return undefined;
}

const hasButtons = (blocks: unknown): boolean => JSON.stringify(blocks ?? "").includes(`"${PRESS_ACTIONS.ack}"`);

function demoConfig(opsPort: number): string {
  return `# Written by \`retention-sync demo\`: a working configuration to start from.
api:
  # The demo's emulator allows 600 requests/minute so the first reconcile is quick; the real service allows 120.
  requestsPerMinute: 600
alerts:
  pollInterval: 5s
  initialLookback: 24h
  routes:
    - name: retention-watch
      lens: retention
      minRiskLevel: watch
      channel: "#hr-alerts"
    - name: poaching-watch
      lens: poaching
      minRiskLevel: watch
      channel: "#poaching-alerts"
roster:
  runOnStart: true
  # The demo shows leavers archived in its first run. The safe defaults are 2 consecutive files
  # and leaving alone the people this daemon has never seen in an HRIS file (archiveUnknown: false).
  archiveAfterMissingRuns: 1
  archiveUnknown: true
slack:
  interactivity:
    # The demo's user may stop tracking (retention-sync demo --press untrack:N); nobody else.
    stopTracking:
      allowedUsers: ["${DEMO_USER}"]
daemon:
  host: 127.0.0.1
  port: ${opsPort}
  shutdownGraceSeconds: 10
`;
}

function untilStopped(signal: AbortSignal | undefined, seconds: number | undefined): Promise<void> {
  return new Promise((resolveStop) => {
    if (seconds !== undefined) startTimer(seconds * 1000, resolveStop, { unref: true });
    if (signal?.aborted) resolveStop();
    signal?.addEventListener("abort", () => resolveStop(), { once: true });
  });
}

/**
 * `retention-sync demo [--dir PATH] [--seconds N] [--press ACTION:N]`: the emulator, a local Slack sink and the
 * daemon wired together on loopback, no credentials needed. Slack messages are printed as they
 * arrive and kept in <dir>/slack-messages.jsonl; the daemon's JSON log goes to <dir>/daemon.log.
 */
export async function run(io: CommandIO): Promise<ExitCode> {
  const { values } = parseCommandFlags("demo", io, FLAGS);
  const seconds = values.seconds === undefined ? undefined : Number(values.seconds);
  if (seconds !== undefined && !(seconds > 0)) throw new UsageError("demo: --seconds takes a positive number");
  const press = values.press === undefined ? undefined : parsePress(values.press);
  const { buildSampleRoster, startEmulator, startFakeSlack } = await loadEmulatorPackage("demo");
  const dir = resolve(values.dir ?? ".demo");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });

  const emulator = await startEmulator({
    seed: "demo",
    signalIntervalMs: 3_000,
    importDelayMs: 1_000,
    rateLimitPerMinute: 600,
  });
  const transcript = createWriteStream(join(dir, "slack-messages.jsonl"));
  let alertsShown = 0;
  let pressed: Promise<void> | undefined;
  const slack = await startFakeSlack({
    onMessage: (message) => {
      transcript.write(`${JSON.stringify(message)}\n`);
      const channel = message.channelName ? `#${message.channelName}` : message.channel;
      writeLine(io.stdout, renderSlackMessage({ ...message, channel }));
      if (!press || pressed || !hasButtons(message.blocks) || message.threadTs !== undefined) return;
      alertsShown += 1;
      if (press.ts === undefined ? alertsShown !== press.nth : press.ts !== message.ts) return;
      pressed = pressButton(message, channel).catch((error: unknown) =>
        writeLine(
          io.stdout,
          `could not press ${press.verb}: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    },
  });
  /** Presses the button like a person in Slack would (through the fake's Socket Mode), then shows the updated message. */
  async function pressButton(message: { channel: string; ts: string; blocks?: unknown }, label: string) {
    if (!press) return;
    await slack.waitForSocketConnection();
    const updatesBefore = slack.updates().length;
    const option = press.verb === "snooze" ? snoozeOption(message.blocks) : undefined;
    const envelope = slack.pressButton({
      channel: message.channel,
      ts: message.ts,
      actionId: PRESS_ACTIONS[press.verb],
      userId: DEMO_USER,
      ...(option ? { selectedOption: option } : {}),
    });
    writeLine(io.stdout, `▶ pressing ${press.verb} on ${label} message ${message.ts} as <@${DEMO_USER}>`);
    await slack.waitForAck(envelope.envelopeId);
    for (let i = 0; i < 500 && slack.updates().length === updatesBefore; i += 1) {
      await new Promise((done) => setTimeout(done, 20));
    }
    const updated = slack.posted().find((m) => m.ts === message.ts && m.channel === message.channel);
    if (slack.updates().length === updatesBefore || !updated) {
      writeLine(io.stdout, `(no update of message ${message.ts}: see ${join(dir, "daemon.log")})`);
      return;
    }
    writeLine(io.stdout, renderSlackMessage({ ...updated, channel: `${label} (updated)` }));
  }
  const daemonLog = createWriteStream(join(dir, "daemon.log"));
  let configured: Awaited<ReturnType<typeof startConfiguredDaemon>> | undefined;
  try {
    const client = new RetentionClient({ baseUrl: emulator.baseUrl, apiKey: emulator.readKey });
    const people: RosterPerson[] = [];
    for await (const employee of client.iterateEmployees()) people.push(employee);
    await client.close();
    const sample = buildSampleRoster(people);
    const rosterFile = join(dir, "hris-export.csv");
    writeFileSync(rosterFile, sample.csv);
    const configFile = join(dir, "config.yaml");
    writeFileSync(configFile, demoConfig(0));

    const env = {
      ...io.env,
      RETENTION_API_URL: emulator.baseUrl,
      RETENTION_API_KEY: emulator.writeKey,
      SLACK_BOT_TOKEN: slack.token,
      // Socket Mode against the local Slack: the buttons on alerts are answered.
      SLACK_APP_TOKEN: slack.appToken,
      SLACK_API_URL: slack.url,
      SLACK_CHANNEL: "#hr-alerts",
      SLACK_OPS_CHANNEL: "#retention-ops",
      RETENTION_SYNC_STATE: join(dir, "state.sqlite"),
      HRIS_ROSTER_FILE: rosterFile,
      LOG_LEVEL: io.env.LOG_LEVEL ?? "info",
    };
    const config = loadConfig({ file: configFile, env });
    configured = await startConfiguredDaemon(config, { ...io, stdout: daemonLog });

    for (const line of [
      "retention-sync demo: everything runs on this machine, nothing needs credentials.",
      `  emulator of API v1   ${emulator.baseUrl}  (${people.length} people in the seeded roster)`,
      `  local Slack sink     ${slack.url}  (messages below, and in ${join(dir, "slack-messages.jsonl")})`,
      `  HRIS export          ${rosterFile}  (${sample.joiners} joiners, ${sample.leavers} leavers, ${sample.rehires} rehire, ${sample.brokenRows} broken rows)`,
      `  daemon log           ${join(dir, "daemon.log")}`,
      `  health and metrics   ${configured.daemon.opsUrl}/readyz  ${configured.daemon.opsUrl}/metrics`,
      "The reconcile report arrives in #retention-ops first; alerts from both lenses follow as the emulator raises signals.",
      press
        ? `Buttons: ${press.verb} is pressed on ${press.ts ? `message ${press.ts}` : `alert message ${press.nth}`} once it is shown.`
        : "Alerts carry buttons (Socket Mode); press one with: retention-sync demo --press ack:1",
      seconds === undefined ? "Press Ctrl-C to stop." : `Stopping by itself after ${seconds} s.`,
      "",
    ]) {
      writeLine(io.stdout, line);
    }
    await untilStopped(io.signal, seconds);
    await pressed;
    writeLine(io.stdout, "Stopping the demo...");
  } finally {
    await configured?.stop("demo over").catch(() => undefined);
    await slack.close();
    await emulator.close();
    await new Promise((done) => transcript.end(done));
    await new Promise((done) => daemonLog.end(done));
  }
  writeLine(io.stdout, `Demo stopped. Everything it wrote is in ${dir}`);
  return EXIT_OK;
}
