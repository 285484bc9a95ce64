import { describe, expect, it } from "vitest";
import type { BulkAddResult } from "../../src/api/loose-records.js";
import { ApiNetworkError, apiErrorFromStatus } from "../../src/errors.js";
import { silentLogger } from "../../src/logger.js";
import { applyPlan, type RosterWriter } from "../../src/roster/apply-plan.js";
import type { PlanStep, ReconcilePlan } from "../../src/roster/plan-types.js";
import {
  hasInterruptedReconcile,
  JOURNAL_KEY,
  JOURNAL_NAMESPACE,
  type JournalEntry,
} from "../../src/roster/reconcile-journal.js";
import { openStateStore } from "../../src/store/state-store.js";
import { addStep, archiveStep, named, reviveStep, trackStep, untrackStep } from "./plan-builders.js";

const url = (n: number) => `https://www.linkedin.com/in/p-${n}`;
const urls = (from: number, count: number) => Array.from({ length: count }, (_, i) => url(from + i));

function plan(steps: PlanStep[]): ReconcilePlan {
  return {
    steps,
    seatDelta: 0,
    monthlyCostDeltaUsd: 0,
    deferred: [],
    findings: [],
    guardedArchives: 0,
    heldForBrokenRows: 0,
    waitingToArchive: 0,
    unknownLeftAlone: 0,
  };
}

/** A scripted writer: each bulk call answers from `bulk` in turn; every call is recorded. */
function writer(bulk: Array<BulkAddResult | Error>): RosterWriter & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async bulkAddEmployees(input) {
      calls.push(`bulk:${input.tracked}:${input.networkUrls.length}`);
      const next = bulk.shift();
      if (!next) throw new Error("unexpected bulk call");
      if (next instanceof Error) throw next;
      return next;
    },
    async addEmployee(input) {
      calls.push(`add:${input.networkUrl}`);
      return { outcome: "created" } as Awaited<ReturnType<RosterWriter["addEmployee"]>>;
    },
    async updateEmployee(id, patch) {
      calls.push(`patch:${id}:${JSON.stringify(patch)}`);
      return {} as Awaited<ReturnType<RosterWriter["updateEmployee"]>>;
    },
    async deleteEmployee(id, options) {
      calls.push(`delete:${id}:${options?.permanent === true}`);
      return {};
    },
  };
}

const ok = (n: number): BulkAddResult => ({ added: [], addedCount: n, skipped: [] });
const deps = (client: RosterWriter) => ({
  client,
  logger: silentLogger(),
  runId: "r1",
  fingerprint: "f",
  now: () => new Date(),
});

