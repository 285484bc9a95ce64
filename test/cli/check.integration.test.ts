import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { fixturePath } from "../roster/vendors/vendor-fixture.js";
import { runCli, startTinyService, type TinyService } from "./cli-harness.js";

let service: TinyService;
let slack: FakeSlack;
let dir: string;
let roster: string;

beforeEach(async () => {
  service = await startTinyService();
  slack = await startFakeSlack();
  dir = mkdtempSync(join(tmpdir(), "rs-check-"));
  roster = join(dir, "hris.csv");
  writeFileSync(roster, "networkUrl,name\nhttps://www.linkedin.com/in/ada,Ada\n");
});
afterEach(async () => {
  await service.close();
  await slack.close();
});

function env(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return {
    RETENTION_API_URL: service.baseUrl,
    RETENTION_API_KEY: service.writeKey,
    SLACK_BOT_TOKEN: slack.token,
    SLACK_API_URL: slack.url,
    SLACK_CHANNEL: "#hr-alerts",
    SLACK_OPS_CHANNEL: "#retention-ops",
    HRIS_ROSTER_FILE: roster,
    RETENTION_SYNC_STATE: join(dir, "state.sqlite"),
    LOG_LEVEL: "silent",
    ...overrides,
  };
}

const failedLines = (stdout: string) => stdout.split("\n").filter((line) => line.startsWith("✗"));

