import { startEmulator, startFakeSlack } from "@retention-sync/emulator";
import { RetentionClient } from "../src/api/client.js";
import { alertsInMessage, seedBothLenses } from "./alerts-scenario.js";
import { runChild } from "./child-process.js";
import type { ServerCost, SpanCost } from "./proc-stats.js";
import type { PostgresAfter, StateEngine, StateTarget } from "./state-engine.js";

export interface PollPathChildInput {
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly controlUrl: string;
  readonly slackUrl: string;
  readonly slackToken: string;
  readonly organizationId: number;
  readonly competitorId: number;
  /** What `openStateStore` opens: the SQLite file, or the section's Postgres database URL. */
  readonly stateLocation: string;
  /** SQLite: the file whose size is followed. */
  readonly stateFile?: string | undefined;
  /** Postgres: the postmaster, whose process tree is measured around each pass too. */
  readonly serverPid?: number | undefined;
  /** Alerts per digested pass (half per lens) and how many such passes are measured. */
  readonly burst: number;
  readonly burstPasses: number;
  /** Alerts per single-message pass (half per lens, at most the digest threshold per channel). */
  readonly single: number;
  readonly singlePasses: number;
  /** Single-message passes run before the measured ones, reported apart (the JIT compiling the code they run). */
  readonly singleWarmups: number;
  /** The measurement before 2026-11-24 12:00: a forced full GC before every pass (see runPollPath). */
  readonly forcedGc: boolean;
  readonly messagesPerSecond: number;
}

export interface PollPathPass extends SpanCost {
  readonly kind: "digest" | "single";
  /** Warm-up passes (the first digested one, the first `singleWarmups` single ones) are reported, not counted. */
  readonly measured: boolean;
  readonly alerts: number;
  /** Changes the pass read from the API (every lens): the cursor overlap re-reads earlier passes' changes. */
  readonly changesRead: number;
  readonly messages: number;
  readonly digestChannels: number;
  /** The first half: read the changes, hand them over (dedupe, enrich, plan, commit). The rest is posting. */
  readonly handOverCpuMs: number;
  readonly handOverFileWriteBytes: number | undefined;
  /** Postgres: the server's share of the hand-over. */
  readonly handOverServer?: ServerCost;
}

export interface PollPathSummary {
  readonly kind: "digest" | "single";
  readonly passes: number;
  readonly alertsPerPass: number;
  readonly alerts: number;
  readonly messages: number;
  /** Changes read from the API per pass (alerts plus the changes the overlap re-read). */
  readonly changesReadPerPass: number;
  /** Totals over the measured passes divided by their alerts. */
  readonly cpuMsPerAlert: number;
  /** Of which reading and handing over (the rest is posting and its bookkeeping). */
  readonly handOverCpuMsPerAlert: number;
  readonly handOverFileWriteBytesPerAlert: number | undefined;
  readonly fileWriteBytesPerAlert: number | undefined;
  readonly blockWriteBytesPerAlert: number | undefined;
  readonly fileGrowthBytesPerAlert: number;
  /**
   * Postgres: the server's processes (postmaster and children): CPU, file writes (`wchar` less the
   * answers the daemon read from it) and the kernel's `write_bytes` (overstated: proc-stats.ts).
   */
  readonly serverCpuMsPerAlert?: number;
  readonly serverFileWriteBytesPerAlert?: number;
  readonly serverWriteBytesPerAlert?: number;
  readonly handOverServerCpuMsPerAlert?: number;
  /** What the 10 KB target is judged on: the daemon's file writes, plus the server's writes on Postgres. */
  readonly writtenBytesPerAlert: number | undefined;
  /** The cheapest and dearest measured pass, CPU per alert. */
  readonly cpuMsPerAlertRange: readonly [number, number];
  readonly wallMsPerPass: number;
}

