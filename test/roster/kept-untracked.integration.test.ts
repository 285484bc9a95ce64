import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RetentionClient } from "../../src/api/client.js";
import { configSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/logger.js";
import { keepUntracked, loadKeptUntracked } from "../../src/roster/kept-untracked.js";
import { reconcileOnce } from "../../src/roster/reconcile-once.js";
import { renderReportText } from "../../src/roster/report-text.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";
import { canonicalUrl, type HrisPerson, makePeople, rosterDir, toCsv } from "../helpers/roster-files.js";
import { useEmulator } from "../helpers/start-emulator.js";

const emulator = useEmulator({ seed: "empty", rateLimitPerMinute: 100_000, addHoldMs: 0 });

let client: RetentionClient;
let store: StateStore;
let files: Awaited<ReturnType<typeof rosterDir>>;
beforeEach(async () => {
  await emulator().control.reset();
  client = new RetentionClient({
    baseUrl: emulator().baseUrl,
    apiKey: emulator().writeKey,
    requestsPerMinute: 100_000,
    retryBaseDelayMs: 5,
    maxRetries: 2,
  });
  store = await openStateStore(":memory:");
  files = await rosterDir();
});
afterEach(async () => {
  await client.close();
  await store.close();
  await files.cleanup();
});

const ADA = canonicalUrl("person-0");
const STOPPER = "U0STOPPER";

async function reconcile(people: readonly HrisPerson[]) {
  // A new export each time (a distinct mtime): the hold must outlive exports of the same row.
  const file = await files.write("hris.csv", toCsv(people));
  const config = configSchema.parse({
    api: { url: emulator().baseUrl, key: emulator().writeKey },
    roster: { file },
  });
  return reconcileOnce({ config, client, store, logger: silentLogger() });
}

async function onService(url: string): Promise<{ id: number; tracked: boolean; status: string }> {
  for await (const e of client.iterateEmployees({ pageSize: 100 })) if (e.networkUrl === url) return e;
  throw new Error(`${url} is not on the emulator's roster`);
}

/** What the Slack "Stop tracking" button does: PATCH tracked:false, then the hold. */
async function stopInSlack(url: string): Promise<number> {
  const { id } = await onService(url);
  await client.updateEmployee(id, { tracked: false });
  // A second before now: the next run surely starts after the stop.
  const stoppedAt = new Date(Date.now() - 1000).toISOString();
  await keepUntracked(store, url, { employeeId: id, stoppedBy: STOPPER, stoppedAt });
  return id;
}

describe("people stopped in Slack stay untracked (emulator, real HTTP)", () => {
  it("keeps them untracked across exports until their HRIS row changes", async () => {
    const people = makePeople(20);
    const first = await reconcile(people);
    expect(first.applied?.addedTracked).toBe(20);
    expect((await onService(ADA)).tracked).toBe(true);

    const id = await stopInSlack(ADA);
    expect((await onService(ADA)).tracked).toBe(false);

    const kept = await reconcile(people);
    expect(kept.planned.track).toBe(0);
    expect(kept.writeRequests).toBe(0);
    expect(kept.keptUntracked).toEqual([
      {
        url: ADA,
        id,
        who: { line: 2, name: "person 0", employeeId: "E000000", department: "Engineering" },
        stoppedBy: STOPPER,
        stoppedAt: expect.any(String),
      },
    ]);
    expect(renderReportText(kept)).toContain(
      `kept untracked (stopped in Slack) (1):\n    person 0 (E000000, Engineering) ${ADA} - stopped in Slack by ${STOPPER}`,
    );
    expect((await onService(ADA)).tracked).toBe(false);
    expect((await loadKeptUntracked(store)).get(ADA)?.rowSignature).toBeDefined();

    // Another export with the same row: still kept.
    const again = await reconcile(people);
    expect(again.keptUntracked.map((k) => k.url)).toEqual([ADA]);
    expect((await onService(ADA)).tracked).toBe(false);

    // Ada moves to Sales: the hold ends and she is tracked again.
    const moved = people.map((p) => (p.slug === "person-0" ? { ...p, department: "Sales" } : p));
    const changed = await reconcile(moved);
    expect(changed.holdsEnded.map((e) => [e.url, e.cause])).toEqual([[ADA, "row-changed"]]);
    expect(changed.keptUntracked).toEqual([]);
    expect(changed.applied?.tracked).toBe(1);
    expect(renderReportText(changed)).toContain("hold ended: HRIS row changed");
    expect((await onService(ADA)).tracked).toBe(true);
    expect(await loadKeptUntracked(store)).toEqual(new Map());
  });

  it("ends the hold when someone tracks them again, and when they are archived", async () => {
    // Twenty: one archive stays under the mass-archive guard (10 %).
    const people = makePeople(20);
    await reconcile(people);
    const id = await stopInSlack(ADA);
    await reconcile(people);
    await client.updateEmployee(id, { tracked: true });
    const tracked = await reconcile(people);
    expect(tracked.holdsEnded.map((e) => [e.url, e.cause])).toEqual([[ADA, "tracked-again"]]);
    expect(await loadKeptUntracked(store)).toEqual(new Map());

    // Stopped again, then terminated in the HRIS: archived as ever, and the hold goes with it.
    await stopInSlack(ADA);
    const leaving = people.map((p) => (p.slug === "person-0" ? { ...p, status: "Terminated" } : p));
    const archived = await reconcile(leaving);
    expect(archived.applied?.archived).toBe(1);
    expect(archived.holdsEnded.map((e) => [e.url, e.cause])).toEqual([[ADA, "archived"]]);
    expect((await onService(ADA)).status).toBe("archived");
    expect(await loadKeptUntracked(store)).toEqual(new Map());
  });
});
