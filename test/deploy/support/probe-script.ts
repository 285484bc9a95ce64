/**
 * Runs a health-check one-liner (`node -e "<script>"`, as the Dockerfile and the Compose files
 * carry it) in this process with a recording `fetch` and `process`: which URL it asks and which
 * exit code it gives, without a container, a server or a child process.
 */
export interface ProbeRun {
  readonly url: string;
  readonly exitCode: number;
}

type ProbeAnswer = "ok" | "not-ok" | "unreachable";

/** The script after `-e` in an exec-form command (`["node", "-e", "..."]` or `[CMD, node, -e, ...]`). */
export function scriptOf(command: readonly unknown[]): string {
  const at = command.indexOf("-e");
  const script = command[at + 1];
  if (at < 0 || typeof script !== "string") throw new Error(`no "node -e <script>" in ${JSON.stringify(command)}`);
  return script;
}

export async function runProbe(
  script: string,
  env: Record<string, string | undefined>,
  answer: ProbeAnswer,
): Promise<ProbeRun> {
  let url = "";
  let exitCode: number | undefined;
  const fakeFetch = (target: string) => {
    url = target;
    return answer === "unreachable"
      ? Promise.reject(new Error("ECONNREFUSED"))
      : Promise.resolve({ ok: answer === "ok" });
  };
  const fakeProcess = {
    env,
    exit: (code: number) => {
      exitCode = code;
    },
  };
  // The script is the repository's own health check, run with the fakes in place of the globals.
  const probe = new Function("fetch", "process", script) as (f: typeof fakeFetch, p: typeof fakeProcess) => void;
  probe(fakeFetch, fakeProcess);
  // Settle the script's promise chain (no timers involved).
  for (let turn = 0; turn < 10 && exitCode === undefined; turn++) await Promise.resolve();
  if (exitCode === undefined) throw new Error(`the probe script never exited: ${script}`);
  return { url, exitCode };
}
