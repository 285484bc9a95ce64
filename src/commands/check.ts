import { accessSync, constants, existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { alertSettings } from "../alerts/alert-settings.js";
import { lensDestinations } from "../alerts/lens-destinations.js";
import { webhookSecretProblem } from "../alerts/webhook-secret-problem.js";
import type { RetentionClient } from "../api/client.js";
import { openRuntime } from "../app/runtime.js";
import { loadConfig } from "../config/load-config.js";
import type { Config } from "../config/schema.js";
import {
  API_KEY_FIX,
  API_URL_FIX,
  AuthenticationError,
  ConfigError,
  EXIT_USAGE,
  type ExitCode,
  PermissionError,
  RetentionSyncError,
  RosterFileError,
  RosterPullError,
  ServiceUrlError,
} from "../errors.js";
import { type RosterFile, readRoster, rosterReadOptions } from "../roster/read-roster.js";
import { sourceFacts } from "../roster/report-text.js";
import { problemPlace, ROW_ERROR_REASONS, type RowProblemReason } from "../roster/roster-rows.js";
import { rosterPuller } from "../roster/sources/roster-puller.js";
import { checkInteractivity } from "./check-interactivity.js";
import { CheckReport } from "./check-report.js";
import { checkSlack } from "./check-slack.js";
import { checkWebhookEndpoints } from "./check-webhooks.js";
import { CONFIG_FLAG, type CommandIO, parseCommandFlags } from "./command-io.js";

/** Whether the config asks for roster reconciliation (which needs a write key). */
export function rosterReconcileEnabled(config: Config): boolean {
  return config.roster.enabled && config.roster.file !== undefined;
}

/** Whether the key works (GET /me answered), so that the checks needing the service may follow. */
async function checkApi(config: Config, client: RetentionClient, report: CheckReport): Promise<boolean> {
  const where = config.api.url ?? "the service";
  try {
    const me = await client.me();
    const competitors = me.competitors.map((c) => `${c.name} (${c.id})`).join(", ") || "none";
    report.pass(`API key works at ${where}: company ${me.organization.name} (organization ${me.organization.id})`, [
      `competitor workspaces: ${competitors}`,
      `scopes: ${me.scopes.join(", ") || "none"}`,
    ]);
    const canWrite = me.scopes.includes("write");
    if (rosterReconcileEnabled(config) && !canWrite) {
      report.fail(
        "config",
        `Roster reconciliation is enabled (roster file ${config.roster.file}) but the API key is read-only: ` +
          "create a read+write key in the dashboard (Settings, Developers), or unset HRIS_ROSTER_FILE to run alerts only",
      );
    }
    return true;
  } catch (error) {
    if (error instanceof AuthenticationError) {
      report.fail("config", `API key rejected by ${where} (401): ${API_KEY_FIX}`);
    } else if (error instanceof PermissionError) {
      report.fail("config", `API key refused by ${where} (403 ${error.code ?? ""}): the key lacks the needed scope`);
    } else if (error instanceof ServiceUrlError) {
      report.fail("config", `${where} answered 404 for /me: ${API_URL_FIX}`);
    } else {
      const detail = error instanceof Error ? error.message : String(error);
      report.fail("runtime", `Service at ${where} unreachable or failing: ${detail}`);
    }
    return false;
  }
}

const EXCLUDED_WORDS: Partial<Record<RowProblemReason, string>> = {
  terminated: "terminated",
  "out-of-scope": "out of scope (roster.include)",
  "missing-url": "no profile URL",
};

/**
 * Reads the roster file as `reconcile` does (same reader, same rules): a file reconcile would
 * refuse fails here, and one it reads is summed up: rows in scope, rows left out and rows broken,
 * by reason, with the first broken rows' lines.
 */
async function checkRosterFile(config: Config, report: CheckReport, now: Date, env: NodeJS.ProcessEnv): Promise<void> {
  if (!config.roster.enabled) {
    report.note("roster reconciliation off (roster.enabled: false)");
    return;
  }
  const pull = rosterPuller(config, env);
  const configured = config.roster.file;
  if (!pull && !configured) {
    report.note("roster reconciliation off: no roster file (HRIS_ROSTER_FILE / roster.file) and no roster.source");
    return;
  }
  try {
    // A pull source is pulled once, as a reconcile run would, and its export read like a file.
    const pulled = pull ? await pull() : undefined;
    if (pulled) {
      report.pass(`Roster source ${config.roster.source.type} pulled ${pulled.origin}`, [sourceFacts(pulled.facts)]);
    }
    const file = pulled?.file ?? (configured as string);
    const options = rosterReadOptions(config.roster, file, now);
    const roster = await readRoster(
      pulled && pulled.format !== "auto" ? { ...options, format: pulled.format } : options,
    );
    report.pass(
      `Roster ${pulled ? "export" : `file ${file}`} parses: ${roster.rowCount} rows (${roster.format}, mapping ${roster.mapping.preset})`,
      rosterSummary(roster),
    );
  } catch (error) {
    if (error instanceof RosterPullError) {
      report.fail(error.exitCode === EXIT_USAGE ? "config" : "runtime", error.message);
      return;
    }
    if (!(error instanceof RosterFileError)) throw error;
    report.fail("config", `${error.message}${pull ? "" : " (HRIS_ROSTER_FILE)"}`);
  }
}

/** Rows in scope, left out and broken, by reason, with the first broken rows' places. */
function rosterSummary(roster: RosterFile): string[] {
  const counts = new Map<RowProblemReason, number>();
  for (const p of roster.problems) counts.set(p.reason, (counts.get(p.reason) ?? 0) + 1);
  const left = [...counts]
    .filter(([reason]) => !ROW_ERROR_REASONS.has(reason))
    .map(([reason, n]) => `${EXCLUDED_WORDS[reason] ?? reason} ${n}`);
  const broken = [...counts].filter(([reason]) => ROW_ERROR_REASONS.has(reason));
  const brokenRows = broken.reduce((sum, [, n]) => sum + n, 0);
  return [
    `${roster.people.length} in scope${left.length > 0 ? `; not in scope: ${left.join(", ")}` : ""}`,
    brokenRows === 0
      ? "no broken rows"
      : `broken rows: ${brokenRows} (${broken.map(([reason, n]) => `${reason} ${n}`).join(", ")}); reconcile reports them and leaves those people as they are`,
    ...roster.problems
      .filter((p) => ROW_ERROR_REASONS.has(p.reason))
      .slice(0, 5)
      .map((p) => `${problemPlace(p)}: ${p.reason}: ${p.message}`),
    `read as ${roster.mapping.title}: ${roster.mapping.how}`,
    ...roster.notices.map((n) => `note: ${n}`),
  ];
}

/** Postgres state: the database answers and the role may create or use the tables (opening the store proves both). */
async function checkStateDatabase(config: Config, io: CommandIO, report: CheckReport): Promise<void> {
  try {
    const runtime = await openRuntime(config, io, { store: true });
    report.pass(`State database ${runtime.store.location} is reachable and writable`);
    await runtime.close();
  } catch (error) {
    if (!(error instanceof RetentionSyncError)) throw error;
    report.fail("runtime", `State database (RETENTION_SYNC_STATE): ${error.message}`);
  }
}

function checkStatePath(config: Config, report: CheckReport): void {
  const path = config.state.path;
  let dir = dirname(resolve(path));
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    accessSync(existsSync(path) ? path : dir, constants.W_OK);
    report.pass(`State database ${path} is writable`);
  } catch {
    report.fail("config", `State database ${path} (RETENTION_SYNC_STATE): ${dir} is not writable`);
  }
}

