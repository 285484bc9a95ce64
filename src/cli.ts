#!/usr/bin/env node
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { CommandIO, CommandModule } from "./commands/command-io.js";
import { CONFIG_FILE_ENV, ENV_OVERRIDES } from "./config/env-overrides.js";
import {
  EXIT_OK,
  EXIT_PARTIAL,
  EXIT_RUNTIME,
  EXIT_USAGE,
  type ExitCode,
  exitCodeOf,
  RetentionSyncError,
  UsageError,
} from "./errors.js";
import { secretScrubber } from "./logger.js";
import { packageVersion } from "./package-version.js";
import { SOURCE_SECRET_ENV } from "./roster/sources/source-secrets.js";

interface CommandEntry {
  readonly summary: string;
  readonly usage: string;
  readonly load: () => Promise<CommandModule>;
}

/** The commands; each module exports `run(io)`. */
const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  run: {
    summary: "the daemon: poller, reconcile schedule, webhook receiver, health server (until SIGTERM/SIGINT)",
    usage: "run [--config PATH]",
    load: () => import("./commands/run.js"),
  },
  poll: {
    summary: "one polling pass over all lenses",
    usage: "poll --once [--dry-run] [--config PATH]   (--dry-run prints the Slack messages instead of posting)",
    load: () => import("./commands/poll.js"),
  },
  reconcile: {
    summary: "one roster reconciliation (--dry-run [--out PLAN] saves a plan, --plan PLAN applies exactly it)",
    usage:
      "reconcile [--dry-run] [--json] [--file PATH] [--allow-mass-archive] [--out PLAN] [--plan PLAN] [--config PATH]\n" +
      "  --dry-run         print the plan (every person named, with the reason; seat and cost delta), change nothing\n" +
      "  --json            the report as JSON, every list complete\n" +
      "  --out PLAN        with --dry-run: save the plan to the file PLAN\n" +
      "  --plan PLAN       apply exactly the saved plan PLAN; refused, with the difference named, if it is stale\n" +
      "  --allow-mass-archive  pass the mass-archive guard for this run (with --plan too: a plan carries no approval)",
    load: () => import("./commands/reconcile.js"),
  },
  check: {
    summary: "verify config, the API key (GET /me), the Slack token and channels, the roster file",
    usage: "check [--config PATH]",
    load: () => import("./commands/check.js"),
  },
  actions: {
    summary: "list the Slack button presses (acknowledge, snooze, stop tracking) journaled in the state store",
    usage:
      "actions [--since DURATION] [--json] [--config PATH]\n" +
      "  --since DURATION  presses journaled within this long ago (default 7d; 90d are kept)\n" +
      "  --json            one object per press: time, user, action, person, change, outcome",
    load: () => import("./commands/actions.js"),
  },
  webhooks: {
    summary: "register, list, enable, disable or delete the service's webhook endpoints",
    usage:
      "webhooks register|list|enable|disable|delete [flags] [--config PATH]\n" +
      "  register --url URL [--description TEXT] [--no-employee-warnings] [--no-poaching-opportunities]\n" +
      "           [--employee-sensitivity 1..5] [--poaching-sensitivity 1..5] [--json]\n" +
      "                    registers the receiver's public HTTPS URL (default alerts.webhook.publicUrl) and\n" +
      "                    prints its signing secret once, for RETENTION_WEBHOOK_SECRETS (needs a write key)\n" +
      "  list [--json]     every endpoint: id, URL, enabled, lenses and sensitivities, delivery health\n" +
      "  enable ID         resume deliveries (the service clears the failure counter)\n" +
      "  disable ID        stop deliveries; the record and its delivery history are kept\n" +
      "  delete ID --yes   remove the endpoint and its delivery history (cannot be undone)\n" +
      "  Sensitivity: the lowest risk delivered, 1: 0.90, 2: 0.75, 3: 0.50 (default), 4: 0.35, 5: 0.20.\n" +
      "  More: docs/webhooks.md",
    load: () => import("./commands/webhooks.js"),
  },
  status: {
    summary: "the daemon's state on one screen: leader, lenses, outbox, last reconcile, roster, what needs a person",
    usage:
      "status [--json] [--config PATH]\n" +
      "  --json            the same as JSON\n" +
      "  Reads the state store without writing (safe while the daemon runs) and asks the daemon's ops\n" +
      "  server (daemon.port / OPS_PORT on this machine) for what only it knows. Exit 3 when something\n" +
      "  needs a person.",
    load: () => import("./commands/status.js"),
  },
  emulator: {
    summary: "run the local emulator of API v1",
    usage:
      "emulator [--port N] [--write-key K] [--read-key K] [--rate-limit N] [--seed demo|empty] [--allow-loopback-webhooks]",
    load: () => import("./commands/emulator.js"),
  },
  demo: {
    summary: "emulator + local Slack sink + daemon, wired together, no credentials needed",
    usage:
      "demo [--seconds N] [--dir PATH] [--press ACTION:N]\n" +
      "  --press ACTION:N  press a button (ack, snooze, unsnooze, untrack) on the N-th alert message shown\n" +
      "                    (or ACTION:TS for a message ts) as the demo's Slack user; the updated message is shown.\n" +
      "                    While a demo runs in --dir (default .demo), the press is made in it; else a new demo starts",
    load: () => import("./commands/demo.js"),
  },
  sandbox: {
    summary: "emulator + local Slack for trying your own config before real credentials (until Ctrl-C)",
    usage:
      "[--config PATH] sandbox [--port N] [--slack-port N] [--seed demo|empty] [--dir PATH]\n" +
      "       retention-sync sandbox --press ACTION:N [--dir PATH]\n" +
      "  --port N          the emulator's port (default 4010; 0 picks a free one)\n" +
      "  --slack-port N    the local Slack's port (default 4011)\n" +
      "  --seed NAME       demo (a seeded company, new alerts every 20 s) or empty\n" +
      "  --dir PATH        its files: state, transcript, sample export, control file (default .sandbox)\n" +
      "  --press ACTION:N  press a button on the N-th alert shown in the sandbox running in --dir\n" +
      "Prints the environment to paste into a second terminal, then every message the local Slack receives.",
    load: () => import("./commands/sandbox.js"),
  },
};

