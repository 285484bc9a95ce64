import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { HealthMonitor } from "../../src/daemon/health-monitor.js";
import { createMetrics } from "../../src/daemon/metrics.js";
import { observeReconcile, observeReconcileFailure } from "../../src/daemon/observe-work.js";
import { evaluateReadiness } from "../../src/daemon/readiness.js";
import {
  AuthenticationError,
  ConfigError,
  PaymentRequiredError,
  RosterFileError,
  ServerError,
} from "../../src/errors.js";
import { createLogger } from "../../src/logger.js";
import { readRoster, rosterReadOptions } from "../../src/roster/read-roster.js";
import type { ReconcileReport } from "../../src/roster/report.js";
import { captureStream } from "../helpers/capture-stream.js";
import { registerSecret } from "../helpers/known-secrets.js";

const STALE = 60_000;

describe("evaluateReadiness", () => {
  it("is ready during the start-up grace and not after it without a success", () => {
    expect(evaluateReadiness({ startedAt: 0 }, 1_000, STALE)).toEqual({
      ready: true,
      reason: "starting",
    });
    expect(evaluateReadiness({ startedAt: 0 }, STALE + 1, STALE).ready).toBe(false);
  });

  it("turns not ready on a failure newer than the last success, and ready again after a success", () => {
    const failing = {
      startedAt: 0,
      lastApiSuccessAt: 10,
      lastApiFailure: { at: 20, reason: "ECONNREFUSED" },
    };
    expect(evaluateReadiness(failing, 30, STALE)).toEqual({
      ready: false,
      reason: "service unreachable or failing: ECONNREFUSED",
    });
    expect(evaluateReadiness({ ...failing, lastApiSuccessAt: 25 }, 30, STALE).ready).toBe(true);
  });

  it("turns not ready when the last success is too old or the store is down", () => {
    expect(evaluateReadiness({ startedAt: 0, lastApiSuccessAt: 0 }, STALE + 1, STALE).ready).toBe(false);
    const down = evaluateReadiness({ storeProblem: "SQLITE_FULL", startedAt: 0 }, 1, STALE);
    expect(down).toEqual({ ready: false, reason: "state store unavailable: SQLITE_FULL" });
  });
});

describe("HealthMonitor", () => {
  const apiError = { status: 0, message: "m", method: "GET", path: "/me" };
  it("quarantines on errors only an operator can fix and lifts it after a success", () => {
    let now = 1_000;
    const health = new HealthMonitor(STALE, () => now);
    health.apiSucceeded();
    now += 10;
    health.apiFailed(new AuthenticationError({ ...apiError, status: 401 }));
    expect(health.readiness()).toMatchObject({
      ready: false,
      reason: expect.stringContaining("needs operator action"),
    });
    now += 10;
    health.apiSucceeded();
    expect(health.readiness().ready).toBe(true);
  });

  it("does not quarantine on transient failures, nor on a trial cap", () => {
    let now = 1_000;
    const health = new HealthMonitor(STALE, () => now);
    health.apiFailed(new ServerError({ ...apiError, status: 502 }));
    expect(health.readiness().reason).toMatch(/^service unreachable/);
    now += 10;
    health.apiFailed(new PaymentRequiredError({ ...apiError, status: 402, code: "TRIAL_LIMIT_REACHED" }));
    now += 10;
    health.apiSucceeded();
    expect(health.readiness().ready).toBe(true);
    health.apiFailed(new PaymentRequiredError({ ...apiError, status: 402, code: "SUBSCRIPTION_INACTIVE" }));
    expect(health.readiness().reason).toMatch(/needs operator action/);
  });
});

