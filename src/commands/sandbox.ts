import { createWriteStream, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { EmulatorHandle, RosterPerson, SeedName } from "@retention-sync/emulator";
import { RetentionClient } from "../api/client.js";
import { CONFIG_FILE_ENV } from "../config/env-overrides.js";
import { loadConfig } from "../config/load-config.js";
import { EXIT_OK, type ExitCode, LocalPressError, UsageError } from "../errors.js";
import { createLogger } from "../logger.js";
import { configuredChannels } from "./check-slack.js";
import { type CommandIO, parseCommandFlags, untilStopped, writeLine } from "./command-io.js";
import { type EmulatorPackage, loadEmulatorPackage } from "./load-emulator-package.js";
import { type LocalSlack, parsePress, startLocalSlack } from "./local-slack.js";
import { pressInRunning, runningIn, startPressControl } from "./press-control.js";

const FLAGS = {
  port: { type: "string" },
  "slack-port": { type: "string" },
  seed: { type: "string" },
  dir: { type: "string" },
  press: { type: "string" },
} as const;

/** Fixed ports, so the environment pasted into another terminal keeps working after a restart. */
export const SANDBOX_PORTS = { api: 4010, slack: 4011 } as const;

/**
 * Fixed credentials for the same reason. They open nothing but this machine's sandbox: the
 * emulator and the local Slack listen on 127.0.0.1 only and hold made-up data.
 */
export const SANDBOX_CREDENTIALS = {
  writeKey: "rsk_sandbox_write_local_only",
  readKey: "rsk_sandbox_read_local_only",
  botToken: "xoxb-sandbox-local-only",
  appToken: "xapp-1-sandbox-local-only",
} as const;

const CHANNELS = { alerts: "#hr-alerts", ops: "#retention-ops" } as const;

/** A new alert every 20 s on the demo seed, so `run` has something to post; none on the empty seed. */
const SIGNAL_INTERVAL_MS = 20_000;

function portFlag(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > 65_535) {
    throw new UsageError(`sandbox: --${name} takes a port number, 0 to 65535 (0 picks a free one); got "${value}"`);
  }
  return Number(value);
}

/** A value as one shell word: bare when safe, else single-quoted. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** Channels named by the user's config (re-read at each listing, so an edit is seen); none when it cannot be read. */
function configChannels(env: NodeJS.ProcessEnv): () => string[] {
  const file = env[CONFIG_FILE_ENV];
  return () => {
    if (!file) return [];
    try {
      return configuredChannels(loadConfig({ file, env })).map((c) => c.channel);
    } catch {
      return []; // `check` in the other terminal names what is wrong with the file
    }
  };
}

