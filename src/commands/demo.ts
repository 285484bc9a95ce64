import { createWriteStream, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RosterPerson } from "@retention-sync/emulator";
import { RetentionClient } from "../api/client.js";
import { startConfiguredDaemon } from "../app/configured-daemon.js";
import { openRuntime } from "../app/runtime.js";
import { loadConfig } from "../config/load-config.js";
import type { Config } from "../config/schema.js";
import { EXIT_OK, type ExitCode, UsageError } from "../errors.js";
import { postReconcileReport } from "../roster/post-report.js";
import { reconcileOnce } from "../roster/reconcile-once.js";
import type { ReconcileReport } from "../roster/report.js";
import { ROW_ERROR_REASONS } from "../roster/roster-rows.js";
import { type CommandIO, parseCommandFlags, untilStopped, writeLine } from "./command-io.js";
import { loadEmulatorPackage } from "./load-emulator-package.js";
import { PRESS_USER, type PressRequest, parsePress, startLocalSlack } from "./local-slack.js";
import { pressInRunning, runningIn, startPressControl } from "./press-control.js";

const FLAGS = {
  dir: { type: "string" },
  seconds: { type: "string" },
  press: { type: "string" },
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
slack:
  interactivity:
    # The demo's user may stop tracking (retention-sync demo --press untrack:N); nobody else.
    stopTracking:
      allowedUsers: ["${PRESS_USER}"]
daemon:
  host: 127.0.0.1
  port: ${opsPort}
  shutdownGraceSeconds: 10
`;
}

/**
 * The demo's first reconcile, run before the daemon starts so that its report is the first
 * message in Slack, as the demo says: the daemon would run it beside the first poll, and the
 * alerts of the last 24 hours would beat it there.
 */
async function firstReconcile(config: Config, io: CommandIO, log: NodeJS.WritableStream): Promise<ReconcileReport> {
  const runtime = await openRuntime(
    config,
    { ...io, stdout: log },
    { client: true, store: true, slack: true, delivery: true, logDestination: log },
  );
  try {
    const deps = { config, client: runtime.bulkClient, store: runtime.store, logger: runtime.logger };
    const report = await reconcileOnce(deps, { ...(config.roster.file ? { file: config.roster.file } : {}) });
    if (config.slack.opsChannel)
      await postReconcileReport(runtime.delivery, config.slack.opsChannel, report, runtime.logger);
    return report;
  } finally {
    await runtime.close();
  }
}

/** The first reconcile in one line, every figure from its report. */
function reconcileSummary(report: ReconcileReport): string {
  const done = report.applied;
  const broken = report.rows.problems.filter((p) => ROW_ERROR_REASONS.has(p.reason)).length;
  const changes = done
    ? `added ${done.addedTracked + done.addedUntracked}, revived ${done.revived}, archived ${done.archived}`
    : `planned add ${report.planned.add}, revive ${report.planned.revive}, archive ${report.planned.archive}`;
  return `Reconciled the sample export (${report.rows.read} rows read): ${changes}; ${broken} broken ${broken === 1 ? "row needs" : "rows need"} fixing, named in the report.`;
}

/** `demo --press` while a demo runs in the folder: the press is made there, and no second demo starts. */
async function pressInRunningDemo(io: CommandIO, dir: string, press: PressRequest): Promise<boolean> {
  const lines = await pressInRunning(dir, press);
  if (lines === undefined) return false;
  for (const line of lines) writeLine(io.stdout, line);
  return true;
}

/**
 * `retention-sync demo [--dir PATH] [--seconds N] [--press ACTION:N]`: the emulator, a local Slack sink and the
 * daemon wired together on loopback, no credentials needed. Slack messages are printed as they
 * arrive and kept in <dir>/slack-messages.jsonl; the daemon's JSON log goes to <dir>/daemon.log.
 * `--press` while a demo runs in <dir> presses in that demo (through <dir>/control.json).
 */
export async function run(io: CommandIO): Promise<ExitCode> {
  const { values } = parseCommandFlags("demo", io, FLAGS);
  const seconds = values.seconds === undefined ? undefined : Number(values.seconds);
  if (seconds !== undefined && !(seconds > 0)) throw new UsageError("demo: --seconds takes a positive number");
  const press = values.press === undefined ? undefined : parsePress(values.press);
  const dir = resolve(values.dir ?? ".demo");
  if (press && (await pressInRunningDemo(io, dir, press))) return EXIT_OK;
  const running = await runningIn(dir);
  if (running) {
    throw new UsageError(
      `demo: a ${running.command} is already running in ${dir}: stop it (Ctrl-C), press in it with --press ACTION:N, or pass another --dir`,
    );
  }
  const pkg = await loadEmulatorPackage("demo");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });

  const emulator = await pkg.startEmulator({
    seed: "demo",
    signalIntervalMs: 3_000,
    importDelayMs: 1_000,
    rateLimitPerMinute: 600,
  });
  const local = await startLocalSlack(pkg, {
    command: "demo",
    stdout: io.stdout,
    transcriptPath: join(dir, "slack-messages.jsonl"),
  });
  const control = await startPressControl(dir, "demo", (request) => local.press(request));
  if (press) local.pressWhenShown(press);
  const daemonLog = createWriteStream(join(dir, "daemon.log"));
  let configured: Awaited<ReturnType<typeof startConfiguredDaemon>> | undefined;
  const say = (line: string) => writeLine(io.stdout, line);
  try {
    const client = new RetentionClient({ baseUrl: emulator.baseUrl, apiKey: emulator.readKey });
    const people: RosterPerson[] = [];
    for await (const employee of client.iterateEmployees()) people.push(employee);
    await client.close();
    const sample = pkg.buildSampleRoster(people);
    const rosterFile = join(dir, "hris-export.csv");
    writeFileSync(rosterFile, sample.csv);
    const configFile = join(dir, "config.yaml");
    writeFileSync(configFile, demoConfig(0));

    const env = {
      ...io.env,
      RETENTION_API_URL: emulator.baseUrl,
      RETENTION_API_KEY: emulator.writeKey,
      SLACK_BOT_TOKEN: local.slack.token,
      // Socket Mode against the local Slack: the buttons on alerts are answered.
      SLACK_APP_TOKEN: local.slack.appToken,
      SLACK_API_URL: local.slack.url,
      SLACK_CHANNEL: "#hr-alerts",
      SLACK_OPS_CHANNEL: "#retention-ops",
      RETENTION_SYNC_STATE: join(dir, "state.sqlite"),
      HRIS_ROSTER_FILE: rosterFile,
      LOG_LEVEL: io.env.LOG_LEVEL ?? "info",
    };
    const config = loadConfig({ file: configFile, env });

    for (const line of [
      "retention-sync demo: everything runs on this machine, nothing needs credentials.",
      `  emulator of API v1   ${emulator.baseUrl}  (${people.length} people in the seeded roster)`,
      `  local Slack sink     ${local.slack.url}  (messages below, and in ${join(dir, "slack-messages.jsonl")})`,
      `  HRIS export          ${rosterFile}  (made from the seeded roster: joiners, leavers, a rehire, broken rows)`,
      `  daemon log           ${join(dir, "daemon.log")}`,
      "First the sample export is reconciled; its report arrives in #retention-ops before the daemon starts.",
      "",
    ]) {
      say(line);
    }
    say(reconcileSummary(await firstReconcile(config, io, daemonLog)));
    // The first reconcile is done: the daemon must not run a second one at start.
    const daemonConfig: Config = { ...config, roster: { ...config.roster, runOnStart: false } };
    configured = await startConfiguredDaemon(daemonConfig, { ...io, stdout: daemonLog });
    for (const line of [
      `The daemon runs now (health and metrics: ${configured.daemon.opsUrl}/readyz ${configured.daemon.opsUrl}/metrics).`,
      "Alerts of both lenses follow: the changes of the last 24 hours first, then new ones as the emulator raises them.",
      press
        ? `Buttons: ${press.verb} is pressed on ${press.ts ? `message ${press.ts}` : `alert message ${press.nth}`} once it is shown.`
        : "Alerts carry buttons (Socket Mode); press one from another terminal: retention-sync demo --press ack:1",
      seconds === undefined ? "Press Ctrl-C to stop." : `Stopping by itself after ${seconds} s.`,
      "",
    ]) {
      say(line);
    }
    await untilStopped(io.signal, seconds);
    await local.settled();
    say("Stopping the demo...");
  } finally {
    await control.close();
    await configured?.stop("demo over").catch(() => undefined);
    await local.close();
    await emulator.close();
    await new Promise((done) => daemonLog.end(done));
  }
  say(`Demo stopped. Everything it wrote is in ${dir}`);
  return EXIT_OK;
}
