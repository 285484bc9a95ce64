import { subscribe } from "node:diagnostics_channel";
import { readFileSync, statSync } from "node:fs";
import type { Socket } from "node:net";

/**
 * What the benches read from /proc (Linux only; elsewhere the figures are reported as absent):
 * write counters, RSS and CPU time of this process or of a child.
 */

/** `/proc/<pid>/io`: `wchar` is every byte handed to write()/pwrite() (files, sockets, pipes);
 * `write_bytes` is what the process sent towards the block layer, counted when a page cache page
 * turns dirty (a page dirtied twice before writeback counts once). */
export interface ProcIo {
  readonly wchar: number;
  readonly writeBytes: number;
}

export function readProcIo(pid: number | "self" = "self"): ProcIo | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/io`, "utf8");
    const field = (name: string) => Number(new RegExp(`^${name}:\\s*(\\d+)`, "m").exec(text)?.[1] ?? Number.NaN);
    return { wchar: field("wchar"), writeBytes: field("write_bytes") };
  } catch {
    return undefined;
  }
}

/** `VmRSS` and `VmHWM` (peak) of a process, in KiB. */
export function readRss(pid: number | "self" = "self"): { rssKb: number; peakKb: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s*(\\d+) kB`, "m").exec(text)?.[1] ?? Number.NaN);
    return { rssKb: kb("VmRSS"), peakKb: kb("VmHWM") };
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on every Linux this runs on). */
const USER_HZ = 100;

/** User + system CPU time of another process so far, in ms (10 ms resolution). */
export function readCpuMs(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces: fields are counted after its closing parenthesis.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / USER_HZ;
  } catch {
    return undefined;
  }
}

/** Size of the database file and of its -wal file (0 when absent). */
export function stateFileBytes(file: string): { db: number; wal: number } {
  const size = (path: string) => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  };
  return { db: size(file), wal: size(`${file}-wal`) };
}

/**
 * Bytes this process wrote to TCP sockets it opened as a client (undici for the API, the Slack
 * SDK's http agent), so that `wchar` minus this is what went to files. Sockets are found through
 * the `net.client.socket` diagnostics channel; install before the first connection.
 */
export class ClientSocketBytes {
  private readonly sockets = new Set<Socket>();
  /** Bytes of sockets already closed. */
  private closedBytes = 0;

  constructor() {
    subscribe("net.client.socket", (message) => {
      const socket = (message as { socket: Socket }).socket;
      this.sockets.add(socket);
      socket.once("close", () => {
        this.closedBytes += socket.bytesWritten;
        this.sockets.delete(socket);
      });
    });
  }

  total(): number {
    let open = 0;
    for (const socket of this.sockets) open += socket.bytesWritten;
    return this.closedBytes + open;
  }
}

/** CPU of this process since `start` (process.cpuUsage), user + system, in ms. */
export function cpuMsSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/** A snapshot for a measured span of work in this process: CPU, write counters, socket bytes, files. */
export interface Span {
  readonly cpu: NodeJS.CpuUsage;
  readonly io: ProcIo | undefined;
  readonly socketBytes: number;
  readonly files: { db: number; wal: number };
  readonly wallStart: number;
}

export interface SpanCost {
  readonly wallMs: number;
  readonly cpuMs: number;
  /** wchar minus client socket bytes: bytes handed to write()/pwrite() for files (the state files). */
  readonly fileWriteBytes: number | undefined;
  /** /proc write_bytes: towards the block layer, counted at page-dirtying time. */
  readonly blockWriteBytes: number | undefined;
  /** Growth of the database file plus its -wal file (a lower bound: the WAL is reused after checkpoints). */
  readonly fileGrowthBytes: number;
}

export function startSpan(sockets: ClientSocketBytes | undefined, stateFile: string): Span {
  return {
    io: readProcIo(),
    socketBytes: sockets?.total() ?? 0,
    files: stateFileBytes(stateFile),
    wallStart: performance.now(),
    cpu: process.cpuUsage(),
  };
}

export function endSpan(span: Span, sockets: ClientSocketBytes | undefined, stateFile: string): SpanCost {
  const cpuMs = cpuMsSince(span.cpu);
  const wallMs = performance.now() - span.wallStart;
  const io = readProcIo();
  const files = stateFileBytes(stateFile);
  const socketBytes = (sockets?.total() ?? 0) - span.socketBytes;
  return {
    wallMs,
    cpuMs,
    fileWriteBytes: io && span.io ? io.wchar - span.io.wchar - socketBytes : undefined,
    blockWriteBytes: io && span.io ? io.writeBytes - span.io.writeBytes : undefined,
    fileGrowthBytes: files.db + files.wal - span.files.db - span.files.wal,
  };
}

/** Two spans run one after the other, as one. */
export function addCosts(a: SpanCost, b: SpanCost): SpanCost {
  const both = (x: number | undefined, y: number | undefined) =>
    x === undefined || y === undefined ? undefined : x + y;
  return {
    wallMs: a.wallMs + b.wallMs,
    cpuMs: a.cpuMs + b.cpuMs,
    fileWriteBytes: both(a.fileWriteBytes, b.fileWriteBytes),
    blockWriteBytes: both(a.blockWriteBytes, b.blockWriteBytes),
    fileGrowthBytes: a.fileGrowthBytes + b.fileGrowthBytes,
  };
}