/** The webhook receiver on with no signing secret answers every delivery 401: a setting to fix, not a pass. */
function checkWebhookSecrets(config: Config, report: CheckReport): void {
  const problem = webhookSecretProblem(config);
  if (problem) report.fail("config", `${problem.charAt(0).toUpperCase()}${problem.slice(1)}`);
}

/** `check`: verifies config, key, Slack and files; prints one ✓/✗ line per check. */
export async function run(io: CommandIO): Promise<ExitCode> {
  const { values } = parseCommandFlags("check", io, { ...CONFIG_FLAG });
  const report = new CheckReport(io.stdout);
  let config: Config;
  try {
    config = loadConfig({ file: values.config, env: io.env });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const n = error.issues.length;
    report.fail(
      "config",
      `Configuration is invalid (${n} problem${n === 1 ? "" : "s"}):`,
      error.issues.map((i) => `${i.path}: ${i.message}`),
      n,
    );
    io.stdout.write(`${report.summary()}\n`);
    return EXIT_USAGE;
  }
  const source = values.config ?? io.env.RETENTION_SYNC_CONFIG;
  report.pass(`Configuration valid (${source ? `file ${source} + environment` : "environment only, no config file"})`);
  checkWebhookSecrets(config, report);
  if (config.alerts.enabled) {
    for (const line of lensDestinations(alertSettings(config).routing)) report.note(line);
  }

  const missing: string[] = [];
  if (!config.api.url) missing.push("RETENTION_API_URL (api.url)");
  if (!config.api.key) missing.push("RETENTION_API_KEY (api.key)");
  try {
    if (missing.length > 0) {
      report.fail("config", `Service API not configured: set ${missing.join(" and ")}`);
    } else {
      const api = await openRuntime(config, io, { client: true, clientOptions: { maxRetries: 1 } });
      try {
        if (await checkApi(config, api.client, report)) await checkWebhookEndpoints(config, api.client, report);
      } finally {
        await api.close();
      }
    }
    const slackNeeded = config.alerts.enabled || config.slack.opsChannel !== undefined;
    if (!config.slack.token && !slackNeeded) {
      report.note("Slack off: alerts disabled and no ops channel");
    } else if (!config.slack.token) {
      report.fail("config", "Slack not configured: set SLACK_BOT_TOKEN (slack.token)");
    } else {
      const slack = await openRuntime(config, io, {
        slack: true,
        slackRetry: { retries: 1, minTimeout: 200, maxTimeout: 1_000 },
      });
      try {
        const scopes = await checkSlack(config, slack.slack, report);
        await checkInteractivity(config, scopes, report);
      } finally {
        await slack.close();
      }
    }
    await checkRosterFile(config, report, new Date(), io.env);
    if (config.state.url) await checkStateDatabase(config, io, report);
    else checkStatePath(config, report);
  } catch (error) {
    if (error instanceof RetentionSyncError) report.fail("runtime", error.message);
    else throw error;
  }
  io.stdout.write(`${report.summary()}\n`);
  return report.exitCode();
}
