/**
 * Routing, "routing that does what the config says", against the emulator and the fake Slack:
 * departures obey every filter but the score, slack.channel catches what no route took, routes
 * can stop the walk (`continue: false`), departments and locations match like real exports.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Employee } from "../../src/api/spec-records.js";
import { runCli } from "../cli/cli-harness.js";
import { captureLogs } from "../helpers/capture-logs.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { useEmulator } from "../helpers/start-emulator.js";
import { type Harness, messageText, startHarness } from "./support/alert-harness.js";
import { trackedPeople } from "./support/tracked-people.js";

const emulator = useEmulator({ rateLimitPerMinute: 100_000 });

let slack: FakeSlack;
let harness: Harness | undefined;
let people: Employee[] = [];

beforeEach(async () => {
  await emulator().control.reset();
  slack = await startFakeSlack({
    channels: ["hr-alerts", "finance", "departures", "talent", "berlin"].map((name) => ({ name })),
  });
  // Read after the reset: a reset seeds the people again, under new ids.
  people = await trackedPeople(emulator());
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await slack.close();
});

function someone(where: (p: Employee) => boolean): Employee {
  const found = people.find(where);
  if (!found) throw new Error("the demo seed has such a person");
  return found;
}

async function start(options: Parameters<typeof startHarness>[2]): Promise<Harness> {
  harness = await startHarness(emulator(), slack, options);
  // Seeded history is older than the look-back: this pass only sets the cursors.
  await harness.pipeline.poll({ now: new Date(), dryRun: false });
  return harness;
}

const signal = (employeeId: number, changeType: string, riskScore = 0.8) =>
  emulator().control.signals({ employeeId, changeType, riskScore });

describe("departures", () => {
  it("skip only the score threshold: a finance open_to_work route does not take a support person's departure", async () => {
    const logs = captureLogs({ level: "warn" });
    const h = await start({
      alerts: {
        initialLookback: 120,
        routes: [{ name: "finance-otw", departments: ["finance"], changeTypes: ["open_to_work"], channel: "finance" }],
      },
      logger: logs.logger,
    });
    const support = someone((p) => p.department === "support");
    const finance = someone((p) => p.department === "finance");
    await signal(support.id, "employee_departed");
    await signal(finance.id, "open_to_work", 0.6);
    const report = await h.pipeline.poll({ now: new Date(), dryRun: false });
    expect(slack.posted("finance").map(messageText).join("\n")).toContain(finance.name);
    expect(slack.posted("finance").map(messageText).join("\n")).not.toContain(support.name);
    // No catch-all: counted, reported, and warned about once in the pass.
    expect(report.unrouted).toBe(1);
    const warnings = logs.records().filter((r) => String(r.msg).includes("matched no route"));
    expect(warnings).toHaveLength(1);
  });
});

describe("the catch-all (slack.channel)", () => {
  it("takes what no route took once routes exist, instead of dropping it", async () => {
    const h = await start({
      alerts: {
        initialLookback: 120,
        routes: [{ name: "finance", lens: "retention", departments: ["finance"], channel: "finance" }],
      },
      slack: { channel: "hr-alerts" },
    });
    const support = someone((p) => p.department === "support");
    const finance = someone((p) => p.department === "finance");
    await signal(support.id, "employee_departed");
    await signal(finance.id, "title_change", 0.7);
    const report = await h.pipeline.poll({ now: new Date(), dryRun: false });
    expect(report).toMatchObject({ unrouted: 0, caughtAll: 1 });
    expect(slack.posted("hr-alerts").map(messageText).join("\n")).toContain(support.name);
    expect(slack.posted("finance").map(messageText).join("\n")).toContain(finance.name);
    expect(slack.posted("hr-alerts").map(messageText).join("\n")).not.toContain(finance.name);
  });

  it("poll --once says what was posted, what the catch-all took and what nothing took", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rs-routing-"));
    try {
      const config = join(dir, "config.yaml");
      writeFileSync(
        config,
        [
          "alerts:",
          "  initialLookback: 2m",
          "  routes:",
          "    - name: finance",
          "      lens: retention",
          "      departments: [finance]",
          "      channel: finance",
        ].join("\n"),
      );
      const env = {
        RETENTION_API_URL: emulator().baseUrl,
        RETENTION_API_KEY: emulator().readKey,
        SLACK_BOT_TOKEN: slack.token,
        SLACK_API_URL: slack.url,
        RETENTION_SYNC_STATE: join(dir, "state.sqlite"),
        LOG_LEVEL: "error",
      };
      await runCli(["--config", config, "poll", "--once"], env);
      const support = someone((p) => p.department === "support");
      await signal(support.id, "open_to_work");
      const dropped = await runCli(["--config", config, "poll", "--once"], env);
      expect(dropped.stdout).toContain("poll: 1 new alert(s), 0 message(s) posted");
      expect(dropped.stdout).toContain("poll: 1 retention alert(s) not posted: matched no route");

      await signal(support.id, "new_skills");
      const caught = await runCli(["--config", config, "poll", "--once"], { ...env, SLACK_CHANNEL: "hr-alerts" });
      expect(caught.stdout).toContain(
        "poll: 1 new alert(s) (1 to slack.channel: no route took them), 1 message(s) posted",
      );
      expect(slack.posted("hr-alerts")).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the poaching lens by default", () => {
  it("never reaches slack.channel: not polled without a route or slack.poachingChannel, said once, not as a warning", async () => {
    const logs = captureLogs({ level: "info" });
    const h = await start({ alerts: { initialLookback: 120 }, slack: { channel: "hr-alerts" }, logger: logs.logger });
    const saidBefore = logs.records().length;
    const [competitor] = await h.client.listCompetitors();
    if (!competitor) throw new Error("a competitor");
    const own = someone((p) => p.organizationId === emulator().organizationId);
    await emulator().control.signals({ organizationId: competitor.id, changeType: "open_to_work", riskScore: 0.9 });
    await signal(own.id, "open_to_work");
    const report = await h.pipeline.poll({ now: new Date(), dryRun: false });
    expect(slack.posted("hr-alerts").map(messageText).join("\n")).toContain(own.name);
    expect(slack.posted("hr-alerts")).toHaveLength(1);
    const poaching = report.lenses.filter((l) => l.lens.startsWith("poaching"));
    expect(poaching.length).toBeGreaterThan(0);
    for (const lens of poaching) expect(lens.skipped).toContain("slack.poachingChannel");
    const said = logs
      .records()
      .slice(saidBefore)
      .filter((r) => String(r.msg).startsWith("poaching lens not polled"));
    expect(said.map((r) => r.level)).toEqual([30]);
  });

  it("goes to slack.poachingChannel when it is set; what a route leaves is unrouted, noted once per pass", async () => {
    const logs = captureLogs({ level: "info" });
    const h = await start({
      alerts: {
        initialLookback: 120,
        routes: [{ lens: "poaching", departments: ["no such department"], channel: "berlin" }],
      },
      slack: { channel: "hr-alerts" },
      logger: logs.logger,
    });
    const saidBefore = logs.records().length;
    const [competitor] = await h.client.listCompetitors();
    if (!competitor) throw new Error("a competitor");
    await emulator().control.signals({ organizationId: competitor.id, changeType: "open_to_work", riskScore: 0.9 });
    const report = await h.pipeline.poll({ now: new Date(), dryRun: false });
    expect(report).toMatchObject({ unrouted: 1, unroutedPoaching: 1 });
    expect(slack.posted("hr-alerts")).toHaveLength(0);
    const noted = logs
      .records()
      .slice(saidBefore)
      .filter((r) => String(r.msg).startsWith("1 poaching alert(s) not posted"));
    expect(noted.map((r) => r.level)).toEqual([30]);
    await h.close();
    harness = undefined;

    const talent = await start({
      alerts: { initialLookback: 120 },
      slack: { channel: "hr-alerts", poachingChannel: "talent" },
    });
    await emulator().control.signals({ organizationId: competitor.id, changeType: "open_to_work", riskScore: 0.9 });
    await talent.pipeline.poll({ now: new Date(), dryRun: false });
    // The first start's signal may be posted too (it is inside the look-back): both are poaching alerts.
    expect(slack.posted("talent").length).toBeGreaterThan(0);
    for (const message of slack.posted("talent"))
      expect(messageText(message)).toContain(`Poaching · ${competitor.name}`);
    expect(slack.posted("hr-alerts")).toHaveLength(0);
  });
});

describe("the worked example: retention to #hr-alerts, poaching to #talent, departures only to #departures", () => {
  it("stops a departure at its route with continue: false", async () => {
    const h = await start({
      alerts: {
        initialLookback: 120,
        routes: [
          {
            name: "departures",
            lens: "retention",
            changeTypes: ["employee_departed"],
            channel: "departures",
            continue: false,
          },
          { name: "hr", lens: "retention", channel: "hr-alerts" },
          { name: "talent", lens: "poaching", channel: "talent" },
        ],
      },
    });
    const [leaver, stayer] = people.filter((p) => p.organizationId === emulator().organizationId);
    if (!leaver || !stayer) throw new Error("two own people");
    const [competitor] = await h.client.listCompetitors();
    if (!competitor) throw new Error("a competitor");
    await signal(leaver.id, "employee_departed");
    await signal(stayer.id, "open_to_work");
    await emulator().control.signals({ organizationId: competitor.id, changeType: "open_to_work", riskScore: 0.9 });
    await h.pipeline.poll({ now: new Date(), dryRun: false });
    expect(slack.posted("departures").map(messageText).join("\n")).toContain(leaver.name);
    const hr = slack.posted("hr-alerts").map(messageText).join("\n");
    expect(hr).toContain(stayer.name);
    expect(hr).not.toContain(leaver.name);
    expect(slack.posted("talent")).toHaveLength(1);
  });
});

describe("departments and locations", () => {
  it("match case-insensitively and by wildcard, like 'Berlin*' for 'Berlin, Germany'", async () => {
    const h = await start({
      alerts: {
        initialLookback: 120,
        routes: [
          { name: "berlin", lens: "retention", locations: ["Berlin*"], channel: "berlin" },
          { name: "finance", lens: "retention", departments: ["FINANCE"], channel: "finance" },
        ],
      },
    });
    const berliner = someone((p) => p.location === "Berlin, Germany" && p.department !== "finance");
    const controller = someone((p) => p.department === "finance" && p.location !== "Berlin, Germany");
    await signal(berliner.id, "open_to_work");
    await signal(controller.id, "open_to_work");
    await h.pipeline.poll({ now: new Date(), dryRun: false });
    expect(slack.posted("berlin").map(messageText).join("\n")).toContain(berliner.name);
    expect(slack.posted("berlin")).toHaveLength(1);
    expect(slack.posted("finance").map(messageText).join("\n")).toContain(controller.name);
    expect(slack.posted("finance")).toHaveLength(1);
  });
});
