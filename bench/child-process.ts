import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Runs a measurement in a child process of its own (`bench/dist/bench/<script>`), so its CPU and
 * write counters hold only the work measured: the emulator and the fake Slack stay in this process.
 * The input goes in as JSON on argv, the result comes back as JSON on stdout; the child's stderr
 * (progress lines) is passed through.
 */
export function runChild<T>(script: string, input: unknown, nodeArgs: readonly string[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    // BENCH_CHILD_NODE_ARGS adds node flags to every measurement child (e.g. --cpu-prof to see where time goes).
    const extra = (process.env.BENCH_CHILD_NODE_ARGS ?? "").split(" ").filter((a) => a.length > 0);
    const child = spawn(process.execPath, [...nodeArgs, ...extra, join(here, script), JSON.stringify(input)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.once("error", reject);
    child.once("close", (code, signal) => {
      const out = Buffer.concat(chunks).toString("utf8");
      if (code !== 0) {
        reject(new Error(`${script} exited with ${code ?? signal}: ${out.slice(-2000)}`));
        return;
      }
      try {
        resolve(JSON.parse(out) as T);
      } catch (error) {
        reject(new Error(`${script} printed no JSON result: ${String(error)}: ${out.slice(-2000)}`));
      }
    });
  });
}

/** The body of a child script: reads its input, runs `work`, prints the result; exits 1 on error. */
export function childMain<I, O>(work: (input: I) => Promise<O>): void {
  const input = JSON.parse(process.argv[2] ?? "{}") as I;
  work(input)
    .then((result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
    })
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    });
}

/** A progress line on stderr (never inside a measured span: it would count as written bytes). */
export function progress(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}
