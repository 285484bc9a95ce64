import { join } from "node:path";
import { startEmulator, startFakeSlack } from "@retention-sync/emulator";
import { alertsInMessage } from "./alerts-scenario.js";
import { type DaemonCli, ensureBuiltCli, startDaemonCli } from "./daemon-cli.js";
import { readCpuMs, readRss, stateFileBytes } from "./proc-stats.js";
import { emulatorControl, standardShape, writeHrisCsv } from "./roster-fixture.js";

export interface RssSample {
  /** Seconds since the first poll pass ended. */
  readonly atS: number;
  readonly rssMb: number;
  readonly cpuMs: number;
  readonly passes: number;
}

export interface DaemonRssRun {
  readonly rows: number;
  readonly pollIntervalS: number;
  readonly durationS: number;
  readonly sampleEveryS: number;
  readonly warmupS: number;
  readonly changesPerPass: number;
  readonly samples: RssSample[];
  readonly firstMb: number;
  readonly lastMb: number;
  readonly maxMb: number;
  /** VmHWM at the end: the peak, start-up and the first HRIS read included. */
  readonly peakMb: number;
  /** Largest over smallest sample from the warm-up on, minus one (0.1 = 10 %). */
  readonly spreadAfterWarmup: number;
  readonly flat: boolean;
  readonly passes: number;
  readonly changesRaised: number;
  readonly alertsInSlack: number;
  readonly stateBytes: { db: number; wal: number };
  readonly exitCode: number | null;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `retention-sync run` (the built CLI) with a `rows`-row HRIS roster file and alerts polled every
 * `pollIntervalS` against the emulator (which knows everyone in the file, tracked), a few changes
 * raised before every pass so each pass enriches alerts from the HRIS rows and posts them. The
 * daemon's VmRSS is read from /proc every `sampleEveryS` seconds.
 */
export async function runDaemonRss(input: {
  dir: string;
  rows: number;
  durationS: number;
  sampleEveryS: number;
  warmupS: number;
  pollIntervalS: number;
  changesPerPass: number;
  log: (line: string) => void;
}): Promise<DaemonRssRun> {
  await ensureBuiltCli(input.log);
  const emu = await startEmulator({ port: 0, seed: "empty", rateLimitPerMinute: 1_000_000, importDelayMs: 0 });
  const slack = await startFakeSlack();
  let daemon: DaemonCli | undefined;
  try {
    const shape = standardShape(input.rows);
    const hris = join(input.dir, `rss-hris-${input.rows}.csv`);
    const fileRows = await writeHrisCsv(hris, shape);
    // Everyone in the file except the joiners is on the service, tracked: changes find their HRIS row.
    await emulatorControl(emu, "POST", "employees", { count: shape.size, slugPrefix: "p", tracked: true });
    const stateFile = join(input.dir, "rss.sqlite");
    daemon = await startDaemonCli({
      dir: input.dir,
      name: "rss",
      config: {
        api: { url: emu.baseUrl },
        slack: { apiUrl: slack.url, channel: "#hr-alerts" },
        state: { path: stateFile },
        alerts: { pollInterval: input.pollIntervalS },
        roster: { enabled: true, file: hris },
        daemon: { host: "127.0.0.1", port: 0 },
        log: { level: "info" },
      },
      env: { RETENTION_API_KEY: emu.writeKey, SLACK_BOT_TOKEN: slack.token },
    });
    await daemon.waitForLine("poll pass done", 120_000);
    input.log(`daemon RSS: ${fileRows} HRIS rows, polling every ${input.pollIntervalS} s, ${input.durationS} s`);
    const pid = daemon.pid;
    const samples: RssSample[] = [];
    const start = Date.now();
    const take = () => {
      const rss = readRss(pid);
      samples.push({
        atS: Math.round((Date.now() - start) / 1000),
        rssMb: (rss?.rssKb ?? 0) / 1024,
        cpuMs: readCpuMs(pid) ?? 0,
        passes: daemon?.lines("poll pass done").length ?? 0,
      });
      const last = samples.at(-1);
      if (last) input.log(`daemon RSS at ${last.atS} s: ${last.rssMb.toFixed(1)} MB, ${last.passes} passes`);
    };
    take();
    let nextSample = start + input.sampleEveryS * 1000;
    let raisedForPass = -1;
    let raised = 0;
    const end = start + input.durationS * 1000;
    while (Date.now() < end) {
      // A few changes for each coming pass: raised once the previous pass is done.
      const passes = daemon.lines("poll pass done").length;
      if (passes > raisedForPass) {
        const body = (await emulatorControl(emu, "POST", "signals", { count: input.changesPerPass })) as {
          changes: unknown[];
        };
        raised += body.changes.length;
        raisedForPass = passes;
      }
      if (Date.now() >= nextSample) {
        take();
        nextSample += input.sampleEveryS * 1000;
      }
      await sleep(Math.max(10, Math.min(Date.now() + 1_000, nextSample, end) - Date.now()));
    }
    if ((samples.at(-1)?.atS ?? 0) < input.durationS) take();
    const peakMb = (readRss(pid)?.peakKb ?? 0) / 1024;
    const passes = daemon.lines("poll pass done").length;
    const exitCode = await daemon.stop();
    daemon = undefined;
    const after = samples.filter((s) => s.atS >= input.warmupS).map((s) => s.rssMb);
    const spread = after.length > 0 ? Math.max(...after) / Math.min(...after) - 1 : 0;
    const mb = samples.map((s) => s.rssMb);
    const posted = slack.calls.filter((c) => c.method === "chat.postMessage" && c.status === 200);
    return {
      rows: fileRows,
      pollIntervalS: input.pollIntervalS,
      durationS: input.durationS,
      sampleEveryS: input.sampleEveryS,
      warmupS: input.warmupS,
      changesPerPass: input.changesPerPass,
      samples,
      firstMb: mb[0] ?? 0,
      lastMb: mb.at(-1) ?? 0,
      maxMb: Math.max(...mb),
      peakMb,
      spreadAfterWarmup: spread,
      flat: spread <= 0.1,
      passes,
      changesRaised: raised,
      alertsInSlack: posted.reduce((sum, c) => sum + alertsInMessage(c).alerts, 0),
      stateBytes: stateFileBytes(stateFile),
      exitCode,
    };
  } finally {
    await daemon?.stop();
    await slack.close();
    await emu.close();
  }
}