describe("a replica and the leader lock", () => {
  it("stands by ready only once an attempt at the lock was answered, and not while the lock is unreachable", () => {
    const health = new HealthMonitor(STALE, () => 1_000);
    health.setRole("standby");
    health.leaderLockUnknown("leader lock not tried yet: the replica is starting");
    expect(health.readiness()).toEqual({
      ready: false,
      reason: "leader lock not tried yet: the replica is starting",
      role: "standby",
    });
    health.leaderLockAnswered();
    expect(health.readiness()).toEqual({ ready: true, reason: "standby: another replica leads", role: "standby" });
    health.leaderLockUnknown("leader lock unreachable: connecting: no answer within 10000 ms");
    expect(health.readiness()).toMatchObject({
      ready: false,
      reason: expect.stringMatching(/^leader lock unreachable/),
    });
  });
});

describe("listeners", () => {
  it("is not ready while a listener is starting, whatever else holds", () => {
    const health = new HealthMonitor(STALE, () => 1_000);
    health.apiSucceeded();
    health.listenerStarting("the webhook receiver");
    expect(health.readiness()).toEqual({
      ready: false,
      reason: "starting: the webhook receiver is not listening yet",
    });
    health.listening("the webhook receiver");
    expect(health.readiness()).toEqual({ ready: true, reason: "ok" });
  });
});

describe("a paused request budget", () => {
  it("is not ready while the budget is paused, with the time left, and ready again after", () => {
    const signals = { startedAt: 0, lastApiSuccessAt: 1_000, budgetPausedUntil: 61_000 };
    const paused = evaluateReadiness(signals, 1_500, STALE);
    expect(paused.ready).toBe(false);
    expect(paused.reason).toMatch(/request budget paused for 60 s more .*429/);
    expect(evaluateReadiness(signals, 61_000, STALE).ready).toBe(true);
  });

  it("reads the pause from the rate limiter it watches", () => {
    let now = 0;
    const health = new HealthMonitor(STALE, () => now);
    health.apiSucceeded();
    let pausedUntil = 0;
    health.watchRateBudget(() => pausedUntil);
    expect(health.readiness().ready).toBe(true);
    pausedUntil = 30_000;
    now = 1_000;
    expect(health.readiness()).toMatchObject({ ready: false });
    now = 30_000;
    expect(health.readiness().ready).toBe(true);
  });
});

describe("needs-operator notes", () => {
  it("shows each topic's note on /readyz without making the daemon not ready, until the topic clears it", () => {
    const health = new HealthMonitor(STALE, () => 1_000);
    health.apiSucceeded();
    health.needsOperator("mass_archive_guard", "the guard holds 14 archives");
    health.needsOperator("stale_export", "the export has not changed for 4 days");
    expect(health.readiness()).toEqual({
      ready: true,
      reason: "ok",
      notes: ["needs operator: the guard holds 14 archives", "needs operator: the export has not changed for 4 days"],
    });
    health.needsOperator("mass_archive_guard", undefined);
    expect(health.readiness().notes).toEqual(["needs operator: the export has not changed for 4 days"]);
  });

  it("does not take a configuration or roster file error for the service failing", () => {
    const health = new HealthMonitor(STALE, () => 1_000);
    health.apiSucceeded();
    health.apiFailed(new ConfigError("API key", [{ path: "api.key", message: "read-only" }]));
    health.apiFailed(new RosterFileError("/data/hris.csv", "is empty"));
    expect(health.readiness()).toEqual({ ready: true, reason: "ok" });
  });

  it("turns the metric and the note to needs-operator for a guard, a stale export or a read-only key", async () => {
    const metrics = createMetrics();
    const health = new HealthMonitor(STALE, () => 1_000);
    const report = {
      guard: { managed: 34, percent: 41.2, people: Array(14).fill({}) },
      findings: [{ kind: "stale-export", severity: "warning", message: "the export has not changed for 4 days" }],
      export: { ageSeconds: 4 * 86_400 },
      interrupted: false,
      exitCode: 3,
      deferred: { total: 0 },
      billing: {},
    } as unknown as ReconcileReport;
    observeReconcile(metrics, report, health);
    const text = await metrics.registry.metrics();
    expect(text).toContain('retention_sync_needs_operator{reason="mass_archive_guard"} 1');
    expect(text).toContain('retention_sync_needs_operator{reason="stale_export"} 1');
    expect(text).toContain("retention_sync_roster_export_age_seconds 345600");
    expect(health.readiness().notes?.[0]).toMatch(/needs operator: the mass-archive guard holds 14 archives of the 34/);
    observeReconcileFailure(
      metrics,
      health,
      new ConfigError("API key", [{ path: "api.key", message: "the key is read-only (scopes: read)" }]),
    );
    expect(await metrics.registry.metrics()).toContain('retention_sync_needs_operator{reason="read_only_key"} 1');
    expect(await metrics.registry.metrics()).toContain('retention_sync_reconcile_runs_total{outcome="failed"} 1');
    const routine = { ...report, guard: undefined, findings: [] } as unknown as ReconcileReport;
    observeReconcile(metrics, routine, health);
    const after = await metrics.registry.metrics();
    expect(after).toContain('retention_sync_needs_operator{reason="mass_archive_guard"} 0');
    expect(after).toContain('retention_sync_needs_operator{reason="read_only_key"} 0');
    expect(health.readiness().notes).toBeUndefined();
  });
});

