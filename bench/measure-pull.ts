import { readFile, stat } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { billingSchema } from "../src/api/spec-records.js";
import { configSchema } from "../src/config/schema.js";
import { readRoster, rosterReadOptions } from "../src/roster/read-roster.js";
import { plannedCounts } from "../src/roster/report.js";
import { rosterPuller } from "../src/roster/sources/roster-puller.js";
import { childMain } from "./child-process.js";
import { planFromRoster, servicePeople, settledRss } from "./plan-steps.js";
import type { RosterShape } from "./roster-fixture.js";

/** What the parent asks one measurement child for. */
export interface PullInput {
  readonly shape: RosterShape;
  readonly billingFile: string;
  /** `roster.source`; `{ type: "file" }` reads `file` instead of pulling. */
  readonly source: Record<string, unknown>;
  /** The export of a file source. */
  readonly file?: string;
  /** Where complete pulls are kept (a fresh temporary folder per run: no validators, a whole pull). */
  readonly pullDir: string;
  /** Where the (unused) state path of the config points: beside the pull folder. */
  readonly statePath: string;
}

/** What one child measured: pull + read + diff + plan, the pull's share apart. */
export interface PullMeasurement {
  readonly rows: number;
  readonly wallMs: number;
  readonly cpuUserMs: number;
  readonly cpuSystemMs: number;
  /** CPU of the pull alone (0 for a file), user + system. */
  readonly pullCpuMs: number;
  readonly pullWallMs: number;
  readonly rssBeforeMb: number;
  /** maxRSS once the pull is done (before the read). */
  readonly peakAfterPullMb: number;
  readonly peakRssMb: number;
  /** The export read: its size on disk, the format the reader took, the mapping it chose. */
  readonly exportBytes: number;
  readonly format: string;
  readonly mapping: string;
  /** The source's facts (pages, records, bytes, endpoint); none for a file. */
  readonly facts: Readonly<Record<string, string | number | boolean>>;
  readonly planned: Record<string, number>;
  readonly deferred: number;
}

/**
 * A reconcile run calls `GET /me` through undici before it pulls or reads anything (its first
 * step), so the HTTP client's one-time set-up, compiling its WebAssembly HTTP parser once per
 * process, is never the pull's. One request to a loopback server here, before the measured part,
 * for a file source and a pull source alike.
 */
async function firstRequestOfTheRun(): Promise<void> {
  const server = createServer((_req, res) => res.end("{}"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await request(`http://127.0.0.1:${port}/api/v1/me`);
    await res.body.text();
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/**
 * Child process (`node --expose-gc bench/dist/bench/measure-pull.js <input json>`), pinned to one
 * core by the parent: pulls the export as the daemon does (`rosterPuller`: the configured source,
 * its secrets from this process's environment), then reads, diffs and plans it as measure-plan
 * does, and prints one JSON line. The fake that serves the pull runs in the parent: its CPU is not
 * in these figures.
 */
async function measure(input: PullInput): Promise<PullMeasurement> {
  const { shape } = input;
  const billing = billingSchema.parse(JSON.parse(await readFile(input.billingFile, "utf8")));
  const config = configSchema.parse({
    state: { path: input.statePath },
    roster: {
      archiveAfterMissingExports: 1,
      archiveUnknown: true,
      approveMassArchive: true,
      maxRows: 5_000_000,
      source: input.source,
      ...(input.file === undefined ? {} : { file: input.file }),
    },
  });
  const rules = config.roster;
  const pull = rosterPuller(config, process.env, undefined, undefined, { pullDir: input.pullDir });
  const current = servicePeople(shape);
  await firstRequestOfTheRun();
  const rssBefore = settledRss();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const now = new Date();
  // As reconcileOnce: the pull, then the pulled file read with the format the source names.
  const pulled = pull ? await pull() : undefined;
  const pullCpu = process.cpuUsage(cpu0);
  const pullWallMs = performance.now() - t0;
  const peakAfterPullMb = process.resourceUsage().maxRSS / 1024;
  const file = pulled?.file ?? rules.file;
  if (file === undefined) throw new Error("no roster file");
  const roster = await readRoster({
    ...rosterReadOptions(rules, file, now),
    ...(pulled && pulled.format !== "auto" ? { format: pulled.format } : {}),
  });
  const { plan } = planFromRoster(roster, current, billing, rules, now);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  return {
    rows: roster.rowCount,
    wallMs,
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    pullCpuMs: (pullCpu.user + pullCpu.system) / 1000,
    pullWallMs,
    rssBeforeMb: rssBefore / 2 ** 20,
    peakAfterPullMb,
    peakRssMb,
    exportBytes: (await stat(file)).size,
    format: roster.format,
    mapping: roster.mapping.preset,
    facts: pulled?.facts ?? {},
    planned: plannedCounts(plan),
    deferred: plan.deferred.length,
  };
}

childMain(measure);
