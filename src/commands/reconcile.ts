import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { openRuntime } from "../app/runtime.js";
import { loadConfig } from "../config/load-config.js";
import { EXIT_RUNTIME, type ExitCode, PlanFileError, UsageError } from "../errors.js";
import { checkSavedPlan } from "../roster/check-saved-plan.js";
import { postReconcileReport } from "../roster/post-report.js";
import {
  applyRun,
  planRun,
  previewRun,
  type ReconcileDeps,
  type ReconcileOptions,
  type RunPlan,
  reconcileOnce,
} from "../roster/reconcile-once.js";
import type { ReconcileReport } from "../roster/report.js";
import { renderReportText } from "../roster/report-text.js";
import { recordRun } from "../roster/run-record.js";
import { parseSavedPlan, type SavedPlan } from "../roster/saved-plan.js";
import { rosterPuller } from "../roster/sources/roster-puller.js";
import { writePrivateFile } from "../write-private-file.js";
import { CONFIG_FLAG, type CommandIO, parseCommandFlags } from "./command-io.js";

export type { ReconcileReport };
export { type ReconcileDeps, type ReconcileOptions, reconcileOnce };

const FLAGS = {
  ...CONFIG_FLAG,
  "dry-run": { type: "boolean" },
  json: { type: "boolean" },
  file: { type: "string" },
  "allow-mass-archive": { type: "boolean" },
  out: { type: "string" },
  plan: { type: "string" },
} as const;

async function readPlan(path: string): Promise<SavedPlan> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new PlanFileError(path, `cannot be read: ${(error as Error).message}`);
  }
  return parseSavedPlan(text, path);
}

/** Writes the plan owner-only (it names people), whole or not at all (`writePrivateFile`). */
async function writePlan(path: string, plan: SavedPlan): Promise<void> {
  try {
    await writePrivateFile(path, `${JSON.stringify(plan, null, 2)}\n`);
  } catch (error) {
    throw new PlanFileError(path, `cannot be written: ${(error as Error).message}`);
  }
}

/**
 * `retention-sync reconcile [--dry-run] [--json] [--file PATH] [--allow-mass-archive]
 * [--out PLAN] [--plan PLAN] [--config PATH]`
 */
export async function run(io: CommandIO): Promise<ExitCode> {
  const { values } = parseCommandFlags("reconcile", io, FLAGS);
  const dryRun = values["dry-run"] === true;
  if (values.out !== undefined && !dryRun) {
    throw new UsageError("reconcile: --out writes a plan and needs --dry-run (reconcile --dry-run --out plan.json)");
  }
  if (values.plan !== undefined && values.out !== undefined) {
    throw new UsageError("reconcile: --plan applies a saved plan; it cannot be combined with --out");
  }
  const config = loadConfig({ ...(values.config !== undefined ? { file: values.config } : {}), env: io.env });
  const saved = values.plan === undefined ? undefined : { plan: await readPlan(values.plan), path: values.plan };
  if (saved && values.file !== undefined && resolve(values.file) !== resolve(saved.plan.file)) {
    throw new UsageError(`reconcile: the plan ${saved.path} is for ${saved.plan.file}, not ${values.file}`);
  }
  // A pull source (roster.source) is pulled again for every run, --plan included; --file reads a file instead.
  const pulls = values.file === undefined && config.roster.source.type !== "file";
  const file = pulls ? undefined : (saved?.plan.file ?? values.file ?? config.roster.file);
  if (!pulls && !file) {
    throw new UsageError(
      "reconcile: no roster file; pass --file PATH, set HRIS_ROSTER_FILE (roster.file), or set roster.source to pull it",
    );
  }
  const outPath = values.out;
  const wantSlack = !dryRun && config.slack.opsChannel !== undefined && config.slack.token !== undefined;
  const runtime = await openRuntime(config, io, { client: true, store: true, slack: wantSlack, delivery: wantSlack });
  try {
    const tty = (io.stderr as NodeJS.WriteStream).isTTY === true && !values.json;
    const pullExport = pulls ? rosterPuller(config, io.env, runtime.logger) : undefined;
    const deps: ReconcileDeps = {
      config,
      client: runtime.bulkClient,
      store: runtime.store,
      logger: runtime.logger,
      ...(pullExport ? { pullExport } : {}),
    };
    const signal = io.signal ? { signal: io.signal } : {};
    const fresh = await planRun(deps, {
      // The plan file names the export by its absolute path: --plan finds it from anywhere.
      ...(file === undefined ? {} : { file: outPath !== undefined ? resolve(file) : file }),
      preview: dryRun,
      allowMassArchive: values["allow-mass-archive"] === true,
      ...signal,
    });
    // --plan: the saved steps are applied only if the plan made now has exactly them.
    const run: RunPlan = saved && fresh.kind === "planned" ? checkSavedPlan(saved, fresh, config.roster) : fresh;
    if (outPath !== undefined && run.kind === "planned") await writePlan(outPath, run.record);
    const report = dryRun
      ? previewRun(deps, run)
      : await applyRun(deps, run, {
          ...signal,
          ...(tty
            ? { onProgress: (done: number, total: number) => io.stderr.write(`\rreconcile: ${done}/${total} steps`) }
            : {}),
        });
    if (tty) io.stderr.write("\n");
    await recordRun(runtime.store, report);
    io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : renderReportText(report));
    if (outPath !== undefined && !values.json) {
      io.stdout.write(`  plan written to ${outPath}: apply exactly it with reconcile --plan ${outPath}\n`);
    }
    if (runtime.delivery && config.slack.opsChannel) {
      await postReconcileReport(runtime.delivery, config.slack.opsChannel, report, runtime.logger);
    }
    return report.exitCode;
  } finally {
    await runtime.close().catch(() => EXIT_RUNTIME);
  }
}
