import { resolve } from "node:path";

/**
 * Each run writes its per-file summaries to `<base>/run-<pid>/` (the global setup provides the
 * folder to the workers as `logAuditDir`), so runs started at the same time in one checkout do
 * not mix. LOG_AUDIT_DIR moves the base (the nested run of test/logging/log-audit.integration.test.ts).
 */
export const LOG_AUDIT_BASE = resolve(process.env.LOG_AUDIT_DIR ?? "node_modules/.cache/log-audit");

declare module "vitest" {
  export interface ProvidedContext {
    logAuditDir: string;
  }
}

export interface FileAuditSummary {
  readonly file: string;
  readonly lines: number;
  /** trace, debug, info, warn, error, fatal, and "text" for non-JSON child output. */
  readonly byLevel: Readonly<Record<string, number>>;
  /** Loggers created through createLogger / silentLogger. */
  readonly loggers: number;
  readonly knownSecrets: number;
  readonly leaks: number;
  readonly firstLeaks: ReadonlyArray<{ readonly label: string; readonly origin: string; readonly excerpt: string }>;
}
