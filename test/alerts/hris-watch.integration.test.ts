/**
 * Webhook mode polls only every `alerts.backstopPollInterval`; the HR fields of its alert cards
 * still follow the HRIS export: the leader looks at the file on a timer (driven by the test here)
 * and the next alert after a change shows the new department. A broken export keeps the last good
 * one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Every } from "../../src/alerts/hris-source.js";
import { RetentionClient } from "../../src/api/client.js";
import type { Employee } from "../../src/api/spec-records.js";
import { type ConfiguredDaemon, startConfiguredDaemon } from "../../src/app/configured-daemon.js";
import { loadConfig } from "../../src/config/load-config.js";
import { captureStream } from "../helpers/capture-stream.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../helpers/daemon-world.js";
import { freePort } from "../helpers/free-port.js";
import { until } from "../helpers/until.js";
import { messageText } from "./support/alert-harness.js";
import { trackedPeople } from "./support/tracked-people.js";

let world: DaemonWorld;
beforeAll(async () => {
  world = await startDaemonWorld({ allowLoopbackWebhooks: true });
});
afterAll(async () => {
  await world?.close();
});

/** The export with `person` in `department`. */
const exportWith = (person: Employee, department: string) =>
  [
    "networkUrl,employeeId,name,email,department,title,location,managerEmail,status",
    `${person.networkUrl},E-4711,${person.name},person@example.com,${department},Analyst,Berlin,,Active`,
  ].join("\n");

describe("HR fields in webhook mode", () => {
  it("follow the export: the next alert after a change shows the new department; a broken export keeps the last", async () => {
    const { emulator, slack, files } = world;
    await emulator.control.seedPeople({ count: 3, slugPrefix: "hr", tracked: true });
    const [person] = await trackedPeople(emulator);
    if (!person) throw new Error("seeded people are tracked");
    const webhookPort = await freePort();
    const writer = new RetentionClient({ baseUrl: emulator.baseUrl, apiKey: emulator.writeKey });
    const endpoint = await writer.addWebhook({
      url: `http://127.0.0.1:${webhookPort}/webhooks/retention`,
      employeeWarningSensitivity: 3,
    });
    await writer.close();

    const hrisFile = await files.write("hris.csv", exportWith(person, "Finance"));
    const configFile = await files.write(
      "hris-watch.yaml",
      [
        "alerts:",
        "  initialLookback: 120",
        "  backstopPollInterval: 3600",
        "  routes:",
        "    - { name: all, lens: both, minRiskLevel: low, channel: '#hr-alerts' }",
        `  webhook: { enabled: true, host: 127.0.0.1, port: ${webhookPort} }`,
        "roster:",
        '  schedule: "0 2 1 1 *"',
        "daemon: { port: 0, host: 127.0.0.1 }",
        "",
      ].join("\n"),
    );
    const env = daemonEnv(world, "hris-watch", {
      HRIS_ROSTER_FILE: hrisFile,
      RETENTION_WEBHOOK_SECRETS: endpoint.secret ?? "",
      LOG_LEVEL: "info",
    });
    // The watch's timer, fired by the test: no waiting for 30 s.
    const ticks: Array<() => Promise<void>> = [];
    const every: Every = (_ms, tick) => {
      ticks.push(tick);
      return () => ticks.splice(ticks.indexOf(tick), 1);
    };
    const logs = captureStream();
    const configured: ConfiguredDaemon = await startConfiguredDaemon(
      loadConfig({ file: configFile, env }),
      { argv: [], env, stdout: logs.stream, stderr: logs.stream },
      { hrisEvery: every },
    );
    try {
      await until("the start-up poll pass", () => (logs.text().includes('"msg":"poll pass done"') ? true : undefined));
      const alertShowing = async (department: string) => {
        const before = slack.posted("hr-alerts").length;
        await emulator.control.signals({ employeeId: person.id, changeType: "open_to_work", riskScore: 0.9 });
        const text = await until(`an alert about ${person.name}`, () => {
          const fresh = slack.posted("hr-alerts").slice(before).map(messageText);
          return fresh.find((t) => t.includes(person.name));
        });
        expect(text).toContain("*HR data* (from the roster file)");
        expect(text).toContain(department);
        return text;
      };
      await alertShowing("Finance");

      await files.write("hris.csv", exportWith(person, "Legal Affairs"));
      await Promise.all(ticks.map((tick) => tick()));
      expect(await alertShowing("Legal Affairs")).not.toContain("Finance");

      // Broken (an empty export): the last good one stays, with a warning.
      await files.write("hris.csv", "");
      await Promise.all(ticks.map((tick) => tick()));
      await alertShowing("Legal Affairs");
      expect(logs.text()).toContain("HRIS export unreadable: alerts keep the HR fields of the last export read");
    } finally {
      expect(await configured.stop("test over")).toEqual({ clean: true });
    }
  }, 60_000);
});
