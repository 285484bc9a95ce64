import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Billing, Employee, Me } from "../../src/api/schemas.js";
import { configSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/logger.js";
import {
  KEPT_UNTRACKED_NAMESPACE,
  type KeptUntracked,
  keepUntracked,
  loadKeptUntracked,
  settleKeptUntracked,
} from "../../src/roster/kept-untracked.js";
import {
  planRun,
  previewRun,
  type ReconcileDeps,
  type RunPlan,
  reconcileOnce,
} from "../../src/roster/reconcile-once.js";
import { renderReportSlack } from "../../src/roster/report-slack.js";
import { renderReportText } from "../../src/roster/report-text.js";
import { parseSavedPlan, planDifferences, type SavedPlan } from "../../src/roster/saved-plan.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";
import { canonicalUrl, makePeople, rosterDir, toCsv } from "../helpers/roster-files.js";

const URL_A = canonicalUrl("person-0");

/** `reconcile --dry-run`: the plan made and reported, not applied. */
async function dryRun(deps: ReconcileDeps) {
  return previewRun(deps, await planRun(deps, { preview: true }));
}
const stop: KeptUntracked = { employeeId: 7, stoppedBy: "U0ABC", stoppedAt: "2026-11-20T09:00:00.000Z" };

let store: StateStore;
beforeEach(async () => {
  store = await openStateStore(":memory:");
});
afterEach(async () => {
  await store.close();
});

describe("settleKeptUntracked", () => {
  it("notes a signature and ends holds only while each is still the stop the run read", async () => {
    await keepUntracked(store, URL_A, stop);
    await keepUntracked(store, "https://www.linkedin.com/in/b", { ...stop, employeeId: 8 });
    await settleKeptUntracked(store, {
      record: [[URL_A, { ...stop, rowSignature: "sig" }]],
      end: [{ url: "https://www.linkedin.com/in/b", id: 8, stoppedBy: "U0ABC", stoppedAt: stop.stoppedAt }],
    });
    expect(await loadKeptUntracked(store)).toEqual(new Map([[URL_A, { ...stop, rowSignature: "sig" }]]));

    // Stopped again in Slack while a run was planning: that run's writes leave the new stop alone.
    const again = { ...stop, stoppedBy: "U0XYZ", stoppedAt: "2026-11-24T09:00:00.000Z" };
    await keepUntracked(store, URL_A, again);
    await settleKeptUntracked(store, {
      record: [[URL_A, { ...stop, rowSignature: "other" }]],
      end: [{ url: URL_A, id: 7, stoppedBy: "U0ABC", stoppedAt: stop.stoppedAt }],
    });
    expect(await loadKeptUntracked(store)).toEqual(new Map([[URL_A, again]]));
  });
});

/** A service of one untracked person (id 7, person-0), read-only in spirit: every write is counted. */
function fakeService(tracked: boolean): { client: ReconcileDeps["client"]; writes: string[] } {
  const writes: string[] = [];
  const employee = { id: 7, organizationId: 1, name: "x", networkUrl: URL_A, tracked, status: "active" } as Employee;
  const billing = {
    organizationId: 1,
    seats: {},
    plan: { status: "active", perSeatUsd: 5 },
    estimate: {},
    trial: { onFreeTrial: false },
    seatSettlement: { chargeFailed: false },
    apiSeatAllowance: { perDay: 200, usedLast24h: 0, left: 200 },
  } as Billing;
  const write = (what: string) => {
    writes.push(what);
    return Promise.reject(new Error(`unexpected write ${what}`));
  };
  const client = {
    me: async () => ({ scopes: ["read", "write"] }) as unknown as Me,
    listEmployees: async () => ({ items: [employee], total: 1, page: 1, pageSize: 100, hasMore: false }),
    getBilling: async () => billing,
    bulkAddEmployees: () => write("bulk"),
    addEmployee: () => write("add"),
    updateEmployee: (id: number, patch: unknown) => write(`patch ${id} ${JSON.stringify(patch)}`),
    deleteEmployee: () => write("delete"),
  } as ReconcileDeps["client"];
  return { client, writes };
}

describe("the ops post's hold lists", () => {
  it("mention a Slack user id, and escape a stored value that is not one and the HRIS name", async () => {
    const files = await rosterDir();
    try {
      const people = [{ ...(makePeople(1)[0] as ReturnType<typeof makePeople>[number]), name: "<!channel> Eve" }];
      const file = await files.write("hris.csv", toCsv(people));
      const { client } = fakeService(false);
      const config = configSchema.parse({ api: { url: "http://127.0.0.1:9/api/v1", key: "k" }, roster: { file } });
      await keepUntracked(store, URL_A, { ...stop, stoppedBy: "<@U0ALL> someone" });
      const dry = await dryRun({ config, client, store, logger: silentLogger() });
      const post = JSON.stringify(renderReportSlack(dry).blocks);
      expect(post).toContain("&lt;!channel&gt; Eve");
      expect(post).toContain("stopped in Slack by &lt;@\u2060U0ALL&gt; someone");
      expect(post).not.toContain("<@U0ALL>");
      expect(post).not.toContain("<!channel>");
    } finally {
      await files.cleanup();
    }
  });
});

describe("reconcileOnce with a hold", () => {
  it("a dry run lists who is kept and whose hold would end, and writes nothing; a real run notes the row", async () => {
    const files = await rosterDir();
    try {
      const people = makePeople(1);
      const file = await files.write("hris.csv", toCsv(people));
      const { client, writes } = fakeService(false);
      const config = configSchema.parse({ api: { url: "http://127.0.0.1:9/api/v1", key: "k" }, roster: { file } });
      const deps = { config, client, store, logger: silentLogger() };
      await keepUntracked(store, URL_A, stop);

      const dry = await dryRun(deps);
      expect(dry.keptUntracked.map((k) => [k.url, k.stoppedBy])).toEqual([[URL_A, "U0ABC"]]);
      expect(dry.planned.track).toBe(0);
      expect(await store.namespace(KEPT_UNTRACKED_NAMESPACE).get(URL_A)).toEqual(stop);
      const text = renderReportText(dry);
      expect(text).toContain("  kept untracked (stopped in Slack): 1\n");
      expect(text).toContain(
        `  kept untracked (stopped in Slack) (1):\n    person 0 (E000000, Engineering) ${URL_A} - stopped in Slack by U0ABC on 2026-11-20\n`,
      );
      const post = JSON.stringify(renderReportSlack(dry).blocks);
      expect(post).toContain("stopped in Slack by <@U0ABC> on 2026-11-20");

      const real = await reconcileOnce(deps);
      expect(real.keptUntracked).toHaveLength(1);
      expect(writes).toEqual([]);
      const noted = (await loadKeptUntracked(store)).get(URL_A);
      expect(noted?.rowSignature).toMatch(/^[0-9a-f]{32}$/);

      // The row changes: a dry run says the hold would end (and plans the track), and keeps it.
      const moved = [{ ...(people[0] as (typeof people)[number]), department: "Sales" }];
      await files.write("hris.csv", toCsv(moved));
      const wouldEnd = await dryRun(deps);
      expect(wouldEnd.holdsEnded.map((e) => [e.url, e.cause])).toEqual([[URL_A, "row-changed"]]);
      expect(wouldEnd.planned.track).toBe(1);
      expect(renderReportText(wouldEnd)).toContain(
        `  holds that would end (1):\n    person 0 (E000000, Sales) ${URL_A} - hold ended: HRIS row changed (stopped in Slack by U0ABC on 2026-11-20)\n`,
      );
      expect((await loadKeptUntracked(store)).get(URL_A)).toEqual(noted);
    } finally {
      await files.cleanup();
    }
  });

  it("ends the hold of someone tracked again in a real run only, and posts that run", async () => {
    const files = await rosterDir();
    try {
      const file = await files.write("hris.csv", toCsv(makePeople(1)));
      const { client } = fakeService(true);
      const config = configSchema.parse({ api: { url: "http://127.0.0.1:9/api/v1", key: "k" }, roster: { file } });
      // A run of this export posted already: the next one with nothing new would be quiet.
      expect((await reconcileOnce({ config, client, store, logger: silentLogger() })).quiet).toBe(false);
      await keepUntracked(store, URL_A, stop);
      const dry = await dryRun({ config, client, store, logger: silentLogger() });
      expect(dry.holdsEnded.map((e) => e.cause)).toEqual(["tracked-again"]);
      expect(await loadKeptUntracked(store)).toEqual(new Map([[URL_A, stop]]));
      const real = await reconcileOnce({ config, client, store, logger: silentLogger() });
      expect(real.holdsEnded.map((e) => e.cause)).toEqual(["tracked-again"]);
      // A hold that ended is news: posted, although the export and the plan are the same.
      expect(real.quiet).toBe(false);
      expect(await loadKeptUntracked(store)).toEqual(new Map());
    } finally {
      await files.cleanup();
    }
  });

  it("lists who is kept in a saved plan, and a saved track of someone stopped since is stale for that reason", async () => {
    const files = await rosterDir();
    try {
      const file = await files.write("hris.csv", toCsv(makePeople(1)));
      const { client } = fakeService(false);
      const config = configSchema.parse({ api: { url: "http://127.0.0.1:9/api/v1", key: "k" }, roster: { file } });
      const deps = { config, client, store, logger: silentLogger() };
      const plans: SavedPlan[] = [];
      const onPlan = (run: RunPlan) => {
        if (run.kind === "planned") plans.push(parseSavedPlan(JSON.stringify(run.record), "plan.json"));
      };
      // Before the stop: the plan tracks person 0 (untracked on the service, in a tracked department).
      onPlan(await planRun(deps, { preview: true }));
      await keepUntracked(store, URL_A, stop);
      onPlan(await planRun(deps, { preview: true }));
      const [before, after] = plans;
      expect(before?.steps.map((s) => s.kind)).toEqual(["track"]);
      expect(before?.keptUntracked).toEqual([]);
      expect(after?.steps).toEqual([]);
      expect(after?.keptUntracked?.map((k) => [k.url, k.id, k.stoppedBy])).toEqual([[URL_A, 7, "U0ABC"]]);

      const stale = planDifferences(before as SavedPlan, {
        inputs: after as SavedPlan,
        plan: {
          steps: [],
          seatDelta: 0,
          monthlyCostDeltaUsd: 0,
          deferred: [],
          findings: [],
          guardedArchives: 0,
          heldForBrokenRows: 0,
          waitingToArchive: 0,
          unknownLeftAlone: 0,
          keptUntracked: after?.keptUntracked ?? [],
        },
      });
      expect(stale.steps).toEqual([
        `- track person 0 (E000000, Engineering) ${URL_A}: in the saved plan, now kept untracked (stopped in Slack)`,
      ]);
    } finally {
      await files.cleanup();
    }
  });
});
