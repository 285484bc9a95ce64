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
} as const;

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
 * `retention-sync demo [--dir PATH] [--seconds N]`: the emulator, a local Slack sink and the
 * daemon wired together on loopback, no credentials needed. Slack messages are printed as they
 * arrive and kept in <dir>/slack-messages.jsonl; the daemon's JSON log goes to <dir>/daemon.log.
 */
export async function run(io: CommandIO): Promise<ExitCode> {
  const { values } = parseCommandFlags("demo", io, FLAGS);
  const seconds = values.seconds === undefined ? undefined : Number(values.seconds);
  if (seconds !== undefined && !(seconds > 0)) throw new UsageError("demo: --seconds takes a positive number");
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
  const slack = await startFakeSlack({
    onMessage: (message) => {
      transcript.write(`${JSON.stringify(message)}\n`);
      const channel = message.channelName ? `#${message.channelName}` : message.channel;
      writeLine(io.stdout, renderSlackMessage({ ...message, channel }));
    },
  });
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
      seconds === undefined ? "Press Ctrl-C to stop." : `Stopping by itself after ${seconds} s.`,
      "",
    ]) {
      writeLine(io.stdout, line);
    }
    await untilStopped(io.signal, seconds);
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
