import { runChild } from "./child-process.js";

export interface GrowthInput {
  readonly dir: string;
  readonly days: number;
  readonly alertsPerDay: number;
  /** Poll passes per simulated day: the alerts are spread evenly over them. */
  readonly passesPerDay: number;
  /** alerts.dedupeRetention in days: handled changes, sent marks and thread roots are kept this long. */
  readonly retentionDays: number;
  /** Sent marks and thread roots: the daemon keeps them for alerts.dedupeRetention too (createDelivery). */
  readonly sentRetentionDays: number;
  /** People per lens the alerts are about (thread roots are kept per channel and person). */
  readonly people: number;
}

/** The state file at the end of one simulated day, after that day's last sweep. */
export interface GrowthDay {
  readonly day: number;
  /** Alerts handed over so far. */
  readonly alerts: number;
  readonly dbBytes: number;
  readonly walBytes: number;
  /** Rows of the key set table (handled changes), waiting and acked queue items, namespace rows (thread roots, cursors). */
  readonly keys: number;
  readonly waiting: number;
  readonly acked: number;
  readonly kv: number;
  readonly pages: number;
  readonly freePages: number;
  readonly expiredLastSweep: number;
  /** CPU of the simulated day in the child (poll passes, deliveries, sweeps). */
  readonly cpuMs: number;
}

export interface GrowthRun extends Omit<GrowthInput, "dir" | "days"> {
  readonly simulatedDays: number;
  readonly byDay: GrowthDay[];
  readonly alerts: number;
  readonly postedMessages: number;
  /** Alerts in the posted messages (digest lines counted). */
  readonly postedAlerts: number;
  readonly waitingAtEnd: number;
  readonly sweeps: number;
  readonly cpuMs: number;
  readonly wallMs: number;
}

/** The growth scenario in a child process of its own (its clock is simulated). */
export function runGrowth(input: GrowthInput): Promise<GrowthRun> {
  return runChild<GrowthRun>("growth-child.js", input);
}
