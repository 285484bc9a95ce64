import { runChild } from "./child-process.js";

export interface StoreOpsInput {
  readonly dir: string;
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
}

export interface ScanCost {
  readonly runs: number;
  readonly wallMsMedian: number;
  readonly wallMsMax: number;
  readonly cpuMsMedian: number;
}

export interface StoreOpsRun {
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
}

/** The outbox's queue operations on a real state file, in a child process of their own. */
export function runStoreOps(input: StoreOpsInput): Promise<StoreOpsRun> {
  return runChild<StoreOpsRun>("store-ops-child.js", input, ["--expose-gc"]);
}
