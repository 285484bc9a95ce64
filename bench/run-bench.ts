import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { startEmulator } from "@retention-sync/emulator";
import { RetentionClient } from "../src/api/client.js";
import { type AlertsRun, runAlerts } from "./alerts-scenario.js";
import { type BenchResults, printReport } from "./bench-table.js";
import type { PlanMeasurement } from "./measure-plan.js";
import { type NaiveRun, runNaive } from "./naive-baseline.js";
import { type RosterShape, standardShape, writeHrisCsv } from "./roster-fixture.js";
import { type ReconcileRun, runReconcile } from "./roster-scenario.js";
import { runWebhookBurst, type WebhookBurstRun } from "./webhook-burst.js";
import { runWebhookLatency, type WebhookLatencyRun } from "./webhook-latency.js";

const execFileAsync = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
/** The raised limit for the scale runs: high enough that pacing never is the bottleneck. */
const RAISED_LIMIT = 1_000_000;
const REAL_LIMIT = 120;

function positiveInts(text: string, flag: string): number[] {
  const values = text.split(",").map((s) => Number(s.trim()));
  if (values.some((v) => !Number.isInteger(v) || v < 100)) throw new Error(`${flag}: expected integers >= 100`);
  return values;
}

async function measurePlan(
  dir: string,
  billingFile: string,
  shape: RosterShape,
): Promise<PlanMeasurement & { pinnedToOneCore: boolean }> {
  const file = join(dir, `plan-${shape.size}.csv`);
  await writeHrisCsv(file, shape);
  const args = ["--expose-gc", join(here, "measure-plan.js"), file, billingFile, JSON.stringify(shape)];
  // The target is "on one core": pin the child to CPU 0 where taskset exists (Linux), so GC helper
  // threads share that core too; elsewhere it runs unpinned and says so.
  try {
    const { stdout } = await execFileAsync("taskset", ["-c", "0", process.execPath, ...args], { maxBuffer: 1 << 20 });
    return { ...(JSON.parse(stdout) as PlanMeasurement), pinnedToOneCore: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    const { stdout } = await execFileAsync(process.execPath, args, { maxBuffer: 1 << 20 });
    return { ...(JSON.parse(stdout) as PlanMeasurement), pinnedToOneCore: false };
  }
}

/**
 * The billing answer of a fresh emulator with the daily allowances raised like in the reconcile
 * runs (else the seat budget would defer all but 200 adds and revives), for the measurement child.
 */
async function writeBilling(file: string): Promise<void> {
  const emu = await startEmulator({ port: 0, seed: "empty", apiSeatsPerDay: 100_000_000, rowsPerDay: 100_000_000 });
  try {
    const client = new RetentionClient({ baseUrl: emu.baseUrl, apiKey: emu.writeKey });
    await writeFile(file, JSON.stringify(await client.getBilling()));
  } finally {
    await emu.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: "string" },
      quick: { type: "boolean", default: false },
      "paced-size": { type: "string" },
      alerts: { type: "string" },
      "skip-paced": { type: "boolean", default: false },
      "skip-alerts": { type: "boolean", default: false },
      out: { type: "string", default: "bench-results.json" },
    },
  });
  const quick = values.quick === true;
  const sizes = values.sizes
    ? positiveInts(values.sizes, "--sizes")
    : quick
      ? [1_000, 10_000]
      : [1_000, 10_000, 100_000];
  // 1,000 is the size; 2,000 needs more than one minute's 120 requests (1,000 needs 72).
  const pacedSizes = values["paced-size"]
    ? positiveInts(values["paced-size"], "--paced-size")
    : quick
      ? [200]
      : [1_000, 2_000];
  const alerts = values.alerts ? Number(values.alerts) : quick ? 2_000 : 10_000;
  if (!Number.isInteger(alerts) || alerts < 2) throw new Error("--alerts: expected an integer >= 2");
  const started = performance.now();
  const dir = await mkdtemp(join(tmpdir(), "retention-sync-bench-"));
  const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  try {
    const billingFile = join(dir, "billing.json");
    await writeBilling(billingFile);
    const readDiffPlan: BenchResults["readDiffPlan"] = [];
    const reconcile: ReconcileRun[] = [];
    for (const size of sizes) {
      const shape = standardShape(size);
      log(`read+diff+plan of ${size} rows (child process)`);
      readDiffPlan.push({ shape, ...(await measurePlan(dir, billingFile, shape)) });
      log(`reconcile ${size} people at ${RAISED_LIMIT}/min`);
      reconcile.push(
        await runReconcile({ shape, dir, serverLimitPerMinute: RAISED_LIMIT, clientLimitPerMinute: RAISED_LIMIT }),
      );
    }
    const paced: ReconcileRun[] = [];
    let naive: NaiveRun | undefined;
    if (values["skip-paced"] !== true) {
      for (const size of pacedSizes) {
        log(`reconcile ${size} people at the real ${REAL_LIMIT}/min (up to a minute or more)`);
        const shape = standardShape(size);
        paced.push(
          await runReconcile({ shape, dir, serverLimitPerMinute: REAL_LIMIT, clientLimitPerMinute: REAL_LIMIT }),
        );
      }
      const largest = pacedSizes.at(-1);
      if (largest !== undefined) {
        log(`naive script, same work as the ${largest} run, at ${REAL_LIMIT}/min`);
        naive = await runNaive({ shape: standardShape(largest), serverLimitPerMinute: REAL_LIMIT });
      }
    }
    let alertsRun: AlertsRun | undefined;
    if (values["skip-alerts"] !== true) {
      log(`alerts: ${alerts} changes, both lenses`);
      alertsRun = await runAlerts({ changes: alerts, rounds: 10, dir });
    }
    let webhook: WebhookLatencyRun | undefined;
    if (values["skip-alerts"] !== true) {
      log("alerts: webhook mode, 20 changes one at a time");
      webhook = await runWebhookLatency({ changes: 20, dir });
    }
    let webhookBurst: WebhookBurstRun | undefined;
    if (values["skip-alerts"] !== true) {
      log(`alerts: webhook mode, a burst of ${alerts} changes`);
      webhookBurst = await runWebhookBurst({ changes: alerts, dir });
    }
    const lastPaced = paced.at(-1);
    const results: BenchResults = {
      startedAt: new Date().toISOString(),
      machine: {
        node: process.version,
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? "unknown",
        platform: `${process.platform} ${process.arch}`,
      },
      options: { sizes, pacedSizes, alerts, quick },
      readDiffPlan,
      reconcile,
      paced,
      ...(naive ? { naive } : {}),
      ...(lastPaced && naive
        ? {
            naiveRatio: {
              requests: naive.requestsUsed / lastPaced.requestsUsed,
              time: naive.wallMs / lastPaced.wallMs,
            },
          }
        : {}),
      ...(alertsRun ? { alerts: alertsRun } : {}),
      ...(webhook ? { webhook } : {}),
      ...(webhookBurst ? { webhookBurst } : {}),
      totalMs: performance.now() - started,
    };
    printReport(results, process.stdout);
    await writeFile(values.out ?? "bench-results.json", `${JSON.stringify(results, null, 2)}\n`);
    log(`numbers written to ${values.out}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
