import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { apiErrorFromStatus, RosterFileError } from "../../src/errors.js";
import { silentLogger } from "../../src/logger.js";
import { reconcileOnce } from "../../src/roster/reconcile-once.js";
import { MEMORY_KEY, MEMORY_NAMESPACE } from "../../src/roster/stored-roster-memory.js";
import { captureLogs } from "../helpers/capture-logs.js";
import { canonicalUrl, makePeople, toCsv, toJson } from "../helpers/roster-files.js";
import { type Harness, startHarness } from "./reconcile-harness.js";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const DAY = 86_400;

describe("reconcile against the emulator", () => {
  it("imports 450 people over three days of API seat allowance, then a second run writes nothing", async () => {
    const file = await h.files.write("hris.csv", toCsv(makePeople(450)));
    const first = await h.reconcile(file);
    expect(first.applied?.addedTracked).toBe(200);
    expect(first.deferred.byReason).toEqual({ "api-seat-allowance": 250 });
    expect(first.seatDelta).toBe(200);
    expect(first.monthlyCostDeltaUsd).toBe(1000);
    // The daily allowance lifts by itself: routine, nothing for a person to do.
    expect(first.attention).toEqual([]);
    expect(first.exitCode).toBe(0);
    expect((await h.takeWrites()).filter((w) => w.path === "/api/v1/employees/bulk")).toHaveLength(4);

    await h.control("clock", { advanceSeconds: DAY + 60 });
    const second = await h.reconcile(file);
    expect(second.applied?.addedTracked).toBe(200);
    expect(second.deferred.total).toBe(50);

    await h.control("clock", { advanceSeconds: DAY + 60 });
    const third = await h.reconcile(file);
    expect(third.applied?.addedTracked).toBe(50);
    expect(third.exitCode).toBe(0);
    const roster = await h.roster();
    expect(new Set(roster.map((e) => e.networkUrl)).size).toBe(450);
    expect(roster.every((e) => e.tracked)).toBe(true);

    await h.takeWrites();
    const again = await h.reconcile(file);
    expect(again.writeRequests).toBe(0);
    expect(await h.takeWrites()).toEqual([]);
    expect(again.exitCode).toBe(0);
  });

  it("archives leavers only after two files without them, and revives rehires", async () => {
    const people = makePeople(30);
    await h.reconcile(await h.files.write("d1.csv", toCsv(people)));
    const without = people.slice(2);
    const run2 = await h.reconcile(await h.files.write("d2.csv", toCsv(without)));
    expect(run2.planned.archive).toBe(0);
    expect(run2.waitingToArchive).toBe(2);
    // The same file run again is not a second missing file; a fresh export of it is.
    const same = await h.reconcile(`${h.files.dir}/d2.csv`);
    expect(same.planned.archive).toBe(0);
    const rerun = await h.reconcile(await h.files.write("d2.csv", toCsv(without)));
    expect(rerun.planned.archive).toBe(2);
    expect(rerun.steps.map((s) => [s.change, s.url, s.who.name, s.reason.why])).toEqual([
      ["archive", canonicalUrl("person-0"), "person 0", "left"],
      ["archive", canonicalUrl("person-1"), "person 1", "left"],
    ]);
    expect(rerun.applied?.archived).toBe(2);
    const archived = (await h.roster()).filter((e) => e.status === "archived").map((e) => e.networkUrl);
    expect(archived.sort()).toEqual([canonicalUrl("person-0"), canonicalUrl("person-1")]);

    const rehired = await h.reconcile(
      await h.files.write("d4.json", toJson([people[0], ...without].filter((p) => p !== undefined))),
    );
    expect(rehired.applied?.revived).toBe(1);
    const back = (await h.roster()).find((e) => e.networkUrl === canonicalUrl("person-0"));
    expect(back).toMatchObject({ status: expect.not.stringMatching("archived"), tracked: true });
  });

  it("holds back a mass archive until approved", async () => {
    const people = makePeople(20);
    await h.reconcile(await h.files.write("m1.csv", toCsv(people)));
    const half = toCsv(people.slice(0, 10));
    await h.reconcile(await h.files.write("m2.csv", half));
    await h.takeWrites();
    const guarded = await h.reconcile(await h.files.write("m3.csv", half));
    expect(guarded.guardedArchives).toBe(10);
    expect(guarded.findings.map((f) => f.kind)).toContain("mass-archive-guard");
    expect(guarded.exitCode).toBe(3);
    expect(await h.takeWrites()).toEqual([]);
    const approved = await h.reconcile(`${h.files.dir}/m3.csv`, {}, { allowMassArchive: true });
    expect(approved.applied?.archived).toBe(10);
  });

  it("caps tracked adds at the trial's seats and defers the rest", async () => {
    await h.control("billing", { trial: true });
    const report = await h.reconcile(await h.files.write("t.csv", toCsv(makePeople(120))));
    expect(report.billing.state).toBe("trial");
    expect(report.applied?.addedTracked).toBe(100);
    expect(report.deferred.byReason).toEqual({ "trial-seat-limit": 20 });
  });

  it("never passes the user's seat and monthly budget", async () => {
    const file = await h.files.write("b.csv", toCsv(makePeople(40)));
    const seats = await h.reconcile(file, { maxSeats: 10 });
    expect(seats.applied?.addedTracked).toBe(10);
    expect(seats.deferred.byReason).toEqual({ "max-seats": 30 });
    const money = await h.reconcile(file, { maxMonthlyUsd: 75 });
    expect(money.applied?.addedTracked).toBe(5);
    expect(money.deferred.byReason).toEqual({ "max-monthly-usd": 25 });
  });

  it("stops adding when a seat charge fails, and adds nobody while it stays failed", async () => {
    await h.control("billing", { chargeFails: true });
    const first = await h.reconcile(await h.files.write("c.csv", toCsv(makePeople(60))));
    expect(first.deferred.total).toBeGreaterThan(0);
    await h.takeWrites();
    const second = await h.reconcile(`${h.files.dir}/c.csv`);
    expect(second.billing.state).toBe("charge-failed");
    expect(second.findings.map((f) => f.kind)).toEqual(["billing-blocked"]);
    expect(Object.keys(second.deferred.byReason)).toEqual(["charge-failed"]);
    expect(await h.takeWrites()).toEqual([]);
    expect(second.exitCode).toBe(3);
  });

  it("changes nothing when the subscription is inactive", async () => {
    await h.control("billing", { status: "canceled" });
    const report = await h.reconcile(await h.files.write("i.csv", toCsv(makePeople(5))));
    expect(report.billing.state).toBe("inactive");
    expect(report.findings[0]?.kind).toBe("billing-blocked");
    expect(report.exitCode).toBe(3);
    expect(await h.takeWrites()).toEqual([]);
  });

  it("counts every read of a run refused at /billing, and changes nothing", async () => {
    const file = await h.files.write("p.csv", toCsv(makePeople(150)));
    await h.reconcile(file);
    await h.takeWrites();
    const refused = apiErrorFromStatus({
      status: 402,
      code: "SUBSCRIPTION_INACTIVE",
      message: "paused",
      method: "GET",
      path: "/billing",
    });
    const client = {
      me: h.client.me.bind(h.client),
      listEmployees: h.client.listEmployees.bind(h.client),
      getBilling: () => Promise.reject(refused),
      bulkAddEmployees: h.client.bulkAddEmployees.bind(h.client),
      addEmployee: h.client.addEmployee.bind(h.client),
      updateEmployee: h.client.updateEmployee.bind(h.client),
      deleteEmployee: h.client.deleteEmployee.bind(h.client),
    };
    const config = configSchema.parse({ roster: { file } });
    const report = await reconcileOnce({ config, client, store: h.store, logger: silentLogger() });
    // GET /me, two pages of 100 people, then /billing refused.
    expect(report.requests).toBe(4);
    expect(report.billing).toEqual({ state: "inactive", planStatus: undefined, perSeatUsd: 5 });
    expect(report.findings.map((f) => f.kind)).toEqual(["billing-blocked"]);
    expect(report.exitCode).toBe(3);
    expect(await h.takeWrites()).toEqual([]);
  });

  it("archives nobody on a truncated file", async () => {
    const people = makePeople(30);
    await h.reconcile(await h.files.write("ok.json", toJson(people)));
    await h.takeWrites();
    const cut = await h.files.write("cut.json", toJson(people).slice(0, 400));
    await expect(h.reconcile(cut)).rejects.toBeInstanceOf(RosterFileError);
    await expect(h.reconcile(cut)).rejects.toBeInstanceOf(RosterFileError);
    expect(await h.takeWrites()).toEqual([]);
  });

  it("finishes an interrupted run with no duplicate adds", async () => {
    await h.control("billing", { apiSeatsPerDay: 1000 });
    const file = await h.files.write("crash.csv", toCsv(makePeople(300)));
    const controller = new AbortController();
    const first = await h.reconcile(
      file,
      {},
      {
        signal: controller.signal,
        onProgress: (done) => {
          if (done === 2) controller.abort();
        },
      },
    );
    expect(first.interrupted).toBe(true);
    expect(first.applied?.addedTracked).toBe(100);
    expect(first.deferred.byReason).toEqual({ interrupted: 200 });
    const second = await h.reconcile(file);
    expect(second.resumedRun).toBeDefined();
    expect(second.applied?.addedTracked).toBe(200);
    expect(second.applied?.alreadyPresent).toBe(0);
    const roster = await h.roster();
    expect(roster).toHaveLength(300);
    expect(new Set(roster.map((e) => e.networkUrl)).size).toBe(300);
    await h.takeWrites();
    expect((await h.reconcile(file)).writeRequests).toBe(0);
    expect(await h.takeWrites()).toEqual([]);
  });

  it("a run cut short after its first add still knows whom it was adding: the memory is written before the apply", async () => {
    await h.control("billing", { apiSeatsPerDay: 1000 });
    const people = makePeople(120);
    const crash = () => {
      throw new Error("killed after the first chunk");
    };
    // onProgress runs after a step's journal entry, outside apply's error handling: like a kill there.
    await expect(h.reconcile(await h.files.write("w1.csv", toCsv(people)), {}, { onProgress: crash })).rejects.toThrow(
      /killed/,
    );
    expect(await h.roster()).toHaveLength(50);
    // The export read after the restart no longer lists the 50 people added before the kill.
    const next = await h.reconcile(await h.files.write("w2.csv", toCsv(people.slice(50))));
    expect(next.resumedRun).toBeDefined();
    expect(next.applied?.addedTracked).toBe(70);
    expect(next.unknownLeftAlone).toBe(0);
    expect(next.waitingToArchive).toBe(50);
    const third = await h.reconcile(await h.files.write("w3.csv", toCsv(people.slice(50))), {
      approveMassArchive: true,
    });
    expect(third.applied?.archived).toBe(50);
  });

  it("starts again from a damaged memory, or one without its version, and archives nobody on it", async () => {
    const people = makePeople(40);
    await h.reconcile(await h.files.write("v1.csv", toCsv(people)));
    const memory = h.store.namespace(MEMORY_NAMESPACE);
    const stored = (await memory.get<string>(MEMORY_KEY)) ?? expect.fail("no memory");
    expect(JSON.parse(stored)).toMatchObject({ version: 2, seen: expect.arrayContaining([canonicalUrl("person-0")]) });
    // A memory without its version (no release wrote one): damaged, so person-0 and person-1,
    // missing now, are not archived on it.
    const urls = people.map((p) => canonicalUrl(p.slug));
    await memory.set(MEMORY_KEY, {
      lastFingerprint: "an-older-export",
      seen: Object.fromEntries(urls.map((u) => [u, true])),
      missing: { [urls[0] ?? ""]: 1, [urls[1] ?? ""]: 1 },
      archivedAt: {},
    });
    const second = await h.reconcile(await h.files.write("v1.csv", toCsv(people.slice(2))), {
      archiveAfterMissingExports: 2,
    });
    expect(second.steps.map((s) => s.url)).toEqual([]);

    await memory.set(MEMORY_KEY, { version: 2, seen: "everyone" });
    const logs = captureLogs({ level: "warn" });
    const third = await h.reconcile(
      await h.files.write("v1.csv", toCsv(people.slice(3))),
      { archiveAfterMissingExports: 2 },
      {},
      logs.logger,
    );
    // Nothing is archived on a memory that was lost: person-2, missing now, is no longer known as
    // someone from the file, and is left alone like anyone the HRIS never listed.
    expect(third.planned.archive).toBe(0);
    // person-0 and person-1 too: the memory the second run started again from never held them.
    expect(third.unknownLeftAlone).toBe(3);
    expect(third.exitCode).toBe(0);
    const warning = logs.records().find((r) => r.namespace === MEMORY_NAMESPACE);
    expect(warning?.msg).toMatch(/unreadable.*starts again empty/);
    expect(warning?.problem).toMatch(/seen/);
  });
});