export interface PollPathRun {
  readonly engine: StateEngine;
  readonly summaries: PollPathSummary[];
  /** The same figures over the warm-up passes: what a freshly started daemon pays, not judged. */
  readonly warmups: PollPathSummary[];
  readonly singleWarmups: number;
  readonly forcedGc: boolean;
  readonly passes: PollPathPass[];
  readonly alertsHandedOver: number;
  readonly alertsInSlack: number;
  readonly stateFileBytes: { db: number; wal: number };
  /** Postgres: the database's size after the passes, and what a CHECKPOINT then wrote. */
  readonly postgres?: PostgresAfter;
  readonly messagesPerSecond: number;
  /** CPU of one chat.postMessage through the daemon's Slack client alone (no store), back to back. */
  readonly slackPostCpuMs: number;
  readonly slackPosts: number;
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

function summarize(
  kind: PollPathPass["kind"],
  all: readonly PollPathPass[],
  measured = true,
): PollPathSummary | undefined {
  const passes = all.filter((p) => p.kind === kind && p.measured === measured);
  const alerts = sum(passes.map((p) => p.alerts));
  if (passes.length === 0 || alerts === 0) return undefined;
  const per = (values: ReadonlyArray<number | undefined>) =>
    values.some((v) => v === undefined) ? undefined : sum(values as number[]) / alerts;
  const perPass = passes.map((p) => p.cpuMs / Math.max(1, p.alerts));
  const onServer = passes.every((p) => p.server !== undefined);
  const fileWriteBytesPerAlert = per(passes.map((p) => p.fileWriteBytes));
  const serverFileWriteBytesPerAlert = onServer
    ? sum(passes.map((p) => p.server?.fileWriteBytes ?? 0)) / alerts
    : undefined;
  return {
    kind,
    passes: passes.length,
    alertsPerPass: alerts / passes.length,
    alerts,
    messages: sum(passes.map((p) => p.messages)),
    changesReadPerPass: sum(passes.map((p) => p.changesRead)) / passes.length,
    cpuMsPerAlert: sum(passes.map((p) => p.cpuMs)) / alerts,
    handOverCpuMsPerAlert: sum(passes.map((p) => p.handOverCpuMs)) / alerts,
    handOverFileWriteBytesPerAlert: per(passes.map((p) => p.handOverFileWriteBytes)),
    fileWriteBytesPerAlert,
    blockWriteBytesPerAlert: per(passes.map((p) => p.blockWriteBytes)),
    fileGrowthBytesPerAlert: sum(passes.map((p) => p.fileGrowthBytes)) / alerts,
    ...(onServer && serverFileWriteBytesPerAlert !== undefined
      ? {
          serverCpuMsPerAlert: sum(passes.map((p) => p.server?.cpuMs ?? 0)) / alerts,
          serverFileWriteBytesPerAlert,
          serverWriteBytesPerAlert: sum(passes.map((p) => p.server?.writeBytes ?? 0)) / alerts,
          handOverServerCpuMsPerAlert: sum(passes.map((p) => p.handOverServer?.cpuMs ?? 0)) / alerts,
        }
      : {}),
    writtenBytesPerAlert:
      fileWriteBytesPerAlert === undefined ? undefined : fileWriteBytesPerAlert + (serverFileWriteBytesPerAlert ?? 0),
    cpuMsPerAlertRange: [Math.min(...perPass), Math.max(...perPass)],
    wallMsPerPass: sum(passes.map((p) => p.wallMs)) / passes.length,
  };
}

/**
 * The poll path on the real store: the emulator and the fake Slack run here, the daemon's side (a
 * state file in `dir` or a Postgres database, the API and Slack clients,
 * `createAlertPipeline(...).poll`) in a child process, so the child's CPU and write counters are
 * the daemon's alone; on Postgres the server's processes are measured around the same spans.
 *
 * The garbage collector runs when the daemon's allocations call for it, as in production, and its
 * work is charged to the pass it falls in. `forcedGc` restores the earlier method (a full GC
 * before every pass): V8 then throws optimized code away every pass and compiles it again inside
 * the next one (BENCHMARKS.md 5.1), a cost no running daemon has.
 */
export async function runPollPath(input: {
  dir: string;
  state: StateTarget;
  /** Postgres: the database's size and a closing CHECKPOINT, measured once the child is done. */
  afterPostgres?: () => Promise<PostgresAfter>;
  burst: number;
  burstPasses: number;
  single: number;
  singlePasses: number;
  singleWarmups: number;
  forcedGc: boolean;
}): Promise<PollPathRun> {
  const emu = await startEmulator({ port: 0, seed: "empty", rateLimitPerMinute: 1_000_000, importDelayMs: 0 });
  const slack = await startFakeSlack();
  const client = new RetentionClient({ baseUrl: emu.baseUrl, apiKey: emu.writeKey, requestsPerMinute: 1_000_000 });
  // The fastest pace the config allows, so single-message passes do not spend seconds waiting (no CPU).
  const messagesPerSecond = 10;
  try {
    const competitor = await seedBothLenses(emu, client, 2_000);
    const child: PollPathChildInput = {
      apiUrl: emu.baseUrl,
      apiKey: emu.writeKey,
      controlUrl: emu.url,
      slackUrl: slack.url,
      slackToken: slack.token,
      organizationId: emu.organizationId,
      competitorId: competitor.id,
      ...(input.state.engine === "sqlite"
        ? { stateLocation: input.state.file, stateFile: input.state.file }
        : { stateLocation: input.state.url, serverPid: input.state.serverPid }),
      burst: input.burst,
      burstPasses: input.burstPasses,
      single: input.single,
      singlePasses: input.singlePasses,
      singleWarmups: input.singleWarmups,
      forcedGc: input.forcedGc,
      messagesPerSecond,
    };
    const result = await runChild<{
      passes: PollPathPass[];
      slackPostCpuMs: number;
      slackPosts: number;
      stateFileBytes: { db: number; wal: number };
    }>("poll-path-child.js", child, ["--expose-gc"]);
    // The posts measured alone carry no change of the passes: left out of the count.
    const posted = slack.calls
      .filter((c) => c.method === "chat.postMessage" && c.status === 200)
      .slice(0, -(result.slackPosts + 20));
    const postgres = input.afterPostgres ? await input.afterPostgres() : undefined;
    return {
      engine: input.state.engine,
      ...(postgres ? { postgres } : {}),
      slackPostCpuMs: result.slackPostCpuMs,
      slackPosts: result.slackPosts,
      summaries: (["digest", "single"] as const).flatMap((kind) => summarize(kind, result.passes) ?? []),
      warmups: (["single"] as const).flatMap((kind) => summarize(kind, result.passes, false) ?? []),
      singleWarmups: input.singleWarmups,
      forcedGc: input.forcedGc,
      passes: result.passes,
      alertsHandedOver: sum(result.passes.map((p) => p.alerts)),
      alertsInSlack: sum(posted.map((c) => alertsInMessage(c).alerts)),
      stateFileBytes: result.stateFileBytes,
      messagesPerSecond,
    };
  } finally {
    await client.close();
    await slack.close();
    await emu.close();
  }
}
