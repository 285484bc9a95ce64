import type { AlertmanagerRun } from "./alertmanager.js";
import { alertmanagerTable } from "./alertmanager-table.js";
import type { AlertsRun } from "./alerts-scenario.js";
import type { DaemonRssRun } from "./daemon-rss.js";
import type { GrowthRun } from "./growth.js";
import type { PlanMeasurement } from "./measure-plan.js";
import type { NaiveRun } from "./naive-baseline.js";
import type { PollPathRun } from "./poll-path.js";
import type { PullRun } from "./pull-scenario.js";
import { pullTable } from "./pull-table.js";
import type { RosterShape } from "./roster-fixture.js";
import type { ReconcileRun } from "./roster-scenario.js";
import type { PostgresInfo, StateEngine } from "./state-engine.js";
import { pollPathTables, storeOpsTables, webhookPacedTables } from "./state-tables.js";
import type { StoreOpsRun } from "./store-ops.js";
import { fmt, kib, mib, sec, table, verdict } from "./table-format.js";
import type { WebhookBurstRun } from "./webhook-burst.js";
import type { WebhookLatencyRun } from "./webhook-latency.js";
import type { WebhookPacedRun } from "./webhook-paced.js";

/** Everything one `npm run bench` measured: what the tables print and bench-results.json holds. */
export interface BenchResults {
  readonly startedAt: string;
  readonly machine: { node: string; cpus: number; cpuModel: string; platform: string; loadAverage: number[] };
  readonly options: {
    sizes: number[];
    pacedSizes: number[];
    alerts: number;
    quick: boolean;
    sections: string[];
    pollPath: { burst: number; burstPasses: number; single: number; singlePasses: number };
    webhookPaced: { events: number; concurrency: number };
    pendingSize: number;
    growth: { days: number; alertsPerDay: number; passesPerDay: number; people: number };
    rss: { durationS: number; rows: number; sampleEveryS: number; warmupS: number; pollIntervalS: number };
    /** `--pull-size`, `--pull-runs`. */
    pull: { size: number; runs: number };
    /** The `--am-*` options of the Alertmanager section. */
    alertmanager: { idleSeconds: number; starts: number; singles: number; burst: number; killAfter: number };
    /** `--state`: the engines the poll-path, webhook-paced and store-ops sections ran on. */
    state: StateEngine[];
  };
  readonly readDiffPlan: Array<{ shape: RosterShape; pinnedToOneCore: boolean; format: string } & PlanMeasurement>;
  readonly reconcile: ReconcileRun[];
  /** At the real limit, one run per `--paced-size`; the naive baseline repeats the last (largest). */
  readonly paced: ReconcileRun[];
  readonly naive?: NaiveRun;
  readonly naiveRatio?: { requests: number; time: number };
  readonly alerts?: AlertsRun;
  readonly webhook?: WebhookLatencyRun;
  readonly webhookBurst?: WebhookBurstRun;
  readonly pollPath?: PollPathRun;
  readonly webhookPaced?: WebhookPacedRun;
  readonly storeOps?: StoreOpsRun;
  /** `--state postgres|both`: the run's embedded Postgres and the sections measured on it. */
  readonly postgres?: PostgresInfo & {
    readonly pollPath?: PollPathRun;
    readonly webhookPaced?: WebhookPacedRun;
    readonly storeOps?: StoreOpsRun;
  };
  readonly growth?: GrowthRun[];
  readonly rss?: DaemonRssRun;
  /** The pull section: pull + read + diff + plan per HTTP source against its fake, and the CSV file. */
  readonly pull?: PullRun;
  /** Alertmanager and `retention-sync run` side by side. */
  readonly alertmanager?: AlertmanagerRun;
  /** 1-minute load average before and after a section (other processes share the cores). */
  readonly sectionLoad: Readonly<Record<string, { before: number; after: number }>>;
  readonly totalMs: number;
}

/** "load 3.1 -> 4.0": the machine's 1-minute load average around a section, or nothing. */
function loadNote(r: BenchResults, name: string): string {
  const load = r.sectionLoad[name];
  return load ? `; load average ${fmt(load.before, 1)} -> ${fmt(load.after, 1)} on ${r.machine.cpus} cores` : "";
}