export function helpText(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const envWidth = Math.max(...ENV_OVERRIDES.map((o) => o.env.length), CONFIG_FILE_ENV.length);
  const envLine = (env: string, text: string) => `  ${env.padEnd(envWidth)}  ${text}`;
  return [
    "retention-sync: bridges the Retention Early-Warning Service (API v1) to an HRIS roster and Slack.",
    "",
    "Usage: retention-sync [--config PATH] <command> [flags]",
    "       retention-sync <command> --help",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    "",
    "Global flags:",
    "  -c, --config PATH  config file (YAML; every option is documented in config/default.yaml)",
    "  -h, --help         this help",
    "  -v, --version      print the version",
    "",
    "Environment (overrides the config file):",
    envLine(CONFIG_FILE_ENV, "config file path when --config is not given"),
    ...ENV_OVERRIDES.map((o) => envLine(o.env, `${o.description} (${o.path})`)),
    "",
    "Exit codes:",
    `  ${EXIT_OK}  ok`,
    `  ${EXIT_RUNTIME}  runtime failure (service or Slack unreachable, store error, ...)`,
    `  ${EXIT_USAGE}  usage or configuration error (bad flag, invalid config, rejected key)`,
    `  ${EXIT_PARTIAL}  partial success: something was deferred or skipped and needs attention`,
    "",
  ].join("\n");
}

/** The password of a postgres:// RETENTION_SYNC_STATE, decoded. */
function statePassword(state: string | undefined): string | undefined {
  try {
    return state && /^\s*postgres(ql)?:/i.test(state) ? decodeURIComponent(new URL(state.trim()).password) : undefined;
  } catch {
    return undefined;
  }
}

function secretsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const values = [
    env.RETENTION_API_KEY,
    env.SLACK_BOT_TOKEN,
    env.SLACK_APP_TOKEN,
    env.SLACK_SIGNING_SECRET,
    ...(env.RETENTION_WEBHOOK_SECRETS ?? "").split(","),
    env.PGPASSWORD,
    statePassword(env.RETENTION_SYNC_STATE),
    ...SOURCE_SECRET_ENV.map((name) => env[name]),
  ];
  return values.map((v) => v?.trim() ?? "").filter((v) => v.length > 0);
}

