import { execFile } from "node:child_process";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { PullInput, PullMeasurement } from "./measure-pull.js";
import { median } from "./median.js";
import {
  hrisPeople,
  PULL_LABELS,
  PULL_SOURCES,
  type PullSourceName,
  type StartedFake,
  startFake,
} from "./pull-fixture.js";
import { type RosterShape, writeHrisCsv } from "./roster-fixture.js";

const execFileAsync = promisify(execFile);
const childScript = fileURLToPath(new URL("./measure-pull.js", import.meta.url));

/** The target: each HTTP source within this multiple of the file source's CPU and peak RSS. */
export const PULL_RATIO_TARGET = 2;

/**
 * Which file source a pull's target is judged against: the CSV of the same people, or the pull's
 * own document read as a file where the vendor's document is inherently bigger than the CSV
 * (Merge's expanded employees: 236 MB for 100,000 people, three times the CSV's cost to read).
 */
export const PULL_TARGET_BASE: Record<PullSourceName, "csv" | "own file"> = {
  https: "csv",
  bamboohr: "csv",
  "bamboohr-report": "csv",
  merge: "own file",
};

/** Whether a pull variant meets the target against its base. */
export function meetsPullTarget(variant: PullVariant): boolean {
  if (variant.kind !== "pull" || variant.source === undefined) return false;
  const own = PULL_TARGET_BASE[variant.source] === "own file";
  const cpu = own ? variant.ownFileCpuRatio : variant.cpuRatio;
  const rss = own ? variant.ownFileRssRatio : variant.rssRatio;
  return cpu !== undefined && rss !== undefined && cpu <= PULL_RATIO_TARGET && rss <= PULL_RATIO_TARGET;
}

/** One way of getting the roster measured: the CSV file (the baseline), a pull, or a pull's output read as a file. */
export interface PullVariant {
  readonly name: string;
  readonly kind: "file" | "pull";
  /** The source a pull goes to, or whose pulled file a `file` variant reads. */
  readonly source?: PullSourceName;
  readonly runs: PullMeasurement[];
  /** Parent CPU (the fake serving the pull) during each run: not in the figures. */
  readonly fakeCpuMs: number[];
  /** Requests the fake answered per run. */
  readonly fakeRequests: number[];
  /** Medians over the runs. */
  readonly cpuMs: number;
  readonly pullCpuMs: number;
  readonly peakRssMb: number;
  /** To the CSV file source's medians. */
  readonly cpuRatio: number;
  readonly rssRatio: number;
  /** A pull: to the medians of its own pulled file read as a file source (what the pull adds). */
  readonly ownFileCpuRatio?: number;
  readonly ownFileRssRatio?: number;
}

export interface PullRun {
  readonly shape: RosterShape;
  readonly runs: number;
  readonly mergePageDelayMs: number;
  readonly pinnedToOneCore: boolean;
  readonly variants: PullVariant[];
  /** Whether every variant planned the same steps as the CSV. */
  readonly samePlan: boolean;
}

/** The pulled file each source's pull leaves in its pull folder. */
const PULLED_FILE: Record<PullSourceName, string> = {
  https: "https.json",
  bamboohr: "bamboohr.json",
  "bamboohr-report": "bamboohr.json",
  merge: "merge.json",
};

/**
 * Runs the measurement child pinned to CPU 0 (`taskset -c 0`) where taskset exists, with the
 * source's secrets in its environment, while this process serves the fake; BENCH_CHILD_NODE_ARGS
 * adds node flags (`--cpu-prof --cpu-prof-dir=...` to see where the time goes).
 */
