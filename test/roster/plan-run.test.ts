import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Billing, Employee, Me } from "../../src/api/schemas.js";
import { configSchema } from "../../src/config/schema.js";
import { StalePlanError } from "../../src/errors.js";
import { silentLogger } from "../../src/logger.js";
import { checkSavedPlan } from "../../src/roster/check-saved-plan.js";
import { applyRun, planRun, previewRun, type ReconcileDeps } from "../../src/roster/reconcile-once.js";
import { MEMORY_KEY, MEMORY_NAMESPACE } from "../../src/roster/stored-roster-memory.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";
import { canonicalUrl, makePeople, rosterDir, toCsv } from "../helpers/roster-files.js";

const URL_A = canonicalUrl("person-0");

/** A service of one tracked person (person-0): nothing to change for an export of that person; a write fails the test. */
function oneTrackedPerson(): ReconcileDeps["client"] {
  const employee = { id: 7, organizationId: 1, name: "x", networkUrl: URL_A, tracked: true, status: "active" };
  const billing = {
    organizationId: 1,
    seats: {},
    plan: { status: "active", perSeatUsd: 5 },
    estimate: {},
    trial: { onFreeTrial: false },
    seatSettlement: { chargeFailed: false },
    apiSeatAllowance: { perDay: 200, usedLast24h: 0, left: 200 },
  } as Billing;
  const write = () => Promise.reject(new Error("unexpected write"));
  return {
    me: async () => ({ scopes: ["read", "write"] }) as unknown as Me,
    listEmployees: async () => ({
      items: [employee as Employee],
      total: 1,
      page: 1,
      pageSize: 100,
      hasMore: false,
    }),
    getBilling: async () => billing,
    bulkAddEmployees: write,
    addEmployee: write,
    updateEmployee: write,
    deleteEmployee: write,
  } as ReconcileDeps["client"];
}

let store: StateStore;
beforeEach(async () => {
  store = await openStateStore(":memory:");
});
afterEach(async () => {
  await store.close();
});

describe("planRun and applyRun", () => {
  it("plans without writing anything; the preview reports it, the apply writes the memory", async () => {
    const files = await rosterDir();
    try {
      const file = await files.write("hris.csv", toCsv(makePeople(1)));
      const config = configSchema.parse({ api: { url: "http://127.0.0.1:9/api/v1", key: "k" }, roster: { file } });
      const deps: ReconcileDeps = { config, client: oneTrackedPerson(), store, logger: silentLogger() };
      const memory = () => store.namespace(MEMORY_NAMESPACE).get(MEMORY_KEY);

      const plan = await planRun(deps, { preview: true });
      expect(plan.kind).toBe("planned");
      expect(await memory()).toBeUndefined();
      const preview = previewRun(deps, plan);
      expect(preview.dryRun).toBe(true);
      expect(await memory()).toBeUndefined();

      const applied = await applyRun(deps, await planRun(deps));
      expect(applied.dryRun).toBe(false);
      expect(applied.exitCode).toBe(0);
      expect(await memory()).toBeDefined();
    } finally {
      await files.cleanup();
    }
  });

  it("checks a saved plan against a fresh one: the same steps pass, other steps are stale", async () => {
    const files = await rosterDir();
    try {
      const file = await files.write("hris.csv", toCsv(makePeople(1)));
      const config = configSchema.parse({ api: { url: "http://127.0.0.1:9/api/v1", key: "k" }, roster: { file } });
      const deps: ReconcileDeps = { config, client: oneTrackedPerson(), store, logger: silentLogger() };
      const fresh = await planRun(deps);
      if (fresh.kind !== "planned") throw new Error("expected a plan");

      const same = checkSavedPlan({ plan: fresh.record, path: "plan.json" }, fresh, config.roster);
      expect(same.plan.steps).toEqual(fresh.plan.steps);

      const archive = {
        kind: "archive" as const,
        id: 7,
        tracked: true,
        url: URL_A,
        who: {},
        reason: { why: "left" as const, missingExports: 2 },
      };
      const other = { ...fresh.record, steps: [archive] };
      expect(() => checkSavedPlan({ plan: other, path: "plan.json" }, fresh, config.roster)).toThrow(StalePlanError);
    } finally {
      await files.cleanup();
    }
  });
});