describe("applyPlan", () => {
  it("handles a 207 item by item: duplicate, bad URL, ceiling (which stops later tracked chunks)", async () => {
    const client = writer([
      {
        added: [],
        addedCount: 2,
        skipped: [
          { networkUrl: url(2), reason: "duplicate", kind: "duplicate", message: "already there" },
          { networkUrl: url(3), reason: "invalid_url", kind: "invalid_url", message: "bad" },
          { networkUrl: url(4), reason: "seat_limit", kind: "seat_ceiling", message: "allowance spent" },
        ],
      },
      ok(3),
    ]);
    const result = await applyPlan(
      plan([addStep(true, urls(0, 5)), addStep(true, urls(5, 3)), addStep(false, urls(8, 3))]),
      deps(client),
    );
    expect(client.calls).toEqual(["bulk:true:5", "bulk:false:3"]);
    expect(result.counts).toMatchObject({ addedTracked: 2, addedUntracked: 3, alreadyPresent: 1 });
    expect(result.refusals).toEqual([
      expect.objectContaining({ change: "add", url: url(3), reason: "invalid_url", known: true }),
    ]);
    expect(result.deferred.map((d) => [d.url, d.reason])).toEqual([
      [url(4), "api-seat-allowance"],
      [url(5), "api-seat-allowance"],
      [url(6), "api-seat-allowance"],
      [url(7), "api-seat-allowance"],
    ]);
  });

  it("names every refusal with its reason, known or unknown, and the person", async () => {
    const client = writer([
      {
        added: [],
        addedCount: 1,
        skipped: [
          { networkUrl: url(1), reason: "profile_unavailable", kind: "other", message: "profile is private" },
          // The service echoes a URL in another form: it is still matched to the person.
          { networkUrl: "http://linkedin.com/in/p-2/", reason: "invalid_url", kind: "invalid_url", message: "bad" },
        ],
      },
    ]);
    const people = [named(url(0)), named(url(1), { name: "Ada", employeeId: "E1" }), named(url(2), { name: "Bob" })];
    const result = await applyPlan(plan([{ kind: "add", tracked: true, people }]), deps(client));
    expect(result.refusals).toEqual([
      {
        change: "add",
        url: url(1),
        who: { name: "Ada", employeeId: "E1" },
        reason: "profile_unavailable",
        known: false,
        message: expect.stringMatching(/reason this version does not know \(profile_unavailable\): profile is private/),
      },
      expect.objectContaining({ url: url(2), who: { name: "Bob" }, reason: "invalid_url", known: true }),
    ]);
  });

  it("names all 50 people of a bulk add whose answer was lost, as unconfirmed", async () => {
    const lost = new ApiNetworkError("POST", "/employees/bulk", "socket hang up");
    const client = writer([lost]);
    const result = await applyPlan(plan([addStep(true, urls(0, 50))]), deps(client));
    expect(result.failures).toHaveLength(50);
    expect(result.failures.map((f) => f.url)).toEqual(urls(0, 50));
    expect(result.failures.every((f) => f.unconfirmed && /may have been done/.test(f.message))).toBe(true);
  });

  it("stops adding on 429 ROW_QUOTA_EXCEEDED, keeps its Retry-After, and still archives", async () => {
    const quota = apiErrorFromStatus({
      status: 429,
      code: "ROW_QUOTA_EXCEEDED",
      message: "spent",
      method: "POST",
      path: "/employees/bulk",
      retryAfterSeconds: 3600,
    });
    const client = writer([quota]);
    const result = await applyPlan(
      plan([archiveStep(9, url(9)), addStep(true, urls(0, 2)), addStep(false, urls(2, 2))]),
      deps(client),
    );
    expect(client.calls).toEqual(['patch:9:{"status":"archived"}', "bulk:true:2"]);
    expect(result.retryAfterSeconds).toBe(3600);
    expect(result.counts.archived).toBe(1);
    expect(result.deferred.map((d) => d.reason)).toEqual(Array(4).fill("row-quota-exceeded"));
  });

  it("stops every seat-taking change on 402", async () => {
    const declined = apiErrorFromStatus({
      status: 402,
      code: "SEAT_CHARGE_FAILED",
      message: "declined",
      method: "POST",
      path: "/employees/bulk",
    });
    const client = writer([declined]);
    const result = await applyPlan(
      plan([addStep(true, urls(0, 2)), reviveStep(5, url(5)), untrackStep(6, url(6))]),
      deps(client),
    );
    expect(client.calls).toEqual(["bulk:true:2", 'patch:6:{"tracked":false}']);
    expect(result.deferred.map((d) => [d.change, d.reason])).toEqual([
      ["add", "charge-failed"],
      ["add", "charge-failed"],
      ["revive", "charge-failed"],
    ]);
  });

  it("journals each chunk before sending and stops cleanly when aborted", async () => {
    const store = await openStateStore(":memory:");
    const journal = store.namespace(JOURNAL_NAMESPACE);
    const seenInflight: Array<readonly string[] | undefined> = [];
    const controller = new AbortController();
    const base = writer([ok(2), ok(2)]);
    const client: RosterWriter = {
      ...base,
      async bulkAddEmployees(input) {
        seenInflight.push((await journal.get<JournalEntry>(JOURNAL_KEY))?.inflight);
        return base.bulkAddEmployees(input);
      },
    };
    const result = await applyPlan(
      plan([addStep(true, urls(0, 2)), addStep(true, urls(2, 2)), addStep(true, urls(4, 2))]),
      { ...deps(client), journal, signal: controller.signal, onProgress: (done) => done === 2 && controller.abort() },
    );
    expect(seenInflight).toEqual([urls(0, 2), urls(2, 2)]);
    expect(result.interrupted).toBe(true);
    expect(result.deferred.map((d) => d.reason)).toEqual(["interrupted", "interrupted"]);
    expect(await journal.get<JournalEntry>(JOURNAL_KEY)).toMatchObject({
      completed: false,
      stepsDone: 2,
      stepsTotal: 3,
    });
    expect(await hasInterruptedReconcile(store)).toBe(true);
    await applyPlan(plan([]), { ...deps(writer([])), journal });
    expect(await journal.get<JournalEntry>(JOURNAL_KEY)).toMatchObject({ completed: true });
    expect(await hasInterruptedReconcile(store)).toBe(false);
    await store.close();
  });

  it("skips the track of someone stopped in Slack after the plan was made, and names them", async () => {
    const client = writer([]);
    const stop = { employeeId: 2, stoppedBy: "U0ABC", stoppedAt: "2026-11-24T08:00:00.000Z" };
    const asked: string[] = [];
    const result = await applyPlan(plan([trackStep(1, url(1)), trackStep(2, url(2)), untrackStep(3, url(3))]), {
      ...deps(client),
      heldNow: async (u) => {
        asked.push(u);
        return u === url(2) ? stop : undefined;
      },
    });
    // Only track steps ask; the stopped person's PATCH is never sent.
    expect(asked).toEqual([url(1), url(2)]);
    expect(client.calls).toEqual(['patch:1:{"tracked":true}', 'patch:3:{"tracked":false}']);
    expect(result.counts.tracked).toBe(1);
    expect(result.writeRequests).toBe(2);
    expect(result.keptUntracked).toEqual([
      { url: url(2), id: 2, who: {}, stoppedBy: "U0ABC", stoppedAt: stop.stoppedAt },
    ]);
  });
});
