import { runChild } from "./child-process.js";
import type { PostgresAfter, StateEngine, StateTarget } from "./state-engine.js";

export interface StoreOpsInput {
  /** What `openStateStore` opens: the SQLite file, or the section's Postgres database URL. */
  readonly stateLocation: string;
  readonly stateFile?: string | undefined;
  /** Postgres: the postmaster, whose process tree is measured around each operation too. */
  readonly serverPid?: number | undefined;
  /** Messages waiting when the pending scan runs. */
  readonly size: number;
}

/** Cost per message of one kind of queue operation. */
export interface PerMessage {
  readonly count: number;
  readonly cpuMs: number;
  readonly wallMs: number;
  readonly fileWriteBytes: number | undefined;
  readonly blockWriteBytes: number | undefined;
  /** Postgres: the server's processes, per message: CPU, file writes (wchar less its answers), kernel write_bytes. */
  readonly serverCpuMs?: number;
  readonly serverFileWriteBytes?: number;
  readonly serverWriteBytes?: number;
}

export interface ScanCost {
  readonly runs: number;
  readonly wallMsMedian: number;
  readonly wallMsMax: number;
  readonly cpuMsMedian: number;
}

export interface StoreOpsRun {
  readonly engine: StateEngine;
  readonly size: number;
  readonly waitingScanned: number;
  /** Mean JSON size of one single-alert draft (the message, its alert and ids). */
  readonly draftJsonBytes: number;
  readonly enqueueOne: PerMessage;
  readonly enqueueBatch: PerMessage;
  readonly ackOne: PerMessage;
  /** markPosting + thread root look-up + markSent + thread root stored: one posted message. */
  readonly postedBookkeeping: PerMessage;
  /** `Outbox.waiting()`: the sender's scan of what waits, heads only. */
  readonly pendingScan: ScanCost;
  /** `Outbox.pending()`: the same messages with their bodies (what the scan read before heads). */
  readonly bodiesScan: ScanCost;
  readonly countPendingWallMsMedian: number;
  readonly stateFileBytes: { db: number; wal: number };
  readonly postgres?: PostgresAfter;
}

/** The outbox's queue operations on a real state store, in a child process of their own. */
export async function runStoreOps(input: {
  state: StateTarget;
  size: number;
  afterPostgres?: () => Promise<PostgresAfter>;
}): Promise<StoreOpsRun> {
  const child: StoreOpsInput = {
    size: input.size,
    ...(input.state.engine === "sqlite"
      ? { stateLocation: input.state.file, stateFile: input.state.file }
      : { stateLocation: input.state.url, serverPid: input.state.serverPid }),
  };
  const run = await runChild<Omit<StoreOpsRun, "engine" | "postgres">>("store-ops-child.js", child, ["--expose-gc"]);
  const postgres = input.afterPostgres ? await input.afterPostgres() : undefined;
  return { engine: input.state.engine, ...run, ...(postgres ? { postgres } : {}) };
}