async function startSandboxEmulator(
  pkg: EmulatorPackage,
  seed: SeedName,
  port: number,
  dir: string,
): Promise<EmulatorHandle> {
  const log = createWriteStream(join(dir, "emulator.log"));
  const logger = createLogger({
    secrets: [SANDBOX_CREDENTIALS.writeKey, SANDBOX_CREDENTIALS.readKey],
    destination: { write: (line: string) => log.write(line) },
  });
  try {
    const emulator = await pkg.startEmulator({
      seed,
      port,
      logger,
      writeKey: SANDBOX_CREDENTIALS.writeKey,
      readKey: SANDBOX_CREDENTIALS.readKey,
      signalIntervalMs: seed === "demo" ? SIGNAL_INTERVAL_MS : 0,
      // The user's own daemon may receive webhooks on this machine.
      allowLoopbackWebhooks: true,
    });
    return {
      ...emulator,
      close: async () => {
        await emulator.close();
        await new Promise((done) => log.end(done));
      },
    };
  } catch (error) {
    log.end();
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new UsageError(
        `sandbox: the emulator cannot listen on 127.0.0.1:${port}: the port is taken (another sandbox?); pick another with --port N`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** A sample HRIS export made from the emulator's roster, for `reconcile --dry-run --file`. */
async function writeSampleExport(pkg: EmulatorPackage, emulator: EmulatorHandle, file: string): Promise<void> {
  const client = new RetentionClient({ baseUrl: emulator.baseUrl, apiKey: emulator.readKey });
  const people: RosterPerson[] = [];
  try {
    for await (const employee of client.iterateEmployees()) people.push(employee);
  } finally {
    await client.close();
  }
  writeFileSync(file, pkg.buildSampleRoster(people).csv);
}

/** The environment for the second terminal, as `export` lines. */
function environment(emulator: EmulatorHandle, local: LocalSlack, dir: string): Array<[string, string]> {
  return [
    ["RETENTION_API_URL", emulator.baseUrl],
    ["RETENTION_API_KEY", emulator.writeKey],
    ["SLACK_API_URL", local.slack.url],
    ["SLACK_BOT_TOKEN", local.slack.token],
    ["SLACK_APP_TOKEN", local.slack.appToken],
    ["SLACK_CHANNEL", CHANNELS.alerts],
    ["SLACK_OPS_CHANNEL", CHANNELS.ops],
    ["RETENTION_SYNC_STATE", join(dir, "state.sqlite")],
  ];
}

function introduction(
  emulator: EmulatorHandle,
  env: Array<[string, string]>,
  dir: string,
  sample: string,
  configFile: string | undefined,
) {
  const here = (path: string) => shellWord(relative(process.cwd(), path) || ".");
  const config = configFile ? ` --config ${shellWord(configFile)}` : "";
  return [
    "retention-sync sandbox: the emulator of API v1 and a local Slack on this machine, for trying a config.",
    "Paste into a second terminal:",
    "",
    ...env.map(([name, value]) => `export ${name}=${shellWord(value)}`),
    "",
    `Then try (in a checkout, retention-sync is node dist/cli.js)${configFile ? "" : "; add --config PATH for your config, and start the sandbox with it too so check finds its channels"}:`,
    `  retention-sync${config} check`,
    `  retention-sync${config} poll --once`,
    `  retention-sync${config} reconcile --dry-run --file ${here(sample)}   (or your own export)`,
    `  retention-sync${config} run`,
    `  retention-sync sandbox --press ack:1${dir === resolve(".sandbox") ? "" : ` --dir ${here(dir)}`}   (while run runs: press Acknowledge on the first alert)`,
    "",
    "Raise changes now (organizationId 2001 or 2002 for the poaching lens; docs: packages/emulator/README.md):",
    `  curl -s -X POST ${emulator.url}/_emulator/signals -H 'content-type: application/json' -d '{"count": 3}'`,
    "",
    "Every message the local Slack receives is shown below, on any channel your config names. Ctrl-C stops.",
    "",
  ];
}

/**
 * `retention-sync [--config PATH] sandbox [--port N] [--slack-port N] [--seed demo|empty] [--dir PATH]`:
 * the emulator and a local Slack until Ctrl-C, for trying a config before real credentials
 * (docs/sandbox.md). `sandbox --press ACTION:N` presses in the sandbox running in --dir.
 */
export async function run(io: CommandIO): Promise<ExitCode> {
  const { values } = parseCommandFlags("sandbox", io, FLAGS);
  const dir = resolve(values.dir ?? ".sandbox");
  if (values.press !== undefined) {
    const lines = await pressInRunning(dir, parsePress(values.press, "sandbox"));
    if (!lines)
      throw new LocalPressError(`sandbox: no sandbox runs in ${dir}: start one first (retention-sync sandbox)`);
    for (const line of lines) writeLine(io.stdout, line);
    return EXIT_OK;
  }
  const port = portFlag("port", values.port, SANDBOX_PORTS.api);
  const slackPort = portFlag("slack-port", values["slack-port"], SANDBOX_PORTS.slack);
  const seed = values.seed ?? "demo";
  if (seed !== "demo" && seed !== "empty") throw new UsageError(`sandbox: --seed is demo or empty (got "${seed}")`);
  const running = await runningIn(dir);
  if (running) {
    throw new UsageError(`sandbox: a ${running.command} is already running in ${dir}: stop it, or pass another --dir`);
  }
  const pkg = await loadEmulatorPackage("sandbox");
  mkdirSync(dir, { recursive: true });
  // A restarted emulator starts its world again: state kept from the last one would hide its alerts as repeats.
  for (const name of ["state.sqlite", "state.sqlite-wal", "state.sqlite-shm", "slack-messages.jsonl"]) {
    rmSync(join(dir, name), { force: true });
  }

  const emulator = await startSandboxEmulator(pkg, seed, port, dir);
  let local: LocalSlack | undefined;
  let control: Awaited<ReturnType<typeof startPressControl>> | undefined;
  try {
    local = await startLocalSlack(pkg, {
      command: "sandbox",
      stdout: io.stdout,
      transcriptPath: join(dir, "slack-messages.jsonl"),
      port: slackPort,
      appToken: SANDBOX_CREDENTIALS.appToken,
      token: SANDBOX_CREDENTIALS.botToken,
      openWorkspace: { knownChannels: configChannels(io.env) },
    });
    const pressing = local;
    control = await startPressControl(dir, "sandbox", (request) => pressing.press(request));
    const sample = join(dir, "hris-export.csv");
    await writeSampleExport(pkg, emulator, sample);
    for (const line of introduction(
      emulator,
      environment(emulator, local, dir),
      dir,
      sample,
      io.env[CONFIG_FILE_ENV],
    )) {
      writeLine(io.stdout, line);
    }
    await untilStopped(io.signal);
    writeLine(io.stdout, "Stopping the sandbox...");
  } finally {
    await control?.close();
    await local?.close();
    await emulator.close();
  }
  return EXIT_OK;
}
