/**
 * Setup file (vitest.config.ts `setupFiles`), run before every test file in its worker: swaps
 * src/logger.ts's `createLogger` and `silentLogger`, and the emulator package's `silentLogger`
 * (packages/emulator/src/logger.ts), for audited ones (test/setup/audited-logger.ts).
 * A `vi.mock` in a setup file applies to the whole module graph of the test file that follows,
 * so loggers created inside src code are audited too (test/logging/log-audit.integration.test.ts proves it).
 * After the file's own hooks, scans every audited line for known secrets and secret patterns,
 * writes a summary for the global report (log-audit-global.ts) and fails the file on a leak.
 * A test file that mocks src/logger.ts itself would replace this hook: wrap the audited module instead.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, expect, inject, vi } from "vitest";
import { forgetSecrets, knownSecrets } from "../helpers/known-secrets.js";
import { collectAudit, findLeaks, formatLeakReport, levelName, resetAudit } from "../helpers/log-audit.js";
import { type FileAuditSummary, LOG_AUDIT_BASE } from "./log-audit-summary.js";

vi.mock(import("../../src/logger.js"), async (importOriginal) => {
  const original = await importOriginal();
  const { auditedCreateLogger, auditedSilentLogger } = await import("./audited-logger.js");
  return { ...original, createLogger: auditedCreateLogger(original.createLogger), silentLogger: auditedSilentLogger };
});
// The emulator package's default logger (it writes nothing) likewise: every emulator the suite
// starts without a logger of its own, daemon tests and the package's tests alike, is audited.
vi.mock(import("../../packages/emulator/src/logger.js"), async (importOriginal) => {
  const original = await importOriginal();
  const { auditedSilentLogger } = await import("./audited-logger.js");
  return { ...original, silentLogger: auditedSilentLogger };
});

resetAudit();
forgetSecrets();

const SHOWN_LEAKS = 20;

// Registered before the test file's hooks, so (hooks run as a stack) it runs after all of them.
afterAll(async () => {
  const testPath = expect.getState().testPath;
  const file = testPath ? relative(process.cwd(), testPath) : "(unknown test file)";
  const { lines, loggers } = await collectAudit();
  const byLevel: Record<string, number> = {};
  for (const { line } of lines) {
    const level = levelName(line);
    byLevel[level] = (byLevel[level] ?? 0) + 1;
  }
  const secrets = knownSecrets();
  const leaks = findLeaks(lines, secrets);
  const summary: FileAuditSummary = {
    file,
    lines: lines.length,
    byLevel,
    loggers,
    knownSecrets: secrets.length,
    leaks: leaks.length,
    firstLeaks: leaks.slice(0, SHOWN_LEAKS),
  };
  // without the global setup (another config) the summary lands in the base folder
  const dir = inject("logAuditDir") ?? LOG_AUDIT_BASE;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${file.replace(/[^A-Za-z0-9.-]+/g, "_")}.json`), JSON.stringify(summary));
  if (leaks.length > 0) throw new Error(formatLeakReport(file, leaks, SHOWN_LEAKS));
});
