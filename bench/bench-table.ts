import type { AlertsRun } from "./alerts-scenario.js";
import type { PlanMeasurement } from "./measure-plan.js";
import type { NaiveRun } from "./naive-baseline.js";
import type { RosterShape } from "./roster-fixture.js";
import type { ReconcileRun } from "./roster-scenario.js";
import type { WebhookBurstRun } from "./webhook-burst.js";
import type { WebhookLatencyRun } from "./webhook-latency.js";

/** Everything one `npm run bench` measured: what the tables print and bench-results.json holds. */
export interface BenchResults {
  readonly startedAt: string;
  readonly machine: { node: string; cpus: number; cpuModel: string; platform: string };
  readonly options: { sizes: number[]; pacedSizes: number[]; alerts: number; quick: boolean };
  readonly readDiffPlan: Array<{ shape: RosterShape; pinnedToOneCore: boolean } & PlanMeasurement>;
  readonly reconcile: ReconcileRun[];
  /** At the real limit, one run per `--paced-size`; the naive baseline repeats the last (largest). */
  readonly paced: ReconcileRun[];
  readonly naive?: NaiveRun;
  readonly naiveRatio?: { requests: number; time: number };
  readonly alerts?: AlertsRun;
  readonly webhook?: WebhookLatencyRun;
  readonly webhookBurst?: WebhookBurstRun;
  readonly totalMs: number;
}

const fmt = (n: number, digits = 0): string =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const sec = (ms: number): string => `${fmt(ms / 1000, 2)} s`;

function table(title: string, head: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [title, line(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line), ""].join("\n");
}

/** The human-readable summary of a bench run. */
export function printReport(r: BenchResults, out: NodeJS.WritableStream): void {
  const parts: string[] = [];
  parts.push(`retention-sync bench: node ${r.machine.node}, ${r.machine.cpus} cores (${r.machine.cpuModel})\n`);
  parts.push(
    table(
      `Read + diff + plan (pure functions, one child process${r.readDiffPlan.every((m) => m.pinnedToOneCore) ? " pinned to one core" : ""}; target for 100,000 rows: < 2 s, < 300 MB)`,
      [
        "rows",
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
        `Alerts: ${fmt(a.changes)} changes, both lenses, ${a.rounds} bursts, polling mode, state in a SQLite file (fake Slack: ${a.slackRateLimit})`,
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
        `Alerts, webhook mode: a burst delivered by the emulator itself (up to 1,000 at once) to a receiver in process, state in a SQLite file, fake Slack limited to ${b.slackRateLimit}`,
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
  parts.push(`total ${sec(r.totalMs)}\n`);
  out.write(parts.join("\n"));
}