/** The human-readable summary of a bench run. */
export function printReport(r: BenchResults, out: NodeJS.WritableStream): void {
  const parts: string[] = [];
  parts.push(`retention-sync bench: node ${r.machine.node}, ${r.machine.cpus} cores (${r.machine.cpuModel})\n`);
  if (r.readDiffPlan.length > 0)
    parts.push(
      table(
        `Read + diff + plan (pure functions, one child process${r.readDiffPlan.every((m) => m.pinnedToOneCore) ? " pinned to one core" : ""}; targets: 100,000 rows < 2 s and < 300 MB, 1,000,000 rows < 10 s and < 600 MB)`,
        [
          "rows",
          "format",
          "wall",
          "CPU user+sys",
          "RSS before",
          "peak RSS",
          "adds",
          "revives",
          "archives",
          "deferred",
          "memory save",
          "memory load",
        ],
        r.readDiffPlan.map((m) => [
          fmt(m.rows),
          m.format === "csv" ? "CSV" : `${m.format.toUpperCase()} (RaaS, paths)`,
          sec(m.wallMs),
          sec(m.cpuUserMs + m.cpuSystemMs),
          `${fmt(m.rssBeforeMb)} MB`,
          `${fmt(m.peakRssMb)} MB`,
          fmt(m.planned.add ?? 0),
          fmt(m.planned.revive ?? 0),
          fmt(m.planned.archive ?? 0),
          fmt(m.deferred),
          sec(m.memorySaveMs),
          sec(m.memoryLoadMs),
        ]),
      ),
    );
  const runs = [...r.reconcile, ...r.paced];
  const lastPaced = r.paced.at(-1);
  if (runs.length > 0)
    parts.push(
      table(
        "Reconcile against the emulator (5 % joiners, 5 % leavers, 1 % rehires)",
        [
          "people",
          "limit/min",
          "requests",
          "floor",
          "used/floor",
          "429s",
          "errors",
          "wall",
          "requests/limit",
          "max in 60 s",
          "mean/min",
        ],
        runs.map((x) => [
          fmt(x.shape.size),
          fmt(x.serverLimitPerMinute),
          `${fmt(x.requestsUsed)}${x.requestLogFull ? "+" : ""}`,
          fmt(x.floor),
          fmt(x.requestsUsed / x.floor, 3),
          fmt(x.status429),
          fmt(x.otherErrors),
          sec(x.wallMs),
          sec(x.minimumMsAtLimit),
          fmt(x.maxRequestsIn60s),
          fmt(x.meanRequestsPerMinute, 1),
        ]),
      ),
    );
  if (lastPaced && r.naive && r.naiveRatio) {
    parts.push(
      table(
        `Naive script vs retention-sync, same work (${fmt(r.naive.writes)} writes) at ${r.naive.serverLimitPerMinute}/min`,
        ["", "requests", "429s", "wall"],
        [
          ["naive fetch loop", fmt(r.naive.requestsUsed), fmt(r.naive.status429), sec(r.naive.wallMs)],
          ["retention-sync", fmt(lastPaced.requestsUsed), fmt(lastPaced.status429), sec(lastPaced.wallMs)],
          ["ratio naive / retention-sync", fmt(r.naiveRatio.requests, 2), "", fmt(r.naiveRatio.time, 2)],
        ],
      ),
    );
  }
  if (r.alerts) {
    const a = r.alerts;
    parts.push(
      table(
        `Alerts: ${fmt(a.changes)} changes, both lenses, ${a.rounds} bursts, polling mode, state in a SQLite file (fake Slack: ${a.slackRateLimit}${loadNote(r, "alerts")})`,
        [
          "drain",
          "passes",
          "alerts in Slack",
          "messages",
          "digests",
          "Slack 429s",
          "API requests",
          "latency p50",
          "p95",
          "max",
        ],
        [
          [
            sec(a.drainMs),
            fmt(a.passes),
            fmt(a.alertsInSlack),
            fmt(a.slackMessages),
            fmt(a.digestMessages),
            fmt(a.slack429),
            fmt(a.apiRequests),
            sec(a.latencyMs.p50),
            sec(a.latencyMs.p95),
            sec(a.latencyMs.max),
          ],
        ],
      ),
    );
  }
  if (r.webhook) {
    const w = r.webhook;
    parts.push(
      table(
        "Alerts, webhook mode: one change at a time, from detectedAt to its Slack post (receiver in process, state in a SQLite file)",
        ["changes", "delivered", "latency p50", "max"],
        [[fmt(w.changes), fmt(w.delivered), sec(w.latencyMs.p50), sec(w.latencyMs.max)]],
      ),
    );
  }
  if (r.webhookBurst) {
    const b = r.webhookBurst;
    parts.push(
      table(
        `Alerts, webhook mode: a burst delivered by the emulator itself (up to 1,000 at once) to a receiver in process, state in a SQLite file, fake Slack limited to ${b.slackRateLimit}${loadNote(r, "webhook-burst")}`,
        [
          "changes",
          "alerts in Slack",
          "messages",
          "digests",
          "Slack 429s",
          "drain",
          "latency p50",
          "p95",
          "max",
          "endpoint enabled",
          "most failures in a row",
        ],
        [
          [
            fmt(b.changes),
            fmt(b.alertsInSlack),
            fmt(b.slackMessages),
            fmt(b.digestMessages),
            fmt(b.slack429),
            sec(b.drainMs),
            sec(b.latencyMs.p50),
            sec(b.latencyMs.p95),
            sec(b.latencyMs.max),
            b.endpoint.enabled ? "yes" : "NO",
            fmt(b.endpoint.maxConsecutiveFailures),
          ],
        ],
      ),
    );
  }
  printStateTables(r, parts);
  if (r.pull) parts.push(pullTable(r.pull, loadNote(r, "pull")));
  if (r.alertmanager) parts.push(alertmanagerTable(r.alertmanager));
  parts.push(`total ${sec(r.totalMs)}\n`);
  out.write(parts.join("\n"));
}

