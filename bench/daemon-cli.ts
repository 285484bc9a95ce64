import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, openSync, readdirSync, readFileSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);
/** The repository root, from bench/dist/bench/. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const CLI = join(REPO_ROOT, "dist", "cli.js");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * The built CLI (`dist/cli.js`), built first (`npm run build`) when it is missing or older than a
 * file under src/: the daemon benches run what `npm start` runs, never a stale build.
 */
export async function ensureBuiltCli(log: (line: string) => void): Promise<string> {
  let built = 0;
  try {
    built = statSync(CLI).mtimeMs;
  } catch {
    built = 0;
  }
  if (built < newestMtime(join(REPO_ROOT, "src"))) {
    log("dist/cli.js missing or older than src/: npm run build");
    await execFileAsync("npm", ["run", "build"], { cwd: REPO_ROOT, maxBuffer: 16 << 20 });
  }
  return CLI;
}

export interface DaemonCli {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly logFile: string;
  /** The start-up line's fields (`ops`, `webhook`, `state`...). */
  readonly started: Record<string, unknown>;
  /** The JSON log lines so far whose `msg` is `msg`. */
  lines(msg: string): Array<Record<string, unknown>>;
  waitForLine(msg: string, ms: number, count?: number): Promise<Record<string, unknown>>;
  /** SIGTERM, then the exit code (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
}

/**
 * `node dist/cli.js run --config <file>` with its log (JSON lines on stdout/stderr) written to a
 * file, as a container's log driver would take it; resolves once it logged its start-up line.
 */
export async function startDaemonCli(input: {
  readonly dir: string;
  readonly name: string;
  readonly config: unknown;
  readonly env?: Record<string, string>;
  readonly startMs?: number;
}): Promise<DaemonCli> {
  const configFile = join(input.dir, `${input.name}.yaml`);
  // JSON is YAML: the config goes in as JSON text.
  await writeFile(configFile, JSON.stringify(input.config, null, 2));
  const logFile = join(input.dir, `${input.name}.log`);
  const fd = openSync(logFile, "w");
  const child = spawn(process.execPath, [CLI, "run", "--config", configFile], {
    env: { PATH: process.env.PATH ?? "", ...input.env },
    stdio: ["ignore", fd, fd],
    cwd: input.dir,
  });
  closeSync(fd);
  const lines = (msg: string) => {
    const needle = `"msg":${JSON.stringify(msg)}`;
    return readFileSync(logFile, "utf8")
      .split("\n")
      .filter((line) => line.includes(needle))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  };
  const waitForLine = async (msg: string, ms: number, count = 1) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = lines(msg);
      if (found.length >= count) return found[count - 1] ?? {};
      if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
        child.kill("SIGKILL");
        const tail = readFileSync(logFile, "utf8").split("\n").slice(-20).join("\n");
        throw new Error(`retention-sync run: no ${JSON.stringify(msg)} line (exit ${child.exitCode}):\n${tail}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const started = await waitForLine("retention-sync daemon started", input.startMs ?? 30_000);
  return {
    child,
    pid: child.pid ?? 0,
    logFile,
    started,
    lines,
    waitForLine,
    async stop(graceMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const [code] = (await exited) as [number | null];
      clearTimeout(timer);
      return code;
    },
  };
}
