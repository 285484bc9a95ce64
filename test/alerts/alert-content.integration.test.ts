/**
 * Alert content, "an alert an HR lead can act on", end to end against the emulator and the fake Slack:
 * what happened in the header, the score's movement across passes (from the store, no extra
 * request), HR data from the roster file, a readable time, a next step, and manager DMs only
 * from their threshold up.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadHrisLookup } from "../../src/alerts/hris-lookup.js";
import { SCORES_NAMESPACE } from "../../src/alerts/score-history.js";
import type { Employee } from "../../src/api/spec-records.js";
import { configSchema } from "../../src/config/schema.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { useEmulator } from "../helpers/start-emulator.js";
import { type Harness, messageText, startHarness } from "./support/alert-harness.js";
import { trackedPeople } from "./support/tracked-people.js";

const emulator = useEmulator({ rateLimitPerMinute: 100_000 });

let slack: FakeSlack;
let harness: Harness | undefined;
let dir: string;
let own: Employee[];

beforeEach(async () => {
  await emulator().control.reset();
  slack = await startFakeSlack({ channels: [{ name: "hr-alerts" }, { name: "talent" }] });
  dir = mkdtempSync(join(tmpdir(), "rs-content-"));
  // Read after the reset: a reset seeds the people again, under new ids.
  own = await trackedPeople(emulator());
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await slack.close();
  rmSync(dir, { recursive: true, force: true });
});

const ROUTES = [
  { name: "hr", lens: "retention" as const, minRiskScore: 0.5, channel: "hr-alerts" },
  { name: "talent", lens: "poaching" as const, minRiskScore: 0.5, channel: "talent" },
];

async function start(extra: Parameters<typeof startHarness>[2] = {}): Promise<Harness> {
  harness = await startHarness(emulator(), slack, {
    ...extra,
    alerts: { initialLookback: 120, routes: ROUTES, ...extra.alerts },
  });
  await harness.pipeline.poll({ now: new Date(), dryRun: false });
  return harness;
}

/** A roster file with the person (and their manager) in it, as the HRIS export would have them. */
async function rosterWith(person: Employee) {
  const file = join(dir, "hris.csv");
  writeFileSync(
    file,
    [
      "networkUrl,employeeId,name,email,department,title,location,managerEmail,status",
      `${person.networkUrl},E-4711,${person.name},person@example.com,People Operations,HR Business Partner II,Berlin,manager@example.com,Active`,
      "https://www.linkedin.com/in/mara-manager,E-0001,Mara Manager,manager@example.com,People Operations,Head of People,Berlin,,Active",
    ].join("\n"),
  );
  const roster = configSchema.parse({ roster: { file } }).roster;
  return loadHrisLookup(roster, new Date());
}

const texts = (channel: string) => slack.posted(channel).map(messageText);

describe("an alert an HR lead can act on", () => {
  it("shows the score's movement, the HR data, a readable time and a next step; DMs the manager only from high", async () => {
    const [person] = own;
    if (!person) throw new Error("the demo seed has people");
    const hris = await rosterWith(person);
    const h = await start({ hris, alerts: { managerDm: { enabled: true } } });

    await emulator().control.signals({ employeeId: person.id, changeType: "open_to_work", riskScore: 0.52 });
    await h.pipeline.poll({ now: new Date(), dryRun: false });
    // A watch-level change: the channel hears of it, the manager does not (minRiskLevel: high).
    expect(slack.posted("DMANAGER01")).toHaveLength(0);
    expect(
      await h.store.namespace(SCORES_NAMESPACE).get(`retention:${emulator().organizationId}:${person.id}`),
    ).toMatchObject({
      score: 0.52,
    });

    await emulator().control.clearRequests();
    await emulator().control.signals({ employeeId: person.id, changeType: "title_change", riskScore: 0.81 });
    await h.pipeline.poll({ now: new Date(), dryRun: false });
    const second = texts("hr-alerts")[1] ?? "";
    expect(second).toContain(`Changed their job title: ${person.name}`);
    expect(second).toContain("Risk of leaving: High · 0.52 → 0.81");
    expect(second).toContain("*HR data* (from the roster file)");
    expect(second).toContain("E-4711");
    expect(second).toContain("HR Business Partner II");
    expect(second).toContain("People Operations");
    expect(second).toContain("Mara Manager");
    expect(second).toMatch(/(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2}, \d\d:\d\d UTC/);
    expect(second).toContain("*Suggested next step*");
    // The movement came from the store: the pass asked the service for no one's history.
    const asked = await emulator().control.requests();
    expect(asked.filter((r) => r.path.startsWith("/api/v1/employees"))).toEqual([]);
    // High: now the manager hears of it too.
    expect(slack.posted("DMANAGER01").map(messageText).join("\n")).toContain("0.52 → 0.81");
  });

  it("heads a departure with what happened and speaks of openness to a move in the poaching lens", async () => {
    const h = await start();
    const [leaver] = own;
    if (!leaver) throw new Error("the demo seed has people");
    const [competitor] = await h.client.listCompetitors();
    if (!competitor) throw new Error("the demo seed has competitors");
    await emulator().control.signals({ employeeId: leaver.id, changeType: "employee_departed" });
    await emulator().control.signals({ organizationId: competitor.id, changeType: "open_to_work", riskScore: 0.9 });
    await h.pipeline.poll({ now: new Date(), dryRun: false });
    const [departure] = slack.posted("hr-alerts");
    expect(departure?.text).toMatch(new RegExp(`^Left the company: ${leaver.name}`));
    expect(messageText(departure ?? {})).not.toMatch(/High risk/);
    // The service's summary ("<name> left the company.") would be the third time: it is left out.
    expect(messageText(departure ?? {}).match(/left the company/gi)?.length).toBe(2);
    const [poaching] = texts("talent");
    expect(poaching).toContain(`at ${competitor.name}`);
    expect(poaching).toContain("Openness to a move: High · 0.90");
    expect(poaching).not.toMatch(/risk/i);
  });
});