async function runMeasureChild(
  input: PullInput,
  env: Readonly<Record<string, string>>,
): Promise<{ measurement: PullMeasurement; pinned: boolean }> {
  const extra = (process.env.BENCH_CHILD_NODE_ARGS ?? "").split(" ").filter((a) => a.length > 0);
  const args = ["--expose-gc", ...extra, childScript, JSON.stringify(input)];
  const options = { env: { ...process.env, ...env }, maxBuffer: 1 << 20 };
  try {
    const { stdout } = await execFileAsync("taskset", ["-c", "0", process.execPath, ...args], options);
    return { measurement: JSON.parse(stdout) as PullMeasurement, pinned: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    const { stdout } = await execFileAsync(process.execPath, args, options);
    return { measurement: JSON.parse(stdout) as PullMeasurement, pinned: false };
  }
}

export interface PullOptions {
  readonly dir: string;
  readonly billingFile: string;
  readonly shape: RosterShape;
  /** Children per variant; the figures are their medians. */
  readonly runs: number;
  /** How late Merge's fake answers each page (`--pull-page-delay-ms`). */
  readonly mergePageDelayMs: number;
  readonly log: (line: string) => void;
}

/**
 * `npm run bench -- --only pull`: the same people (the plan section's HRIS file: 5 % joiners,
 * 5 % leavers, 1 % rehires) read from a CSV file, and pulled from each vendor's fake
 * (test/helpers/fakes) on 127.0.0.1, then read + diffed + planned, each in a child pinned to one
 * core. Each pull's output is also read as a file source, to split the pull's cost from its
 * format's. Runs are interleaved (every variant once, then again) so that load drift falls on all.
 */
export async function runPull(options: PullOptions): Promise<PullRun> {
  const { dir, shape, log } = options;
  const people = hrisPeople(shape);
  const csv = join(dir, `pull-${shape.size}.csv`);
  await writeHrisCsv(csv, shape);
  const fakes = new Map<PullSourceName, StartedFake>();
  const measured = new Map<string, { runs: PullMeasurement[]; fakeCpuMs: number[]; fakeRequests: number[] }>();
  const order: Array<{ name: string; kind: "file" | "pull"; source?: PullSourceName }> = [
    { name: "file: CSV", kind: "file" },
  ];
  for (const source of PULL_SOURCES) {
    order.push({ name: `pull, ${PULL_LABELS[source]}`, kind: "pull", source });
    order.push({ name: `file: that pull's JSON (${source})`, kind: "file", source });
  }
  let pinnedToOneCore = true;
  try {
    for (const source of PULL_SOURCES) {
      const started = performance.now();
      fakes.set(source, await startFake(source, people, options.mergePageDelayMs));
      log(
        `pull: ${source} fake seeded with ${people.length} people in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }
    const pulledFiles = new Map<PullSourceName, string>();
    for (let run = 1; run <= options.runs; run += 1) {
      for (const variant of order) {
        const fake = variant.source === undefined ? undefined : fakes.get(variant.source);
        const pullDir = await mkdtemp(join(dir, "pulls-"));
        let file = csv;
        if (variant.kind === "file" && variant.source !== undefined) {
          const pulled = pulledFiles.get(variant.source);
          if (pulled === undefined) throw new Error(`no pulled file of ${variant.source} yet`);
          file = pulled;
        }
        const input: PullInput = {
          shape,
          billingFile: options.billingFile,
          source: variant.kind === "pull" && fake ? fake.rosterSource : { type: "file" },
          ...(variant.kind === "file" ? { file } : {}),
          pullDir,
          statePath: join(pullDir, "state.db"),
        };
        const requests0 = fake?.requests() ?? 0;
        const cpu0 = process.cpuUsage();
        try {
          const { measurement, pinned } = await runMeasureChild(input, variant.kind === "pull" && fake ? fake.env : {});
          const parent = process.cpuUsage(cpu0);
          pinnedToOneCore &&= pinned;
          const entry = measured.get(variant.name) ?? { runs: [], fakeCpuMs: [], fakeRequests: [] };
          entry.runs.push(measurement);
          entry.fakeCpuMs.push((parent.user + parent.system) / 1000);
          entry.fakeRequests.push((fake?.requests() ?? 0) - requests0);
          measured.set(variant.name, entry);
          log(
            `pull: run ${run}/${options.runs} ${variant.name}: ${(measurement.cpuUserMs + measurement.cpuSystemMs).toFixed(0)} ms CPU ` +
              `(pull ${measurement.pullCpuMs.toFixed(0)} ms, ${(measurement.pullWallMs / 1000).toFixed(1)} s wall), ` +
              `peak RSS ${measurement.peakRssMb.toFixed(0)} MB, ${measurement.rows} rows`,
          );
          if (variant.kind === "pull" && variant.source !== undefined && !pulledFiles.has(variant.source)) {
            // Kept for the file variant that reads the same bytes (bamboohr-report's document differs
            // from the dataset's: each keeps its own).
            const kept = join(dir, `pulled-${variant.source}-${PULLED_FILE[variant.source]}`);
            await copyFile(join(pullDir, PULLED_FILE[variant.source]), kept);
            pulledFiles.set(variant.source, kept);
          }
        } finally {
          await rm(pullDir, { recursive: true, force: true });
        }
      }
    }
    for (const file of pulledFiles.values()) await rm(file, { force: true });
  } finally {
    for (const fake of fakes.values()) await fake.close();
    await rm(csv, { force: true });
  }
  const summary = (name: string) => {
    const entry = measured.get(name);
    if (!entry) throw new Error(`nothing measured for ${name}`);
    return {
      ...entry,
      cpuMs: median(entry.runs.map((m) => m.cpuUserMs + m.cpuSystemMs)),
      pullCpuMs: median(entry.runs.map((m) => m.pullCpuMs)),
      peakRssMb: median(entry.runs.map((m) => m.peakRssMb)),
    };
  };
  const base = summary("file: CSV");
  const variants: PullVariant[] = order.map((v) => {
    const s = summary(v.name);
    const own = v.kind === "pull" ? order.find((o) => o.kind === "file" && o.source === v.source) : undefined;
    const ownFile = own ? summary(own.name) : undefined;
    return {
      name: v.name,
      kind: v.kind,
      ...(v.source === undefined ? {} : { source: v.source }),
      ...s,
      cpuRatio: s.cpuMs / base.cpuMs,
      rssRatio: s.peakRssMb / base.peakRssMb,
      ...(ownFile
        ? { ownFileCpuRatio: s.cpuMs / ownFile.cpuMs, ownFileRssRatio: s.peakRssMb / ownFile.peakRssMb }
        : {}),
    };
  });
  const plan = (m: PullMeasurement) => JSON.stringify([m.planned, m.deferred, m.rows]);
  const expected = base.runs[0] ? plan(base.runs[0]) : "";
  const samePlan = variants.every((v) => v.runs.every((m) => plan(m) === expected));
  return { shape, runs: options.runs, mergePageDelayMs: options.mergePageDelayMs, pinnedToOneCore, variants, samePlan };
}
