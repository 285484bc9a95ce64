import { loadavg } from "node:os";
import { join } from "node:path";
import { alertmanagerBinary } from "./alertmanager-binary.js";
import {
  alertmanagerContender,
  type Contender,
  retentionSyncContender,
  startSideBySideWorld,
} from "./alertmanager-contenders.js";
import {
  type BurstRun,
  burst,
  type KillRun,
  killMidBurst,
  type SingleRun,
  singleEvents,
  startReady,
} from "./alertmanager-phases.js";
import { ensureBuiltCli } from "./daemon-cli.js";
import { median } from "./median.js";
import { type IdleSample, sampleIdle, spawnService } from "./service-process.js";
import { measureStackFloor, STACK_LIBRARIES, type StackFloor } from "./stack-floor.js";

export interface AlertmanagerOptions {
  readonly dir: string;
  /** Seconds of idle sampling per product. */
  readonly idleSeconds: number;
  /** Spawn-to-ready repetitions per product, alternating. */
  readonly starts: number;
  readonly singles: number;
  /** Milliseconds between the starts of two single events. */
  readonly singleSpacingMs: number;
  readonly burst: number;
  readonly concurrency: number;
  /** The kill burst's size, and after how many accepted events the SIGKILL falls. */
  readonly killBurst: number;
  readonly killAfter: number;
  readonly log: (line: string) => void;
}

export interface ContenderRun {
  readonly name: string;
  readonly version: string;
  readonly startMs: readonly number[];
  readonly startMedianMs: number;
  readonly idle: IdleSample;
  readonly single: SingleRun;
  readonly burst: BurstRun;
  readonly kill: KillRun;
  readonly load: { readonly before: number; readonly after: number };
}

export type AlertmanagerRun =
  | { readonly skipped: string }
  | {
      readonly node: string;
      /** A do-nothing `node` process's RSS on this machine (the floor under any Node daemon). */
      readonly bareNodeRssMb: number;
      /** The stack's libraries imported in a bare node, nothing run: what no daemon on the stack goes under. */
      readonly stackFloor: StackFloor;
      readonly options: Omit<AlertmanagerOptions, "dir" | "log">;
      readonly alertmanager: ContenderRun;
      readonly retentionSync: ContenderRun;
    };

async function bareNodeRss(dir: string, seconds: number): Promise<number> {
  const service = spawnService({
    command: process.execPath,
    args: ["-e", "setInterval(() => {}, 1 << 30)"],
    env: { PATH: process.env.PATH ?? "" },
    cwd: dir,
    logFile: join(dir, "bare-node.log"),
  });
  try {
    return (await sampleIdle(service.pid, seconds)).rssMedianMb;
  } finally {
    await service.stop();
  }
}

/** Idle, single events, burst on one process; then the kill run on fresh ones. */
async function measure(
  c: Contender,
  version: string,
  startMs: number[],
  slack: Parameters<typeof burst>[0],
  o: AlertmanagerOptions,
): Promise<ContenderRun> {
  const before = loadavg()[0] ?? 0;
  const { service } = await startReady(c);
  let idle: IdleSample;
  let single: SingleRun;
  let burstRun: BurstRun;
  try {
    o.log(`${c.name}: idle ${o.idleSeconds} s`);
    idle = await sampleIdle(service.pid, o.idleSeconds);
    o.log(`${c.name}: ${o.singles} single events, one at a time`);
    single = await singleEvents(slack, c, { from: 0, count: o.singles }, o.singleSpacingMs);
    o.log(`${c.name}: a burst of ${o.burst}, ${o.concurrency} at a time`);
    burstRun = await burst(slack, c, service, { from: o.singles, count: o.burst }, o.concurrency);
  } finally {
    await service.stop();
  }
  o.log(`${c.name}: a burst of ${o.killBurst}, SIGKILL after ${o.killAfter} accepted, restart`);
  const kill = await killMidBurst(
    slack,
    c,
    { from: o.singles + o.burst, count: o.killBurst },
    o.concurrency,
    o.killAfter,
    10_000,
  );
  return {
    name: c.name,
    version,
    startMs,
    startMedianMs: median(startMs),
    idle,
    single,
    burst: burstRun,
    kill,
    load: { before, after: loadavg()[0] ?? 0 },
  };
}

/**
 * Prometheus Alertmanager and `retention-sync run` side by side, one after the other on the same
 * machine, both posting to one fake Slack: start to ready, idle cost, one event to its post, a
 * burst, and a SIGKILL in a burst.
 */
export async function runAlertmanager(o: AlertmanagerOptions): Promise<AlertmanagerRun> {
  const binary = await alertmanagerBinary(o.log);
  if (typeof binary === "string") {
    o.log(`alertmanager: section skipped: ${binary}`);
    return { skipped: binary };
  }
  o.log(`alertmanager: ${binary.path} ${binary.version}; retention-sync on Node ${process.version}`);
  await ensureBuiltCli(o.log);
  const events = o.singles + o.burst + o.killBurst;
  o.log(`alertmanager: capturing ${events} signed events from the emulator`);
  const world = await startSideBySideWorld(events);
  const am = await alertmanagerContender({ dir: o.dir, world, binary: binary.path });
  const ours = await retentionSyncContender({ dir: o.dir, world });
  try {
    const bareNodeRssMb = await bareNodeRss(o.dir, 5);
    o.log(`alertmanager: the stack's libraries alone (${STACK_LIBRARIES.join(", ")}), ${o.starts} starts`);
    const stackFloor = await measureStackFloor(o.dir, o.starts, 10);
    const starts = new Map<Contender, number[]>([
      [am, []],
      [ours, []],
    ]);
    o.log(`alertmanager: spawn to ready, ${o.starts} times each, alternating`);
    for (let r = 0; r < o.starts; r += 1) {
      for (const c of [am, ours]) {
        const { service, readyMs } = await startReady(c);
        starts.get(c)?.push(readyMs);
        await service.stop();
      }
    }
    const alertmanager = await measure(am, binary.version, starts.get(am) ?? [], world.slack, o);
    const retentionSync = await measure(ours, process.version, starts.get(ours) ?? [], world.slack, o);
    const { dir: _dir, log: _log, ...options } = o;
    return { node: process.version, bareNodeRssMb, stackFloor, options, alertmanager, retentionSync };
  } finally {
    await am.close();
    await ours.close();
    await world.close();
  }
}