/** An env file's secrets, made up for the test (registered for the log audit). */
const ENV_SECRETS = {
  RETENTION_API_KEY: "rk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0",
  SLACK_BOT_TOKEN: "xoxb-1111-2222-abcdefghijklmnop",
  PGPASSWORD: "correct-horse-battery-staple",
};
for (const [name, value] of Object.entries(ENV_SECRETS)) registerSecret(value, `made-up ${name} of an env file`);
const envLines = Object.entries(ENV_SECRETS).map(([name, value]) => `${name}=${value}`);

async function rosterError(text: string, name = "hris.csv"): Promise<RosterFileError> {
  const file = join(mkdtempSync(join(tmpdir(), "rs-env-roster-")), name);
  writeFileSync(file, text);
  try {
    await readRoster(rosterReadOptions(configSchema.parse({}).roster, file, new Date()));
  } catch (error) {
    if (error instanceof RosterFileError) return error;
    throw error;
  }
  throw new Error("expected a RosterFileError");
}

describe("a roster file that is an env file", () => {
  it.each([
    ["as the header", `${envLines.join("\n")}\n`, "has no profile URL column"],
    ["as the rows", `networkUrl,name\n${envLines.map((l) => `${l},x`).join("\n")}\n`, "none of its 3 rows"],
  ])(
    "%s: /readyz names the file and the kind of problem, no cell; the error masks the values",
    async (_, text, kind) => {
      const error = await rosterError(text);
      const health = new HealthMonitor(STALE, () => 1_000);
      health.apiSucceeded();
      observeReconcileFailure(createMetrics(), health, error);
      const notes = health.readiness().notes ?? [];
      expect(notes).toEqual([
        expect.stringMatching(
          new RegExp(
            `^needs operator: reconcile: the roster file ${error.file} cannot be used \\(${kind}[^)=]*\\); the daemon's log and retention-sync check say why$`,
          ),
        ),
      ]);
      for (const [name, value] of Object.entries(ENV_SECRETS)) {
        expect(notes.join()).not.toContain(name);
        expect(notes.join()).not.toContain(value.slice(0, 8));
        // The logs and the CLI show the message: a short, scrubbed hint.
        expect(error.message).not.toContain(value);
        expect(error.message).not.toContain(value.slice(0, 12));
      }
    },
  );

  it("read as NDJSON: the log line of the failure shows no excerpt of the file, the parser's cause included", async () => {
    const tokenFirst = `${ENV_SECRETS.SLACK_BOT_TOKEN}\n${envLines.join("\n")}\n`;
    const error = await rosterError(tokenFirst, "hris.ndjson");
    const logs = captureStream();
    createLogger({ destination: logs.stream }).error({ err: error }, "job failed");
    expect(logs.text()).toContain("is not valid JSON");
    expect(logs.text()).not.toContain(ENV_SECRETS.SLACK_BOT_TOKEN.slice(0, 10));
  });
});
