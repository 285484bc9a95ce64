import type { FakeSlack, FakeSlackCall } from "@retention-sync/emulator";
import type { Contender } from "./alertmanager-contenders.js";
import { percentile } from "./alerts-scenario.js";
import { readCpuMs, readRss } from "./proc-stats.js";
import { msToReady, type ServiceProcess } from "./service-process.js";
import { compare } from "./webhook-paced.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A range of the run's events: [from, from + count). */
export interface EventRange {
  readonly from: number;
  readonly count: number;
}

/** Spawns the contender and waits for its readiness endpoint: the process and its spawn-to-ready time. */
export async function startReady(c: Contender): Promise<{ service: ServiceProcess; readyMs: number }> {
  const service = c.spawn();
  try {
    return { service, readyMs: await msToReady(service, c.readyUrl) };
  } catch (error) {
    await service.kill();
    throw error;
  }
}

function postsSince(slack: FakeSlack, c: Contender, from: number): FakeSlackCall[] {
  return slack.calls.slice(from).filter((call) => c.isPost(call));
}

export interface SingleRun {
  readonly sent: number;
  readonly delivered: number;
  readonly ms: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number };
}

/**
 * One event at a time, each waited for in Slack: the time from sending it to the fake Slack
 * receiving its post (both clocks are this machine's, ms resolution). Sends start at least
 * `spacingMs` apart, so no per-channel pace holds a post back.
 */
export async function singleEvents(
  slack: FakeSlack,
  c: Contender,
  range: EventRange,
  spacingMs: number,
): Promise<SingleRun> {
  const latencies: number[] = [];
  for (let i = range.from; i < range.from + range.count; i += 1) {
    const from = slack.calls.length;
    const sentAt = Date.now();
    const status = await c.send(i);
    const deadline = sentAt + 10_000;
    if (status >= 200 && status < 300) {
      for (;;) {
        const post = postsSince(slack, c, from)[0];
        if (post) {
          latencies.push(post.at - sentAt);
          break;
        }
        if (Date.now() > deadline) break;
        await sleep(1);
      }
    }
    const wait = sentAt + spacingMs - Date.now();
    if (wait > 0) await sleep(wait);
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    sent: range.count,
    delivered: latencies.length,
    ms: {
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? 0,
    },
  };
}

interface Sent {
  readonly accepted: number[];
  readonly ingestMs: number[];
  readonly statuses: Record<string, number>;
}

/** Sends the range `concurrency` at a time; `afterAccepted` runs once when that many were answered 2xx. */
async function sendAll(
  c: Contender,
  range: EventRange,
  concurrency: number,
  afterAccepted?: { count: number; run: () => void },
): Promise<Sent> {
  const accepted: number[] = [];
  const ingestMs: number[] = [];
  const statuses: Record<string, number> = {};
  let next = range.from;
  const end = range.from + range.count;
  const worker = async () => {
    for (let i = next++; i < end; i = next++) {
      const started = performance.now();
      const status = await c.send(i);
      ingestMs.push(performance.now() - started);
      statuses[String(status)] = (statuses[String(status)] ?? 0) + 1;
      if (status >= 200 && status < 300) {
        accepted.push(i);
        if (afterAccepted && accepted.length === afterAccepted.count) afterAccepted.run();
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { accepted, ingestMs, statuses };
}

/**
 * Waits until every accepted event's alert is in Slack, or nothing new arrived for `quietMs`:
 * the posts since `from` and the missing and doubled alerts among them.
 */
async function drain(
  slack: FakeSlack,
  c: Contender,
  from: number,
  accepted: readonly number[],
  quietMs: number,
): Promise<{ posts: FakeSlackCall[]; missing: number; duplicated: number }> {
  const expected = accepted.map((i) => c.keyOf(i));
  let seen = -1;
  let changedAt = Date.now();
  for (;;) {
    const posts = postsSince(slack, c, from);
    const result = compare(
      expected,
      posts.flatMap((p) => c.keysIn(p)),
    );
    if (posts.length !== seen) {
      seen = posts.length;
      changedAt = Date.now();
    }
    if (result.missing === 0 || Date.now() - changedAt > quietMs) return { posts, ...result };
    await sleep(50);
  }
}

export interface BurstRun {
  readonly events: number;
  readonly concurrency: number;
  readonly statuses: Readonly<Record<string, number>>;
  /** Time from sending each request to its answer. */
  readonly ingestMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /** From the first request sent to the last alert in Slack. */
  readonly drainMs: number;
  /** The process's CPU over the same span, per accepted alert. */
  readonly cpuMsPerAlert: number;
  /** VmHWM after the burst: the process's peak RSS so far. */
  readonly peakRssMb: number;
  readonly posts: number;
  readonly missing: number;
  readonly duplicated: number;
}

/** A burst sent `concurrency` at a time to a running contender, until every alert is in Slack. */
export async function burst(
  slack: FakeSlack,
  c: Contender,
  service: ServiceProcess,
  range: EventRange,
  concurrency: number,
): Promise<BurstRun> {
  const from = slack.calls.length;
  const cpu0 = readCpuMs(service.pid) ?? 0;
  const t0 = Date.now();
  const sent = await sendAll(c, range, concurrency);
  const drained = await drain(slack, c, from, sent.accepted, 30_000);
  const cpuMs = (readCpuMs(service.pid) ?? 0) - cpu0;
  const lastPost = drained.posts.reduce((max, p) => Math.max(max, p.at), t0);
  const sorted = [...sent.ingestMs].sort((a, b) => a - b);
  return {
    events: range.count,
    concurrency,
    statuses: sent.statuses,
    ingestMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 },
    drainMs: lastPost - t0,
    cpuMsPerAlert: cpuMs / Math.max(1, sent.accepted.length),
    peakRssMb: (readRss(service.pid)?.peakKb ?? 0) / 1024,
    posts: drained.posts.length,
    missing: drained.missing,
    duplicated: drained.duplicated,
  };
}

export interface KillRun {
  readonly sent: number;
  /** Answered 2xx before the SIGKILL took the process down. */
  readonly accepted: number;
  readonly killedAfterAccepted: number;
  readonly restartReadyMs: number;
  /** Accepted alerts never posted, after the restart and its drain; alerts posted twice. */
  readonly lost: number;
  readonly duplicated: number;
  readonly posts: number;
}

/**
 * A burst into a fresh process, SIGKILLed once `killAfter` events were accepted; the requests in
 * flight and those after fail. Then a restart on the same state or storage, and a drain (until
 * every accepted alert is in Slack or none arrived for `quietMs`).
 */
export async function killMidBurst(
  slack: FakeSlack,
  c: Contender,
  range: EventRange,
  concurrency: number,
  killAfter: number,
  quietMs: number,
): Promise<KillRun> {
  const { service } = await startReady(c);
  const from = slack.calls.length;
  let killed: Promise<void> | undefined;
  const sent = await sendAll(c, range, concurrency, {
    count: killAfter,
    run: () => {
      killed = service.kill();
    },
  });
  await (killed ?? service.kill());
  const restarted = await startReady(c);
  try {
    const drained = await drain(slack, c, from, sent.accepted, quietMs);
    return {
      sent: range.count,
      accepted: sent.accepted.length,
      killedAfterAccepted: killAfter,
      restartReadyMs: restarted.readyMs,
      lost: drained.missing,
      duplicated: drained.duplicated,
      posts: drained.posts.length,
    };
  } finally {
    await restarted.service.stop();
  }
}
