/**
 * `retention-sync run` as a real child process (the CLI bundled by `bundleEntry`), for tests
 * that stop it with signals: its output is kept (and fed to the suite's log audit), its start-up
 * and exit can be awaited.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { auditChildOutput } from "./log-audit.js";

export interface DaemonProcess {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far (JSON log lines). */
  output(): string;
  /** Resolves with the exit code and signal once the process has ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `node <cli> run` with exactly `env` (plus PATH), in `cwd` when given; resolves once it
 * logged its start-up line.
 */
export async function spawnDaemon(
  cli: string,
  env: Record<string, string>,
  startMs = 20_000,
  cwd?: string,
): Promise<DaemonProcess> {
  const child = spawn(process.execPath, [cli, "run"], {
    ...(cwd === undefined ? {} : { cwd }),
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  auditChildOutput("retention-sync run (child process)", child);
  let out = "";
  const keep = (chunk: Buffer) => {
    out += chunk.toString("utf8");
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const handle: DaemonProcess = { child, output: () => out, exited };
  const deadline = Date.now() + startMs;
  while (!out.includes('"msg":"retention-sync daemon started"')) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`run did not start:\n${out}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return handle;
}

/** The JSON log lines of a daemon's output whose `msg` is `msg`. */
export function logLines<T = Record<string, unknown>>(output: string, msg: string): T[] {
  const needle = `"msg":${JSON.stringify(msg)}`;
  return output
    .split("\n")
    .filter((line) => line.includes(needle))
    .map((line) => JSON.parse(line) as T);
}

/** Waits until the daemon has logged a line whose `msg` is `msg` and returns it; fails if it exits first or after `ms`. */
export async function waitForLog<T = Record<string, unknown>>(
  daemon: DaemonProcess,
  msg: string,
  ms = 20_000,
): Promise<T> {
  const { child } = daemon;
  // Output can still arrive after the exit event: the process is gone once its pipes are closed too.
  const gone = () =>
    (child.exitCode !== null || child.signalCode !== null) &&
    (child.stdout?.closed ?? true) &&
    (child.stderr?.closed ?? true);
  const deadline = Date.now() + ms;
  for (;;) {
    const wasGone = gone();
    const [line] = logLines<T>(daemon.output(), msg);
    if (line !== undefined) return line;
    if (wasGone || Date.now() > deadline) {
      throw new Error(`no ${JSON.stringify(msg)} line from the daemon:\n${daemon.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
