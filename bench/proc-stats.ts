import { subscribe } from "node:diagnostics_channel";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { Socket } from "node:net";

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
  const fields = statFields(pid);
  // utime and stime: fields 14 and 15 of the file.
  return fields ? ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ : undefined;
}

/** The fields of `/proc/<pid>/stat` after the command name (which may hold spaces), from field 3 on. */
function statFields(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/**
 * CPU and write counters of a process tree (a Postgres server: the postmaster, its backends,
 * checkpointer, WAL writer...), summed over the live processes, plus what the kernel added to the
 * root when it reaped a child that exited (`cutime`/`cstime` and the reaped child's io counters,
 * which Linux folds into the parent's `/proc/<pid>/io` in `wait_task_zombie`). A child that exits
 * between two reads of one snapshot can be counted twice or missed once: backends of a pool live
 * for the whole run, so this is rare.
 */
export interface TreeStats {
  readonly cpuMs: number;
  /**
   * `write_bytes`: what the kernel charged as dirtied towards the block layer. On a kernel whose
   * page cache holds a file in large folios (ext4 on Linux 6.18 here: Postgres zero-fills each
   * 16 MB WAL segment in big writes), re-dirtying 8 KB of a clean 1 MiB folio is charged 1 MiB,
   * though the disk gets about 8 KB: an overstatement for the WAL's small fsynced writes.
   */
  readonly writeBytes: number;
  /** `wchar`: bytes handed to write()/pwrite(): the files, and the answers sent to clients' sockets. */
  readonly wchar: number;
  readonly processes: number;
}

/** What a process tree spent between two snapshots. */
export interface TreeCost {
  readonly cpuMs: number;
  readonly writeBytes: number;
  readonly wchar: number;
}

export function readTreeStats(rootPid: number): TreeStats | undefined {
  const rootFields = statFields(rootPid);
  if (!rootFields) return undefined;
  const parentOf = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === rootPid) continue;
    // Field 4 (ppid) is the second after the command name.
    const ppid = Number(statFields(pid)?.[1]);
    if (Number.isInteger(ppid)) parentOf.set(pid, ppid);
  }
  const tree = new Set<number>([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parentOf) {
      if (!tree.has(pid) && tree.has(ppid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  let ticks = 0;
  let writeBytes = 0;
  let wchar = 0;
  for (const pid of tree) {
    const fields = pid === rootPid ? rootFields : statFields(pid);
    // utime, stime (fields 14, 15), and for the root cutime, cstime (16, 17): its reaped children.
    const own = Number(fields?.[11] ?? 0) + Number(fields?.[12] ?? 0);
    ticks += pid === rootPid ? own + Number(fields?.[13] ?? 0) + Number(fields?.[14] ?? 0) : own;
    const io = readProcIo(pid);
    writeBytes += io?.writeBytes ?? 0;
    wchar += io?.wchar ?? 0;
  }
  return { cpuMs: (ticks * 1000) / USER_HZ, writeBytes, wchar, processes: tree.size };
}

/** What a process tree spent between two snapshots (undefined when either is missing). */
export function treeDelta(before: TreeStats | undefined, after: TreeStats | undefined): TreeCost | undefined {
  return before && after
    ? {
        cpuMs: after.cpuMs - before.cpuMs,
        writeBytes: after.writeBytes - before.writeBytes,
        wchar: after.wchar - before.wchar,
      }
    : undefined;
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
 * SDK's http agent, `pg` for a Postgres state store), so that `wchar` minus this is what went to
 * files. Sockets made by `net.connect` are announced on the `net.client.socket` diagnostics
 * channel; `pg` makes a `new Socket()` and calls its `connect()`, which Node 20 does not announce,
 * so `Socket.prototype.connect` is wrapped as well. Install before the first connection.
 */
export class ClientSocketBytes {
  private readonly sockets = new Set<Socket>();
  /** Bytes of sockets already closed. */
  private closedBytes = 0;
  /** Bytes read from sockets already closed, by remote port. */
  private readonly closedReadByPort = new Map<number, number>();
  /** The remote port of each socket (socket.remotePort is gone once it is closed). */
  private readonly ports = new WeakMap<Socket, number>();

  constructor() {
    subscribe("net.client.socket", (message) => this.track((message as { socket: Socket }).socket));
    const track = (socket: Socket) => this.track(socket);
    const connect = Socket.prototype.connect;
    Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
      track(this);
      return (connect as (...a: unknown[]) => Socket).apply(this, args);
    } as typeof connect;
  }

  private track(socket: Socket): void {
    if (this.sockets.has(socket)) return;
    this.sockets.add(socket);
    socket.once("close", () => {
      this.closedBytes += socket.bytesWritten;
      const port = this.ports.get(socket);
      if (port !== undefined)
        this.closedReadByPort.set(port, (this.closedReadByPort.get(port) ?? 0) + socket.bytesRead);
      this.sockets.delete(socket);
    });
    socket.once("connect", () => {
      if (socket.remotePort !== undefined) this.ports.set(socket, socket.remotePort);
    });
  }

  /** Bytes this process read from sockets to `port` (a Postgres server's answers: its socket writes). */
  readFrom(port: number): number {
    let open = 0;
    for (const socket of this.sockets) if (socket.remotePort === port) open += socket.bytesRead;
    return (this.closedReadByPort.get(port) ?? 0) + open;
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
  readonly server: TreeStats | undefined;
  readonly serverAnswerBytes: number;
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
  /** A Postgres state store: the server's processes (see readTreeStats). */
  readonly server?: ServerCost;
}

/** What the Postgres server's processes spent on a span. */
export interface ServerCost {
  readonly cpuMs: number;
  /** Kernel `write_bytes` (overstated for the WAL on this kernel: see TreeStats). */
  readonly writeBytes: number;
  /** `wchar` less the bytes the measured process read from the server: what it wrote to files (WAL, data, its log). */
  readonly fileWriteBytes: number;
}

/**
 * Where the measured process keeps its state: a SQLite file (its size is followed), or a Postgres
 * server whose process tree is measured next to the process (`serverPid`, the postmaster).
 */
export interface SpanTarget {
  readonly stateFile?: string | undefined;
  readonly serverPid?: number | undefined;
  /** The server's port: what the process reads from it is the server's socket writes, not file writes. */
  readonly serverPort?: number | undefined;
}

const noFiles = { db: 0, wal: 0 };

// The server's tree is read first at the start and last at the end: the /proc scan is outside
// this process's measured CPU.
export function startSpan(sockets: ClientSocketBytes | undefined, target: SpanTarget): Span {
  return {
    server: target.serverPid === undefined ? undefined : readTreeStats(target.serverPid),
    serverAnswerBytes: target.serverPort === undefined ? 0 : (sockets?.readFrom(target.serverPort) ?? 0),
    io: readProcIo(),
    socketBytes: sockets?.total() ?? 0,
    files: target.stateFile === undefined ? noFiles : stateFileBytes(target.stateFile),
    wallStart: performance.now(),
    cpu: process.cpuUsage(),
  };
}

export function endSpan(span: Span, sockets: ClientSocketBytes | undefined, target: SpanTarget): SpanCost {
  const cpuMs = cpuMsSince(span.cpu);
  const wallMs = performance.now() - span.wallStart;
  const io = readProcIo();
  const files = target.stateFile === undefined ? noFiles : stateFileBytes(target.stateFile);
  const socketBytes = (sockets?.total() ?? 0) - span.socketBytes;
  const answers =
    target.serverPort === undefined ? 0 : (sockets?.readFrom(target.serverPort) ?? 0) - span.serverAnswerBytes;
  const tree = target.serverPid === undefined ? undefined : treeDelta(span.server, readTreeStats(target.serverPid));
  const server = tree && { cpuMs: tree.cpuMs, writeBytes: tree.writeBytes, fileWriteBytes: tree.wchar - answers };
  return {
    wallMs,
    cpuMs,
    fileWriteBytes: io && span.io ? io.wchar - span.io.wchar - socketBytes : undefined,
    blockWriteBytes: io && span.io ? io.writeBytes - span.io.writeBytes : undefined,
    fileGrowthBytes: files.db + files.wal - span.files.db - span.files.wal,
    ...(server ? { server } : {}),
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
    ...(a.server && b.server
      ? {
          server: {
            cpuMs: a.server.cpuMs + b.server.cpuMs,
            writeBytes: a.server.writeBytes + b.server.writeBytes,
            fileWriteBytes: a.server.fileWriteBytes + b.server.fileWriteBytes,
          },
        }
      : {}),
  };
}
