import { describe, expect, it } from "vitest";
import { HealthMonitor } from "../../src/daemon/health-monitor.js";
import { createMetrics } from "../../src/daemon/metrics.js";
import { observePullFailure, observeReconcileFailure } from "../../src/daemon/observe-work.js";
import { RosterPullError, RosterSourceAuthError } from "../../src/errors.js";

const DAY = 86_400_000;

async function needsOperator(metrics: ReturnType<typeof createMetrics>, reason: string): Promise<number | undefined> {
  const gauge = await metrics.needsOperator.get();
  return gauge.values.find((v) => v.labels.reason === reason)?.value;
}

describe("a roster pull that fails", () => {
  it("is retried quietly until no pull has completed for roster.staleAfter, then needs an operator", async () => {
    const metrics = createMetrics();
    const health = new HealthMonitor(60_000, () => 0);
    const error = new RosterPullError("bamboohr", "https://api.bamboohr.com/x answered 503 (4 tries)");
    observePullFailure(metrics, health, error, 0, 3 * 86_400, 2 * DAY);
    expect(health.readiness().notes).toBeUndefined();
    observePullFailure(metrics, health, error, 0, 3 * 86_400, 4 * DAY);
    expect(health.readiness().notes).toEqual([
      expect.stringMatching(/no complete pull from the roster source bamboohr since 1970-01-01T00:00:00\.000Z/),
    ]);
    expect(await needsOperator(metrics, "stale_export")).toBe(1);
  });

  it("needs an operator at once when the HRIS refuses the credential, without the secret", async () => {
    const metrics = createMetrics();
    const health = new HealthMonitor(60_000, () => 0);
    observeReconcileFailure(
      metrics,
      health,
      new RosterSourceAuthError("merge", "api.merge.dev refused the credential (401)"),
    );
    expect(health.readiness().notes).toEqual([expect.stringMatching(/Roster source merge: .*refused the credential/)]);
    expect(await needsOperator(metrics, "reconcile_config")).toBe(1);
  });
});
