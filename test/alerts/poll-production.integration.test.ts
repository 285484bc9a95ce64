/**
 * Polling, "nothing lost, nothing stalled", against the emulator: empty passes advance the
 * cursor, a row erased between two pages hides no other row, and changes without an embedded
 * person are enriched from roster list pages instead of one request each.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CURSOR_NAMESPACE } from "../../src/alerts/poll-changes.js";
import { RetentionClient } from "../../src/api/client.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { startGatedProxy } from "../helpers/gated-proxy.js";
import { useEmulator } from "../helpers/start-emulator.js";
import { type Harness, messageText, ROUTES, startHarness } from "./support/alert-harness.js";
import { startStripProxy } from "./support/strip-proxy.js";

const emulator = useEmulator({ rateLimitPerMinute: 100_000 });

let slack: FakeSlack;
const closers: Array<() => Promise<void>> = [];

beforeEach(async () => {
  await emulator().control.reset();
  slack = await startFakeSlack();
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await slack.close();
});

async function harness(
  options: Parameters<typeof startHarness>[2] = {},
  api: Parameters<typeof startHarness>[0] = emulator(),
): Promise<Harness> {
  const made = await startHarness(api, slack, options);
  closers.push(() => made.close());
  return made;
}

const own = () => emulator().organizationId;

describe("cursors of empty passes", () => {
  it("posts a change that lands between two passes with a look-back shorter than the interval", async () => {
    // The case to reproduce: interval 20 s, look-back 5 s, no overlap to help.
    const h = await harness({ alerts: { ...ROUTES, initialLookback: 5, cursorOverlap: 0 } });
    const start = Date.now();
    const empty = await h.pipeline.poll({ now: new Date(start), dryRun: false });
    const retention = empty.lenses.find((l) => l.lens === `retention:${own()}`);
    expect(retention).toMatchObject({ fetched: 0, fresh: 0 });
    // The empty pass stored a cursor: the next pass starts there, not at its own now - 5 s.
    const stored = await h.store.namespace(CURSOR_NAMESPACE).get<string>(`retention:${own()}`);
    expect(stored).toBeDefined();
    expect(Date.parse(stored ?? "")).toBeLessThanOrEqual(start);

    const [change] = await emulator().control.signals({ count: 1, organizationId: own(), riskScore: 0.8 });
    const next = await h.pipeline.poll({ now: new Date(start + 20_000), dryRun: false });
    expect(next.lenses.find((l) => l.lens === `retention:${own()}`)?.fresh).toBe(1);
    const posted = slack.posted("hr-alerts").map(messageText).join("\n");
    const name = (change?.employee as { name?: string } | undefined)?.name;
    expect(name).toBeDefined();
    expect(posted).toContain(name);
  });

  it("keeps moving the cursor on pass after empty pass", async () => {
    const h = await harness();
    const cursors = h.store.namespace(CURSOR_NAMESPACE);
    const t0 = Date.now();
    await h.pipeline.poll({ now: new Date(t0), dryRun: false });
    const first = await cursors.get<string>(`retention:${own()}`);
    await h.pipeline.poll({ now: new Date(t0 + 600_000), dryRun: false });
    const second = await cursors.get<string>(`retention:${own()}`);
    expect(Date.parse(second ?? "")).toBeGreaterThan(Date.parse(first ?? ""));
  });
});

describe("the passes right after a first poll", () => {
  it("never read further back than alerts.initialLookback, however long the overlap, across a restart too", async () => {
    const h = await harness({ alerts: { ...ROUTES, initialLookback: 120, cursorOverlap: 600 } });
    // Changes 5 minutes old when the daemon first polls: older than its 2-minute look-back, within the overlap.
    const old = await emulator().control.signals({ count: 6, organizationId: own(), riskScore: 0.8 });
    const names = old.map((c) => (c.employee as { name?: string } | undefined)?.name ?? "?");
    const passAfter = async (seconds: number) =>
      h.pipeline.poll({ now: new Date((await emulator().control.advanceClock(seconds)).now), dryRun: false });
    const retention = (report: Awaited<ReturnType<typeof passAfter>>) =>
      report.lenses.find((l) => l.lens === `retention:${own()}`);

    expect(retention(await passAfter(300))).toMatchObject({ fetched: 0, fresh: 0 });
    expect(retention(await passAfter(20))).toMatchObject({ fetched: 0, fresh: 0 });
    await h.restart();
    expect(retention(await passAfter(20))).toMatchObject({ fetched: 0, fresh: 0 });
    expect(slack.posted()).toEqual([]);

    // A change made now is posted: the passes read, only not before the look-back.
    const [fresh] = await emulator().control.signals({ count: 1, organizationId: own(), riskScore: 0.8 });
    expect(retention(await passAfter(20))).toMatchObject({ fresh: 1 });
    const posted = slack.posted("hr-alerts").map(messageText).join("\n");
    expect(posted).toContain((fresh?.employee as { name?: string } | undefined)?.name);
    for (const name of names) expect(posted).not.toContain(`|${name}>`);
  });
});

describe("a row erased between two pages", () => {
  it("hides no other row: the walk starts again from page 1 when the total shrinks", async () => {
    const proxy = await startGatedProxy(emulator().baseUrl);
    closers.push(() => proxy.close());
    const h = await harness({}, { baseUrl: proxy.baseUrl, readKey: emulator().readKey });
    await h.pipeline.poll({ now: new Date(), dryRun: false });

    const changes = await emulator().control.signals({ count: 150, organizationId: own(), riskScore: 0.8 });
    // The newest change is on page 1 (newest first); its person is erased while page 2 is in flight.
    const newest = changes[changes.length - 1];
    if (!newest) throw new Error("no change generated");
    const erased = newest.employeeId;
    const expected = changes.filter((c) => c.employeeId !== erased).map((c) => `chg:${c.id}`);
    const secondPage = proxy.hold(
      (r) =>
        r.method === "GET" &&
        r.path.includes("/changes?") &&
        r.path.includes("page=2") &&
        !r.path.includes("organizationId"),
    );
    const before = proxy.requests.length;
    const pass = h.pipeline.poll({ now: new Date(), dryRun: false });
    const held = await secondPage;
    const writer = new RetentionClient({
      baseUrl: emulator().baseUrl,
      apiKey: emulator().writeKey,
      retryBaseDelayMs: 5,
    });
    try {
      await writer.updateEmployee(erased, { status: "archived" });
      await writer.deleteEmployee(erased, { permanent: true });
    } finally {
      await writer.close();
    }
    held.release();
    const report = await pass;

    // Page 1 was read before the erasure: the erased person's change on it was read too.
    expect(report.lenses.find((l) => l.lens === `retention:${own()}`)?.fetched).toBe(expected.length + 1);
    const handled = await h.pipeline.ledger.handled(expected);
    expect(expected.filter((key) => !handled.has(key))).toEqual([]);
    const reads = proxy.requests
      .slice(before)
      .filter((r) => r.path.includes("/changes?") && !r.path.includes("organizationId"));
    expect(reads.map((r) => new URLSearchParams(r.path.split("?")[1]).get("page"))).toEqual(["1", "2", "1", "2"]);
  });
});

describe("changes without an embedded person", () => {
  it("are enriched from roster list pages: at most 1 request per 100 alerts, none once the roster is known", async () => {
    const proxy = await startStripProxy(emulator().baseUrl);
    closers.push(() => proxy.close());
    const h = await harness({}, { baseUrl: proxy.baseUrl, readKey: emulator().readKey });
    await h.pipeline.poll({ now: new Date(), dryRun: false });
    await emulator().control.clearRequests();

    await emulator().control.signals({ count: 1000, organizationId: own(), riskScore: 0.8 });
    const burst = await h.pipeline.poll({ now: new Date(), dryRun: false });
    expect(burst.alerts).toBe(1000);
    const requests = await emulator().control.requests();
    const single = requests.filter((r) => r.method === "GET" && /^\/api\/v1\/employees\/\d+$/.test(r.path));
    const pages = requests.filter((r) => r.method === "GET" && r.path === "/api/v1/employees");
    expect(single).toEqual([]);
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.length).toBeLessThanOrEqual(10);
    // The people are named, not "Employee #42".
    const text = slack.posted("hr-alerts").map(messageText).join("\n");
    expect(text).not.toContain("Employee #");

    await emulator().control.clearRequests();
    await emulator().control.signals({ count: 52, organizationId: own(), riskScore: 0.8 });
    const next = await h.pipeline.poll({ now: new Date(), dryRun: false });
    expect(next.alerts).toBe(52);
    const after = await emulator().control.requests();
    expect(after.filter((r) => r.method === "GET" && r.path.startsWith("/api/v1/employees"))).toEqual([]);
    expect(h.pipeline.directory.counts.singleReads).toBe(0);
  });
});