/** The tables of the state-engine measurements (BENCHMARKS.md section 5), each with its target and verdict. */
function printStateTables(r: BenchResults, parts: string[]): void {
  const pg = r.postgres;
  const note = (section: string) => (engine: StateEngine) =>
    loadNote(r, engine === "sqlite" ? section : `${section} postgres`);
  const both = <T>(sqlite: T | undefined, postgres: T | undefined): T[] => [
    ...(sqlite ? [sqlite] : []),
    ...(postgres ? [postgres] : []),
  ];
  pollPathTables(both(r.pollPath, pg?.pollPath), note("poll-path"), pg, parts);
  webhookPacedTables(both(r.webhookPaced, pg?.webhookPaced), note("webhook-paced"), pg, parts);
  storeOpsTables(both(r.storeOps, pg?.storeOps), note("store-ops"), pg, parts);
  for (const g of r.growth ?? []) {
    parts.push(
      table(
        `Growth: ${fmt(g.alertsPerDay)} alerts/day in ${fmt(g.passesPerDay)} poll passes/day, alerts.dedupeRetention ${g.retentionDays} d, sent marks and thread roots ${g.sentRetentionDays} d, swept every 10 simulated minutes (state file at the end of each day${loadNote(r, `growth ${g.retentionDays}/${g.sentRetentionDays}`)})`,
        ["day", "alerts", "file", "wal", "handled keys", "waiting", "sent marks", "kv rows", "free pages", "CPU"],
        g.byDay.map((d) => [
          fmt(d.day),
          fmt(d.alerts),
          mib(d.dbBytes),
          kib(d.walBytes),
          fmt(d.keys),
          fmt(d.waiting),
          fmt(d.acked),
          fmt(d.kv),
          fmt(d.freePages),
          sec(d.cpuMs),
        ]),
      ),
    );
    const at30 = g.byDay.find((d) => d.day === 30);
    const after = g.byDay.filter((d) => d.day > g.retentionDays).map((d) => d.dbBytes + d.walBytes);
    const spread = after.length > 1 ? Math.max(...after) / Math.min(...after) - 1 : undefined;
    parts.push(
      `  ${fmt(g.alerts)} alerts, ${fmt(g.postedAlerts)} in Slack (${fmt(g.postedMessages)} messages), ${fmt(g.waitingAtEnd)} waiting at the end; ${fmt(g.sweeps)} sweeps; ${sec(g.cpuMs)} CPU\n` +
        `  target < 50 MB at day 30: ${at30 ? `${mib(at30.dbBytes + at30.walBytes)}, ${verdict(at30.dbBytes + at30.walBytes < 50_000_000)}` : "not reached"}; ` +
        `flat from day ${g.retentionDays + 1} on (within 10 %): ${spread === undefined ? "not reached" : `spread ${fmt(spread * 100, 1)} %, ${verdict(spread <= 0.1)}`}\n`,
    );
  }
  if (r.rss) {
    const x = r.rss;
    parts.push(
      table(
        `Daemon RSS: retention-sync run (dist/cli.js), ${fmt(x.rows)}-row HRIS file, polling every ${x.pollIntervalS} s, ${x.changesPerPass} changes per pass, VmRSS every ${x.sampleEveryS} s${loadNote(r, "rss")}`,
        ["at", "RSS", "passes", "CPU so far"],
        x.samples.map((s) => [`${fmt(s.atS)} s`, `${fmt(s.rssMb, 1)} MB`, fmt(s.passes), sec(s.cpuMs)]),
      ),
    );
    parts.push(
      `  first ${fmt(x.firstMb, 1)} MB, last ${fmt(x.lastMb, 1)} MB, max ${fmt(x.maxMb, 1)} MB, peak (VmHWM) ${fmt(x.peakMb, 1)} MB; ` +
        `from ${x.warmupS} s on the spread is ${fmt(x.spreadAfterWarmup * 100, 1)} %: flat within 10 % ${verdict(x.flat)}; ` +
        `${fmt(x.passes)} passes, ${fmt(x.changesRaised)} changes raised (every risk level), ${fmt(x.alertsInSlack)} alerts in Slack (the default route takes watch and high), exit ${x.exitCode}\n`,
    );
  }
}
