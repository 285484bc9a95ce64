import { afterEach, describe, expect, it } from "vitest";
import { type Every, HrisSource } from "../../src/alerts/hris-source.js";
import { configSchema } from "../../src/config/schema.js";
import { captureLogs } from "../helpers/capture-logs.js";
import { canonicalUrl, makePeople, rosterDir, toCsv } from "../helpers/roster-files.js";

/** A timer the test fires by hand: `fire()` runs one tick to its end. */
function manualEvery() {
  const ticks: Array<() => Promise<void>> = [];
  const every: Every = (_ms, tick) => {
    ticks.push(tick);
    return () => ticks.splice(ticks.indexOf(tick), 1);
  };
  return { every, fire: () => Promise.all(ticks.map((tick) => tick())), running: () => ticks.length };
}

describe("HrisSource", () => {
  let cleanup: () => Promise<void> = async () => undefined;
  afterEach(() => cleanup());

  async function exportOf(people: ReturnType<typeof makePeople>) {
    const dir = await rosterDir();
    cleanup = dir.cleanup;
    const file = await dir.write("hris.csv", toCsv(people));
    const logs = captureLogs({ level: "info" });
    const source = new HrisSource(configSchema.parse({ roster: { file } }).roster, logs.logger);
    return { dir, source, logs };
  }

  it("reads the export once while it is unchanged, and again once it changed", async () => {
    const people = makePeople(3);
    const { dir, source } = await exportOf(people);
    await source.refresh(new Date());
    const first = source.current;
    const url = canonicalUrl(people[0]?.slug ?? "");
    expect(first?.(url)?.department).toBe(people[0]?.department);
    // Same file, same lookup object: nothing was parsed again.
    await source.refresh(new Date());
    expect(source.current).toBe(first);

    await dir.write("hris.csv", toCsv(people.map((p, i) => (i === 0 ? { ...p, department: "Moved Department" } : p))));
    await source.refresh(new Date());
    expect(source.current).not.toBe(first);
    expect(source.current?.(url)?.department).toBe("Moved Department");
  });

  it("keeps the last good lookup when the export turns unreadable, warning once per version, until it is fixed", async () => {
    const people = makePeople(3);
    const { dir, source, logs } = await exportOf(people);
    const url = canonicalUrl(people[0]?.slug ?? "");
    await source.refresh(new Date());
    await dir.write("hris.csv", "");
    await source.refresh(new Date());
    await source.refresh(new Date());
    expect(source.current?.(url)?.department).toBe(people[0]?.department);
    const warnings = logs.records().filter((r) => r.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toBe(
      "HRIS export unreadable: alerts keep the HR fields of the last export read; fix or replace the file",
    );
    expect(JSON.stringify(warnings[0])).toContain("is empty");

    await dir.write("hris.csv", toCsv(people.map((p) => ({ ...p, department: "Fixed" }))));
    await source.refresh(new Date());
    expect(source.current?.(url)?.department).toBe("Fixed");
  });

  it("follows the export on the watch's timer while leading, and stops with the term", async () => {
    const people = makePeople(2);
    const { dir, source } = await exportOf(people);
    const url = canonicalUrl(people[1]?.slug ?? "");
    const timer = manualEvery();
    const watch = source.watch(timer.every);
    await watch.start();
    expect(source.current?.(url)?.department).toBe(people[1]?.department);
    await dir.write("hris.csv", toCsv(people.map((p) => ({ ...p, department: "Legal Affairs" }))));
    await timer.fire();
    expect(source.current?.(url)?.department).toBe("Legal Affairs");
    await watch.stop();
    expect(timer.running()).toBe(0);
  });

  it("has nothing to look up without a roster file", async () => {
    const source = new HrisSource(configSchema.parse({}).roster, captureLogs().logger);
    await source.refresh(new Date());
    expect(source.current).toBeUndefined();
  });
});