describe("retention-sync check", () => {
  it("all good: reports company, competitors, scopes, Slack and files, exit 0", async () => {
    const result = await runCli(["check"], env());
    expect(result.stderr).toBe("");
    expect(failedLines(result.stdout)).toEqual([]);
    expect(result.stdout).toContain("company Acme Corp (organization 1)");
    expect(result.stdout).toContain("competitor workspaces: Globex (2), Initech (3)");
    expect(result.stdout).toContain("scopes: read, write");
    expect(result.stdout).toMatch(/✓ Slack token works/);
    expect(result.stdout).toMatch(/✓ Slack channel #hr-alerts \(slack.channel \(SLACK_CHANNEL\)\): exists/);
    expect(result.stdout).toMatch(/✓ Slack channel #retention-ops/);
    expect(result.stdout).toMatch(
      /✓ Roster file .*hris.csv parses: 1 rows \(csv, mapping generic\)\n {4}1 in scope\n {4}no broken rows/,
    );
    expect(result.stdout).toContain("All checks passed.");
    expect(result.code).toBe(0);
    // GET /me, then GET /webhooks (the endpoints compared with the receiver's config)
    expect(service.authorizations).toEqual([`Bearer ${service.writeKey}`, `Bearer ${service.writeKey}`]);
    expect(slack.calls.map((c) => c.method)).toEqual(["auth.test", "conversations.list"]);
  });

  it("says where each lens goes: with SLACK_CHANNEL alone, the poaching lens goes nowhere", async () => {
    const result = await runCli(["check"], env());
    expect(result.stdout).toContain(
      "- retention lens: everything at Watch or above → #hr-alerts (slack.channel (SLACK_CHANNEL))\n",
    );
    expect(result.stdout).toContain(
      "- poaching lens: not posted — no route or slack.poachingChannel (SLACK_POACHING_CHANNEL) takes it\n",
    );
    const file = join(dir, "routes.yaml");
    writeFileSync(
      file,
      "alerts:\n  routes:\n    - name: talent\n      lens: poaching\n      channel: poaching-alerts\n",
    );
    const routed = await runCli(["check", "--config", file], env({ SLACK_POACHING_CHANNEL: "#hr-alerts" }));
    expect(routed.stdout).toContain(
      "- poaching lens: routes talent → poaching-alerts; the rest at Watch or above → #hr-alerts (slack.poachingChannel (SLACK_POACHING_CHANNEL))\n",
    );
    expect(routed.stdout).toMatch(
      /✓ Slack channel #hr-alerts \(slack.poachingChannel \(SLACK_POACHING_CHANNEL\)\): exists/,
    );
  });

  it("checks route channels by id with conversations.info", async () => {
    const file = join(dir, "routes.yaml");
    const id = slack.channels.get("poaching-alerts")?.id ?? "";
    writeFileSync(file, `alerts:\n  routes:\n    - lens: poaching\n      channel: ${id}\n`);
    const result = await runCli(["check", "--config", file], env());
    expect(result.stdout).toContain(`✓ Slack channel ${id} (alerts.routes[0].channel): exists`);
    expect(slack.calls.some((c) => c.method === "conversations.info" && c.args.channel === id)).toBe(true);
    expect(result.code).toBe(0);
  });

  it("fails with a clear sentence when reconciliation is enabled but the key is read-only", async () => {
    const result = await runCli(["check"], env({ RETENTION_API_KEY: service.readKey }));
    expect(result.code).toBe(2);
    expect(failedLines(result.stdout)).toEqual([
      expect.stringMatching(/Roster reconciliation is enabled .* but the API key is read-only/),
    ]);
  });

  it("accepts a read-only key when no roster file is configured", async () => {
    const result = await runCli(["check"], env({ RETENTION_API_KEY: service.readKey, HRIS_ROSTER_FILE: undefined }));
    expect(result.stdout).toContain("scopes: read\n");
    expect(result.stdout).toContain("- roster reconciliation off");
    expect(result.code).toBe(0);
  });

  it("a rejected key (401) is a configuration problem: exit 2, and the key is never printed", async () => {
    const result = await runCli(["check"], env({ RETENTION_API_KEY: "rk_revoked_key_987654321" }));
    expect(result.code).toBe(2);
    expect(failedLines(result.stdout)[0]).toMatch(/API key rejected .*\(401\): check RETENTION_API_KEY/);
    expect(result.stdout + result.stderr).not.toContain("rk_revoked_key_987654321");
  });

  it("an unreachable service is a runtime problem: exit 1", async () => {
    const down = service.baseUrl;
    await service.close();
    const result = await runCli(["check"], env({ RETENTION_API_URL: down }));
    expect(failedLines(result.stdout)).toEqual([expect.stringMatching(/^✗ Service at .* unreachable/)]);
    expect(result.code).toBe(1);
    service = await startTinyService(); // for afterEach
  });

  it("a failing service (500) is a runtime problem: exit 1", async () => {
    service.failWith(500);
    const result = await runCli(["check"], env());
    expect(result.code).toBe(1);
    expect(failedLines(result.stdout)).toHaveLength(1);
  });

  it("reports missing and non-member channels, each in its own line, exit 2", async () => {
    slack.addChannel("private-ops", { member: false });
    const result = await runCli(["check"], env({ SLACK_CHANNEL: "#nowhere", SLACK_OPS_CHANNEL: "#private-ops" }));
    expect(result.code).toBe(2);
    expect(failedLines(result.stdout)).toEqual([
      expect.stringMatching(/#nowhere \(slack.channel \(SLACK_CHANNEL\)\): not found/),
      expect.stringMatching(/#private-ops .*: @retention-sync is not a member — run \/invite @retention-sync/),
    ]);
  });

  it("an invalid Slack token is a configuration problem", async () => {
    const result = await runCli(["check"], env({ SLACK_BOT_TOKEN: "xoxb-wrong-token-value" }));
    expect(result.code).toBe(2);
    expect(failedLines(result.stdout)).toEqual([expect.stringMatching(/Slack token rejected \(invalid_auth\)/)]);
    expect(result.stdout).not.toContain("xoxb-wrong-token-value");
  });

  it("a Slack outage is a runtime problem: exit 1", async () => {
    slack.setOutage(true);
    const result = await runCli(["check"], env());
    expect(failedLines(result.stdout)).toEqual([expect.stringMatching(/Slack Web API .* unreachable: HTTP 503/)]);
    expect(result.code).toBe(1);
  });

  it("a missing roster file and missing API settings are named with their env variables", async () => {
    const result = await runCli(
      ["check"],
      env({ HRIS_ROSTER_FILE: join(dir, "missing.csv"), RETENTION_API_URL: undefined }),
    );
    expect(result.code).toBe(2);
    expect(failedLines(result.stdout)).toEqual([
      expect.stringMatching(/Service API not configured: set RETENTION_API_URL/),
      expect.stringMatching(/missing.csv: cannot be read: it does not exist; check roster.file \/ HRIS_ROSTER_FILE/),
    ]);
  });

  it("parses the roster as reconcile does: rows in scope, left out and broken, by reason", async () => {
    writeFileSync(
      roster,
      "networkUrl,name,status\n" +
        "https://www.linkedin.com/in/ada,Ada,Active\n" +
        "https://www.linkedin.com/in/bob,Bob,Part-Time\n" +
        ",Cy,Active\n" +
        "https://example.com/in/dee,Dee,Active\n" +
        "https://www.linkedin.com/in/ada,Ada again,Active\n" +
        "https://www.linkedin.com/in/eve,Eve,Terminated\n",
    );
    const result = await runCli(["check"], env());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("hris.csv parses: 6 rows (csv, mapping generic)");
    expect(result.stdout).toContain("    2 in scope; not in scope: no profile URL 1, terminated 1");
    expect(result.stdout).toContain(
      "    broken rows: 2 (invalid-url 1, duplicate 1); reconcile reports them and leaves those people as they are",
    );
    expect(result.stdout).toMatch(/ {4}line 5: invalid-url: /);
    expect(result.stdout).toMatch(/ {4}line 6: duplicate: same person as line 2/);
  });

  it("says which vendor mapping auto recognised, and names a status column a named mapping leaves unread", async () => {
    const raas = fixturePath("workday", "raas-workers.json");
    const auto = await runCli(["check"], env({ HRIS_ROSTER_FILE: raas }));
    expect(auto.code).toBe(0);
    expect(auto.stdout).toContain("raas-workers.json parses: 10 rows (json, mapping workday)");
    expect(auto.stdout).toContain("4 in scope; not in scope: terminated 2, out of scope (roster.include) 2");
    expect(auto.stdout).toMatch(/record 10 \(line \d+\): invalid-url: /);
    expect(auto.stdout).toMatch(
      /read as Workday .*\(preset workday\): mapping auto: recognised by its records at Report_Entry/,
    );
    const file = join(dir, "generic.yaml");
    writeFileSync(file, "roster:\n  mapping: generic\n");
    const bamboo = fixturePath("bamboohr", "custom-report.json");
    const named = await runCli(["check", "--config", file], env({ HRIS_ROSTER_FILE: bamboo }));
    expect(named.code).toBe(2);
    expect(named.stdout).toContain(
      'has a status key that the mapping does not read: "employmentHistoryStatus" looks like a status or an end date',
    );
    expect(named.stdout).toContain("the file looks like BambooHR");
    expect(named.stdout).toContain("roster.mapping: bamboohr (or auto) reads it");
  });

  it("fails a roster file that reconcile would refuse, with reconcile's own reason", async () => {
    writeFileSync(roster, "networkUrl,name,status\nhttps://www.linkedin.com/in/ada,Ada,Terminated\n");
    const result = await runCli(["check"], env());
    expect(result.code).toBe(2);
    expect(failedLines(result.stdout)).toEqual([
      expect.stringMatching(/hris.csv: none of its 1 rows is in scope .*roster\.include.* \(HRIS_ROSTER_FILE\)$/),
    ]);
  });

  it("Slack is optional when alerts are off and no ops channel is set", async () => {
    const file = join(dir, "no-alerts.yaml");
    writeFileSync(file, "alerts:\n  enabled: false\n");
    const result = await runCli(
      ["check", "--config", file],
      env({ SLACK_BOT_TOKEN: undefined, SLACK_CHANNEL: undefined, SLACK_OPS_CHANNEL: undefined }),
    );
    expect(result.stdout).toContain("- Slack off");
    expect(result.code).toBe(0);
    expect(slack.calls).toEqual([]);
  });

  it("fails a webhook receiver with no signing secret, naming the variable and where the secret comes from", async () => {
    const file = join(dir, "webhook.yaml");
    writeFileSync(file, "alerts:\n  webhook:\n    enabled: true\n");
    service.webhooks = [{ id: "whe_1", url: "https://hooks.example.com/webhooks/retention", enabled: true }];
    const result = await runCli(["check", "--config", file], env());
    expect(result.code).toBe(2);
    expect(failedLines(result.stdout)).toEqual([
      expect.stringMatching(
        /^✗ The webhook receiver is on \(alerts\.webhook\.enabled\) but has no signing secret, so every delivery is refused \(401\): set RETENTION_WEBHOOK_SECRETS \(alerts\.webhook\.secrets\) to the endpoint's signing secret, which POST \/webhooks returns once/,
      ),
    ]);
    expect(result.stdout).not.toContain("All checks passed.");
    const withSecret = await runCli(
      ["check", "--config", file],
      env({ RETENTION_WEBHOOK_SECRETS: "whsec_check_test_secret" }),
    );
    expect(failedLines(withSecret.stdout)).toEqual([]);
    expect(withSecret.code).toBe(0);
  });

  it("a key refused on GET /webhooks (403) is said in a note, not a failure of the check", async () => {
    service.refuseWebhooks = true;
    const result = await runCli(["check"], env());
    expect(failedLines(result.stdout)).toEqual([]);
    expect(result.stdout).toMatch(/- webhook endpoints not compared with the receiver: .*\(403\)/);
    expect(result.code).toBe(0);
  });

  it("a broken config gives every problem in one message, exit 2, nothing contacted", async () => {
    const file = join(dir, "broken.yaml");
    writeFileSync(file, "roster:\n  maxArchivePercnt: 5\n  schedule: every night\ndaemon:\n  port: 70000\n");
    const result = await runCli(["check", "--config", file], env({ LOG_LEVEL: "chatty" }));
    expect(result.code).toBe(2);
    expect(result.stdout).toContain("✗ Configuration is invalid (4 problems):");
    expect(result.stdout).toMatch(/\n4 problems found\.\n$/);
    expect(result.stdout).toContain("roster.maxArchivePercnt");
    expect(result.stdout).toContain("did you mean maxArchivePercent?");
    expect(result.stdout).toContain("roster.schedule");
    expect(result.stdout).toContain("daemon.port");
    expect(result.stdout).toContain("log.level (from LOG_LEVEL)");
    expect(service.authorizations).toEqual([]);
    expect(slack.calls).toEqual([]);
  });

  it("buttons: the app token opens a Socket Mode connection (not kept); a bot token in its place is refused with the fix", async () => {
    const good = await runCli(["check"], env({ SLACK_APP_TOKEN: slack.appToken }));
    expect(failedLines(good.stdout)).toEqual([]);
    expect(good.stdout).toMatch(/✓ Slack app token works: apps.connections.open answered \(Socket Mode\)/);
    expect(good.code).toBe(0);
    expect(slack.calls.map((c) => c.method)).toContain("apps.connections.open");
    expect(slack.socketConnections()).toBe(0);

    const wrong = await runCli(["check"], env({ SLACK_APP_TOKEN: slack.token }));
    expect(failedLines(wrong.stdout)).toEqual([
      "✗ SLACK_APP_TOKEN is not an app-level token: create one (xapp-) with connections:write under Basic Information",
    ]);
    expect(wrong.code).toBe(2);
    expect(wrong.stdout + wrong.stderr).not.toContain(slack.token);
  });
});
