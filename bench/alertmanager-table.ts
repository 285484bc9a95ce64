import type { AlertmanagerRun, ContenderRun } from "./alertmanager.js";
import { fmt, ms, table, verdict } from "./table-format.js";

/** The targets of the side-by-side section, against Alertmanager measured in the same run. */
export const AM_TARGETS = { idleRssRatio: 2, startRatio: 3, singleP50Ms: 50, lost: 0 } as const;

type Measured = Exclude<AlertmanagerRun, { skipped: string }>;

export interface AlertmanagerVerdicts {
  readonly idleRssRatio: number;
  readonly startRatio: number;
  /** The stack floor's ratios: a target this misses cannot be met on the stack. */
  readonly floorRssRatio: number;
  readonly floorStartRatio: number;
  readonly idleRss: boolean;
  readonly start: boolean;
  readonly singleP50: boolean;
  readonly noneLost: boolean;
}

export function alertmanagerVerdicts(run: Measured): AlertmanagerVerdicts {
  const am = run.alertmanager;
  const rs = run.retentionSync;
  const idleRssRatio = rs.idle.rssMedianMb / Math.max(0.001, am.idle.rssMedianMb);
  const startRatio = rs.startMedianMs / Math.max(0.001, am.startMedianMs);
  return {
    idleRssRatio,
    startRatio,
    floorRssRatio: run.stackFloor.rssMb / Math.max(0.001, am.idle.rssMedianMb),
    floorStartRatio: run.stackFloor.startMs / Math.max(0.001, am.startMedianMs),
    idleRss: idleRssRatio <= AM_TARGETS.idleRssRatio,
    start: startRatio <= AM_TARGETS.startRatio,
    singleP50: rs.single.ms.p50 <= AM_TARGETS.singleP50Ms,
    noneLost: rs.kill.lost === AM_TARGETS.lost,
  };
}

function row(c: ContenderRun): string[] {
  const statuses = Object.entries(c.burst.statuses)
    .map(([status, n]) => `${status}: ${fmt(n)}`)
    .join(", ");
  return [
    `${c.name} ${c.version}`,
    `${fmt(c.idle.rssMedianMb, 1)} MB`,
    ms(c.idle.cpuMs, 0),
    ms(c.startMedianMs, 0),
    `${fmt(Math.min(...c.startMs), 0)}-${fmt(Math.max(...c.startMs), 0)}`,
    `${fmt(c.single.delivered)}/${fmt(c.single.sent)}`,
    ms(c.single.ms.p50, 0),
    ms(c.single.ms.p90, 0),
    ms(c.single.ms.p99, 0),
    ms(c.burst.ingestMs.p50),
    ms(c.burst.ingestMs.p99),
    ms(c.burst.cpuMsPerAlert, 2),
    `${fmt(c.burst.peakRssMb, 1)} MB`,
    `${fmt(c.burst.posts)} (${statuses}; ${fmt(c.burst.missing)} missing)`,
    `${fmt(c.kill.accepted)}`,
    `${fmt(c.kill.lost)}`,
    `${fmt(c.kill.duplicated)}`,
    `${(c.load.before).toFixed(1)}-${(c.load.after).toFixed(1)}`,
  ];
}

export function alertmanagerTable(run: AlertmanagerRun): string {
  if ("skipped" in run) return `Alertmanager side by side: skipped (${run.skipped})\n`;
  const o = run.options;
  const v = alertmanagerVerdicts(run);
  const head = [
    "product",
    "idle RSS",
    `CPU ${o.idleSeconds} s`,
    "start>ready",
    "range",
    "singles",
    "p50",
    "p90",
    "p99",
    "ingest p50",
    "p99",
    "CPU/alert",
    "peak RSS",
    "burst posts",
    "accepted",
    "lost",
    "twice",
    "load",
  ];
  const rs = run.retentionSync;
  return [
    table(
      `Alertmanager side by side (retention-sync on Node ${run.node}; a do-nothing node: ${fmt(run.bareNodeRssMb, 1)} MB RSS). ` +
        `Idle ${o.idleSeconds} s (median RSS); start to ready: median of ${o.starts}; ${o.singles} single events ${o.singleSpacingMs} ms apart; ` +
        `a burst of ${fmt(o.burst)} ${o.concurrency} at a time; ${fmt(o.killBurst)} with a SIGKILL after ${fmt(o.killAfter)} accepted, then a restart`,
      head,
      [row(run.alertmanager), row(rs)],
    ),
    `  targets: idle RSS <= ${AM_TARGETS.idleRssRatio}x Alertmanager's: ${fmt(v.idleRssRatio, 2)}x ${verdict(v.idleRss)}; ` +
      `start to ready <= ${AM_TARGETS.startRatio}x: ${fmt(v.startRatio, 2)}x ${verdict(v.start)}; ` +
      `one event to Slack p50 <= ${AM_TARGETS.singleP50Ms} ms: ${ms(rs.single.ms.p50, 0)} ${verdict(v.singleP50)}; ` +
      `lost on SIGKILL = 0: ${fmt(rs.kill.lost)} ${verdict(v.noneLost)}`,
    `  the stack alone (its libraries imported in this node, nothing run): ${fmt(run.stackFloor.rssMb, 1)} MB ` +
      `(${fmt(v.floorRssRatio, 2)}x Alertmanager's), ready in ${ms(run.stackFloor.startMs, 0)} (${fmt(v.floorStartRatio, 2)}x)\n`,
  ].join("\n");
}
