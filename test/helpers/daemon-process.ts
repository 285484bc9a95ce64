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

/** Starts `node <cli> run` with exactly `env` (plus PATH); resolves once it logged its start-up line. */
export async function spawnDaemon(cli: string, env: Record<string, string>, startMs = 20_000): Promise<DaemonProcess> {
  const child = spawn(process.execPath, [cli, "run"], {
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