/** Dispatches `argv` (without node and script) to a command. Never throws: returns the exit code. */
export async function main(argv: readonly string[], io: Omit<CommandIO, "argv">): Promise<ExitCode> {
  const scrub = secretScrubber(secretsFromEnv(io.env));
  try {
    const commandAt = findCommand(argv);
    const globals = commandAt < 0 ? [...argv] : argv.slice(0, commandAt);
    let parsed: ReturnType<typeof parseGlobals>;
    try {
      parsed = parseGlobals(globals);
    } catch (error) {
      throw new UsageError(`${error instanceof Error ? error.message : String(error)}. Run "retention-sync --help".`);
    }
    if (parsed.help) {
      io.stdout.write(helpText());
      return EXIT_OK;
    }
    if (parsed.version) {
      io.stdout.write(`${packageVersion()}\n`);
      return EXIT_OK;
    }
    const name = commandAt < 0 ? undefined : argv[commandAt];
    if (name === undefined) {
      io.stderr.write(`retention-sync: missing command.\n\n${helpText()}`);
      return EXIT_USAGE;
    }
    if (name === "help") {
      io.stdout.write(helpText());
      return EXIT_OK;
    }
    const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!entry) {
      throw new UsageError(
        `unknown command "${name}". Commands: ${Object.keys(COMMANDS).join(", ")}. Run "retention-sync --help".`,
      );
    }
    const rest = argv.slice(commandAt + 1);
    if (rest.includes("--help") || rest.includes("-h")) {
      io.stdout.write(`Usage: retention-sync ${entry.usage}\n\n${entry.summary}\n`);
      return EXIT_OK;
    }
    const env = parsed.config !== undefined ? { ...io.env, [CONFIG_FILE_ENV]: parsed.config } : io.env;
    const command = await entry.load();
    const code = await command.run({ ...io, env, argv: rest });
    return isExitCode(code) ? code : EXIT_RUNTIME;
  } catch (error) {
    io.stderr.write(`${scrub(describeFailure(error, io.env))}\n`);
    return exitCodeOf(error);
  }
}

/** Index of the command name: the first argument that is neither a global flag nor the --config value. */
function findCommand(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--config" || arg === "-c") i++;
    else if (!arg.startsWith("-")) return i;
  }
  return -1;
}

function parseGlobals(args: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: {
      config: { type: "string", short: "c" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new Error(`unexpected argument "${positionals[0]}"`);
  return values;
}

function isExitCode(code: number): code is ExitCode {
  return code === EXIT_OK || code === EXIT_RUNTIME || code === EXIT_USAGE || code === EXIT_PARTIAL;
}

/** One clear line (or the config problem list); the stack only at LOG_LEVEL=debug or trace. */
function describeFailure(error: unknown, env: NodeJS.ProcessEnv): string {
  const debug = env.LOG_LEVEL === "debug" || env.LOG_LEVEL === "trace";
  if (error instanceof RetentionSyncError) {
    const prefix = error instanceof UsageError ? "retention-sync: usage error" : "retention-sync: error";
    return debug && error.stack ? `${prefix}: ${error.stack}` : `${prefix}: ${error.message}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (debug && error instanceof Error && error.stack) return `retention-sync: unexpected error: ${error.stack}`;
  return `retention-sync: unexpected error: ${message} (set LOG_LEVEL=debug for the stack trace)`;
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const controller = new AbortController();
  // First signal: ask the command to stop (the daemon checkpoints and exits within its grace
  // period). A second signal exits at once.
  const stop = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(128 + (signal === "SIGINT" ? 2 : 15));
    controller.abort();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  main(process.argv.slice(2), {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    signal: controller.signal,
  }).then((code) => {
    process.exitCode = code;
    // A stray handle (a socket in close, a timer of a library) must not keep a finished command alive.
    setTimeout(() => process.exit(code), 3_000).unref();
  });
}
