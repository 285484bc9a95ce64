import { Outbox, ThreadIndex } from "../src/delivery/outbox.js";
import { openStateStore } from "../src/store/state-store.js";
import { childMain, progress } from "./child-process.js";
import { median } from "./median.js";
import { ClientSocketBytes, endSpan, type SpanCost, startSpan, stateFileBytes } from "./proc-stats.js";
import type { StoreOpsInput, StoreOpsRun } from "./store-ops.js";
import { singleDrafts } from "./synthetic-changes.js";

const RETENTION_MS = 30 * 86_400_000;

function per(cost: SpanCost, count: number) {
  return {
    count,
    cpuMs: cost.cpuMs / count,
    wallMs: cost.wallMs / count,
    fileWriteBytes: cost.fileWriteBytes === undefined ? undefined : cost.fileWriteBytes / count,
    blockWriteBytes: cost.blockWriteBytes === undefined ? undefined : cost.blockWriteBytes / count,
    ...(cost.server
      ? {
          serverCpuMs: cost.server.cpuMs / count,
          serverFileWriteBytes: cost.server.fileWriteBytes / count,
          serverWriteBytes: cost.server.writeBytes / count,
        }
      : {}),
  };
}

/**
 * The outbox's queue operations on a real state store (a SQLite file, or a database on the bench's
 * Postgres, whose server processes are measured around each operation too), alone in this
 * process: enqueue one message per call and a hand-over's batch in one transaction, the pending scan and count at `size`
 * waiting, ack (mark-sent) one per call, and the store bookkeeping of one posted message.
 */
childMain(async (input: StoreOpsInput): Promise<Omit<StoreOpsRun, "engine" | "postgres">> => {
  const target = {
    stateFile: input.stateFile,
    serverPid: input.serverPid,
    serverPort: input.serverPid === undefined ? undefined : Number(new URL(input.stateLocation).port),
  };
  // Client socket bytes (the Postgres connection) are not file writes.
  const sockets = new ClientSocketBytes();
  const store = await openStateStore(input.stateLocation);
  try {
    const outbox = new Outbox(store, RETENTION_MS);
    const threads = new ThreadIndex(store, RETENTION_MS);
    const drafts = await singleDrafts(input.size, 1);
    const draftBytes = drafts.reduce((sum, d) => sum + JSON.stringify(d).length, 0) / drafts.length;
    // Warm-up on other ids: compiles the code paths, then acked so they do not count as waiting.
    const warm = await singleDrafts(200, 10_000_000);
    for (const d of warm) await outbox.enqueue([d], Date.now());
    for (const e of await outbox.pending()) await outbox.markSent(e);

    globalThis.gc?.();
    progress(`store ops: enqueue ${drafts.length} drafts one per call`);
    let span = startSpan(sockets, target);
    for (const draft of drafts) await outbox.enqueue([draft], Date.now());
    const enqueueOne = per(endSpan(span, sockets, target), drafts.length);

    // The sender's scan (heads only), then the same messages with their bodies, for comparison.
    const timeScans = async (scan: () => Promise<number>) => {
      const runs: Array<{ wallMs: number; cpuMs: number }> = [];
      let found = 0;
      for (let i = 0; i < 6; i += 1) {
        globalThis.gc?.();
        const s = startSpan(sockets, target);
        found = await scan();
        const cost = endSpan(s, sockets, target);
        if (i > 0) runs.push({ wallMs: cost.wallMs, cpuMs: cost.cpuMs });
      }
      return { found, runs };
    };
    const { found: waiting, runs: scans } = await timeScans(async () => (await outbox.waiting()).length);
    const { runs: bodyScans } = await timeScans(async () => (await outbox.pending()).length);
    const counts: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const s = startSpan(sockets, target);
      await outbox.size();
      if (i > 0) counts.push(endSpan(s, sockets, target).wallMs);
    }
    progress(`store ops: scan of ${waiting} waiting heads: median ${median(scans.map((s) => s.wallMs)).toFixed(1)} ms`);

    // One posted message's bookkeeping, as the sender does it around a post: mark posting, thread
    // root look-up (a new person: not in memory), mark sent with the new thread root.
    const entries = await outbox.pending();
    const half = Math.floor(entries.length / 2);
    globalThis.gc?.();
    span = startSpan(sockets, target);
    for (const entry of entries.slice(0, half)) {
      const posting = await outbox.markPosting(entry, Date.now());
      await threads.get(posting.channel, posting.threadKey ?? "");
      // As the sender settles a post that starts a thread: mark-sent and the root in one commit.
      const ref = { channel: "C0HRALERTS", ts: "1700000000.000100" };
      await outbox.markSent(posting, [threads.rootPut(posting.channel, posting.threadKey ?? "", ref)]);
      threads.noteRoot(posting.channel, posting.threadKey ?? "", ref);
    }
    const postedBookkeeping = per(endSpan(span, sockets, target), half);
    globalThis.gc?.();
    span = startSpan(sockets, target);
    for (const entry of entries.slice(half)) await outbox.markSent(entry);
    const ackOne = per(endSpan(span, sockets, target), entries.length - half);

    // A hand-over's enqueue: the batch in one transaction with its other writes.
    const batch = await singleDrafts(2_000, 20_000_000);
    globalThis.gc?.();
    span = startSpan(sockets, target);
    await store.transaction((scope) => outbox.enqueue(batch, Date.now(), scope));
    const enqueueBatch = per(endSpan(span, sockets, target), batch.length);
    return {
      size: drafts.length,
      waitingScanned: waiting,
      draftJsonBytes: draftBytes,
      enqueueOne,
      enqueueBatch,
      ackOne,
      postedBookkeeping,
      pendingScan: {
        runs: scans.length,
        wallMsMedian: median(scans.map((s) => s.wallMs)),
        wallMsMax: Math.max(...scans.map((s) => s.wallMs)),
        cpuMsMedian: median(scans.map((s) => s.cpuMs)),
      },
      bodiesScan: {
        runs: bodyScans.length,
        wallMsMedian: median(bodyScans.map((s) => s.wallMs)),
        wallMsMax: Math.max(...bodyScans.map((s) => s.wallMs)),
        cpuMsMedian: median(bodyScans.map((s) => s.cpuMs)),
      },
      countPendingWallMsMedian: median(counts),
      stateFileBytes: input.stateFile === undefined ? { db: 0, wal: 0 } : stateFileBytes(input.stateFile),
    };
  } finally {
    await store.close();
  }
});
