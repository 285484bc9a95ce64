import { join } from "node:path";
import { REPO_ROOT } from "./daemon-cli.js";
import { median } from "./median.js";
import { freePort, msToReady, sampleIdle, spawnService } from "./service-process.js";

/**
 * The libraries `retention-sync run` loads with the section's configuration (SQLite, the webhook
 * receiver, Slack, no roster): the specified stack, before any of the daemon's own code.
 */
export const STACK_LIBRARIES = [
  "undici",
  "zod",
  "yaml",
  "prom-client",
  "@slack/web-api",
  "pino",
  "sqlite3",
  "node-cron",
] as const;

export interface StackFloor {
  /** Median VmRSS over the idle window, MB. */
  readonly rssMb: number;
  /** Spawn to answering 200 once every library is imported: median of the starts, ms. */
  readonly startMs: number;
}

/** A process that imports the stack, answers 200 on a loopback port, and does nothing else. */
function floorScript(port: number): string {
  const imports = STACK_LIBRARIES.map((name) => `import(${JSON.stringify(name)})`).join(", ");
  return [
    `await Promise.all([${imports}]);`,
    `const { createServer } = await import("node:http");`,
    `createServer((_req, res) => res.end("ok")).listen(${port}, "127.0.0.1");`,
  ].join("\n");
}

/**
 * What no daemon on this stack can go under on this machine: the stack's libraries imported in a
 * bare `node` (the same binary as the daemon), idle RSS and spawn to ready. The targets are read
 * against it: a ratio to Alertmanager's figure that the floor already misses cannot be met without
 * leaving the stack.
 */
export async function measureStackFloor(dir: string, starts: number, idleSeconds: number): Promise<StackFloor> {
  const startMs: number[] = [];
  let rssMb = 0;
  for (let i = 0; i < starts; i += 1) {
    const port = await freePort();
    const service = spawnService({
      command: process.execPath,
      args: ["--input-type=module", "-e", floorScript(port)],
      env: { PATH: process.env.PATH ?? "" },
      cwd: REPO_ROOT,
      logFile: join(dir, "stack-floor.log"),
    });
    try {
      startMs.push(await msToReady(service, `http://127.0.0.1:${port}/`));
      if (i === starts - 1) rssMb = (await sampleIdle(service.pid, idleSeconds)).rssMedianMb;
    } finally {
      await service.stop();
    }
  }
  return { rssMb, startMs: median(startMs) };
}
