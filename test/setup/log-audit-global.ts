/**
 * Global setup (vitest.config.ts `globalSetup`): gives the run its summary folder, removing those
 * of finished runs. After the run, prints one line for the whole run and fails it on any leak, and
 * when the audit was vacuous: no test file reported, or loggers were created but not one line
 * reached the audit. (A run of only pure-code files that create no logger legitimately audits nothing.)
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { type FileAuditSummary, LOG_AUDIT_BASE } from "./log-audit-summary.js";

const LEVEL_ORDER = ["trace", "debug", "info", "warn", "error", "fatal", "text"];

const runDir = join(LOG_AUDIT_BASE, `run-${process.pid}`);

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes what earlier runs left (their process is gone), never a run still going on. */
function removeStaleRuns(): void {
  let names: string[] = [];
  try {
    names = readdirSync(LOG_AUDIT_BASE);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /^run-(\d+)$/.exec(name)?.[1];
    if (pid === undefined || !isRunning(Number(pid)) || Number(pid) === process.pid) {
      rmSync(join(LOG_AUDIT_BASE, name), { recursive: true, force: true });
    }
  }
}

function readSummaries(): FileAuditSummary[] {
  let names: string[];
  try {
    names = readdirSync(runDir).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  return names.map((n) => JSON.parse(readFileSync(join(runDir, n), "utf8")) as FileAuditSummary);
}

export function setup(project: TestProject): void {
  removeStaleRuns();
  mkdirSync(runDir, { recursive: true });
  project.provide("logAuditDir", runDir);
}

export function teardown(): void {
  const summaries = readSummaries();
  const total = { lines: 0, loggers: 0, leaks: 0 };
  const byLevel: Record<string, number> = {};
  for (const s of summaries) {
    total.lines += s.lines;
    total.loggers += s.loggers;
    total.leaks += s.leaks;
    for (const [level, n] of Object.entries(s.byLevel)) byLevel[level] = (byLevel[level] ?? 0) + n;
  }
  const levels = LEVEL_ORDER.filter((l) => byLevel[l]).map((l) => `${l} ${(byLevel[l] ?? 0).toLocaleString("en")}`);
  const leaking = summaries.filter((s) => s.leaks > 0).map((s) => s.file);
  console.log(
    `log audit: ${total.lines.toLocaleString("en")} lines (${levels.join(", ") || "none"}) from ${summaries.length} test files, ` +
      `${total.loggers.toLocaleString("en")} loggers, ${total.leaks} secret leak(s)${leaking.length ? ` in ${leaking.join(", ")}` : ""}`,
  );
  if (total.leaks > 0) throw new Error(`log audit: secrets leaked into log lines of ${leaking.join(", ")}`);
  if (summaries.length === 0)
    throw new Error("log audit: no test file reported (is test/setup/log-audit.ts in setupFiles?)");
  if (total.lines === 0 && total.loggers > 0) {
    throw new Error(`log audit: ${total.loggers} loggers were created but no line reached the audit`);
  }
}
