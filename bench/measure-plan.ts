import { readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { billingSchema } from "../src/api/spec-records.js";
import { configSchema } from "../src/config/schema.js";
import type { RosterMemory } from "../src/roster/diff-roster.js";
import { readRoster, rosterReadOptions } from "../src/roster/read-roster.js";
import { plannedCounts } from "../src/roster/report.js";
import { parseStoredMemory, storedMemory } from "../src/roster/stored-roster-memory.js";
import { openStateStore } from "../src/store/state-store.js";
import { planFromRoster, servicePeople, settledRss } from "./plan-steps.js";
import type { RosterShape } from "./roster-fixture.js";

/** What one child process measured for read + diff + plan. */
export interface PlanMeasurement {
  readonly rows: number;
  readonly wallMs: number;
  readonly cpuUserMs: number;
  readonly cpuSystemMs: number;
  readonly rssBeforeMb: number;
  readonly peakRssMb: number;
  readonly planned: Record<string, number>;
  /** Changes the seat budget held back: 0 when the allowances are raised as intended. */
  readonly deferred: number;
  /**
   * Outside the target, after the peak RSS above is taken: CPU time to save this run's roster
   * memory to a SQLite state store and to load it back (as the next run does).
   */
  readonly memorySaveMs: number;
  readonly memoryLoadMs: number;
}

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** Saves and loads the memory through a real state store next to the roster file. */
async function memoryRoundTrip(memory: RosterMemory, dir: string): Promise<{ saveMs: number; loadMs: number }> {
  const path = join(dir, `memory-${process.pid}.db`);
  const store = await openStateStore(path);
  try {
    const ns = store.namespace("roster.memory");
    const save0 = process.cpuUsage();
    await ns.set("state", storedMemory(memory));
    const saveMs = cpuMs(save0);
    const load0 = process.cpuUsage();
    const loaded = parseStoredMemory(await ns.get<unknown>("state"));
    const loadMs = cpuMs(load0);
    if (!loaded.ok || loaded.memory.seen.size !== memory.seen.size) throw new Error("memory round trip lost entries");
    return { saveMs, loadMs };
  } finally {
    await store.close();
    await rm(path, { force: true });
  }
}

/**
 * Child process (`node --expose-gc bench/dist/bench/measure-plan.js <roster file> <billing.json> <shape json> [roster settings json]`):
 * runs only the pure read/diff/plan path on a generated file so that the process's peak RSS is
 * that path's (plus Node's baseline), and prints one JSON line.
 */
async function main(): Promise<void> {
  const [file, billingFile, shapeJson, rosterJson] = process.argv.slice(2);
  if (!file || !billingFile || !shapeJson) {
    throw new Error("usage: measure-plan <roster file> <billing.json> <shape> [roster settings]");
  }
  const shape = JSON.parse(shapeJson) as RosterShape;
  const billing = billingSchema.parse(JSON.parse(await readFile(billingFile, "utf8")));
  const rules = configSchema.parse({
    roster: {
      archiveAfterMissingExports: 1,
      archiveUnknown: true,
      approveMassArchive: true,
      maxRows: 5_000_000,
      ...(rosterJson ? (JSON.parse(rosterJson) as object) : {}),
    },
  }).roster;
  const current = servicePeople(shape);
  const rssBefore = settledRss();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const now = new Date();
  const roster = await readRoster(rosterReadOptions(rules, file, now));
  const { memory, plan } = planFromRoster(roster, current, billing, rules, now);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  const roundTrip = await memoryRoundTrip(memory, dirname(file));
  const result: PlanMeasurement = {
    rows: roster.rowCount,
    wallMs,
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    rssBeforeMb: rssBefore / 2 ** 20,
    // resourceUsage().maxRSS is in KiB and covers the whole (short-lived) process.
    peakRssMb,
    planned: plannedCounts(plan),
    deferred: plan.deferred.length,
    memorySaveMs: roundTrip.saveMs,
    memoryLoadMs: roundTrip.loadMs,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
