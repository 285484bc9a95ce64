/**
 * Reconcile, the daemon's side: `run` says at start that a read-only key cannot reconcile, a held
 * mass-archive guard turns /readyz's note and a metric to "needs operator", and the same export
 * reconciled again and again is posted to the ops channel once.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ConfiguredDaemon, startConfiguredDaemon } from "../../src/app/configured-daemon.js";
import { loadConfig } from "../../src/config/load-config.js";
import { runCli } from "../cli/cli-harness.js";
import { captureStream } from "../helpers/capture-stream.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../helpers/daemon-world.js";
import { registerSecret } from "../helpers/known-secrets.js";
import { makePeople, toCsv } from "../helpers/roster-files.js";
import { until } from "../helpers/until.js";

let world: DaemonWorld;
let configured: ConfiguredDaemon | undefined;
beforeEach(async () => {
  world = await startDaemonWorld();
});
afterEach(async () => {
  await configured?.stop("test over");
  configured = undefined;
  await world.close();
});

const CONFIG = [
  "alerts:",
  "  enabled: false",
  "roster:",
  '  schedule: "0 2 1 1 *"',
  "  archiveAfterMissingExports: 1",
  "daemon:",
  "  host: 127.0.0.1",
  "  port: 0",
  "",
].join("\n");

/** Alerts on, with the webhook receiver on a free loopback port. */
const WEBHOOK_ON = CONFIG.replace(
  "alerts:\n  enabled: false\n",
  "alerts:\n  enabled: true\n  webhook: { enabled: true, host: 127.0.0.1, port: 0 }\n",
);

async function start(extra: Record<string, string>, config = CONFIG) {
  const logs = captureStream();
  const configFile = await world.files.write("config.yaml", config);
  const env = daemonEnv(world, `operator-${Date.now()}`, {
    SLACK_OPS_CHANNEL: "#retention-ops",
    LOG_LEVEL: "info",
    ...extra,
  });
  configured = await startConfiguredDaemon(loadConfig({ file: configFile, env }), {
    argv: [],
    env,
    stdout: logs.stream,
    stderr: logs.stream,
  });
  return { daemon: configured.daemon, logs };
}

describe("run and the operator", () => {
  it("warns at start that a read-only key cannot reconcile, and /readyz and the metric say so", async () => {
    const file = await world.files.write("hris.csv", toCsv(makePeople(3)));
    const { daemon, logs } = await start({ HRIS_ROSTER_FILE: file, RETENTION_API_KEY: world.emulator.readKey });
    const body = await until("the read-only note", async () => {
      const text = await (await fetch(`${daemon.opsUrl}/readyz`)).text();
      return text.includes("needs operator") ? text : undefined;
    });
    expect(body).toMatch(
      /needs operator: reconciliation is on .* but the API key is read-only: create a read\+write key/,
    );
    expect(logs.text()).toMatch(/"level":40.*the API key is read-only/);
    expect(await (await fetch(`${daemon.opsUrl}/metrics`)).text()).toContain(
      'retention_sync_needs_operator{reason="read_only_key"} 1',
    );
  });

  it("a roster file that cannot be read at start is a needs-operator note, ready all the same, cleared once it reads", async () => {
    const logs = captureStream();
    const missing = `${world.files.dir}/not-there.csv`;
    const configFile = await world.files.write("config.yaml", CONFIG);
    const env = daemonEnv(world, "roster-probe", { HRIS_ROSTER_FILE: missing, LOG_LEVEL: "info" });
    const ticks: Array<() => Promise<void>> = [];
    configured = await startConfiguredDaemon(
      loadConfig({ file: configFile, env }),
      { argv: [], env, stdout: logs.stream, stderr: logs.stream },
      {
        hrisEvery: (_ms, tick) => {
          ticks.push(tick);
          return () => {};
        },
      },
    );
    const { opsUrl } = configured.daemon;
    const readyz = await until("the roster note", async () => {
      const response = await fetch(`${opsUrl}/readyz`);
      const text = await response.text();
      return text.includes("roster file") ? { status: response.status, text } : undefined;
    });
    // Alerts still flow: ready, with the note shown.
    expect(readyz.status).toBe(200);
    expect(readyz.text).toContain(`needs operator: the roster file ${missing} cannot be used (cannot be read)`);
    expect(await (await fetch(`${opsUrl}/metrics`)).text()).toContain(
      'retention_sync_needs_operator{reason="roster_source"} 1',
    );
    expect(logs.text()).toMatch(/"level":50.*roster source unusable at start/);

    await world.files.write("not-there.csv", toCsv(makePeople(2)));
    const retry = await until("the retry timer", async () => ticks[0]);
    await retry();
    expect(await (await fetch(`${opsUrl}/readyz`)).text()).not.toContain("roster file");
    expect(await (await fetch(`${opsUrl}/metrics`)).text()).toContain(
      'retention_sync_needs_operator{reason="roster_source"} 0',
    );
  });

  it("a held mass-archive guard turns /readyz's note and the metric to needs operator, and a routine run clears them", async () => {
    const people = makePeople(20);
    const file = await world.files.write("hris.csv", toCsv(people));
    const { daemon } = await start({ HRIS_ROSTER_FILE: file });
    await daemon.reconcileNow();
    await world.files.write("hris.csv", toCsv(people.slice(0, 10)));
    await daemon.reconcileNow();
    const ready = await fetch(`${daemon.opsUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.text()).toMatch(
      /needs operator: the mass-archive guard holds 10 archives of the 20 people managed from the HRIS export/,
    );
    const metrics = await (await fetch(`${daemon.opsUrl}/metrics`)).text();
    expect(metrics).toContain('retention_sync_needs_operator{reason="mass_archive_guard"} 1');
    const posts = world.slack.posted("retention-ops");
    expect(posts.at(-1)?.text).toMatch(/needs attention: the mass-archive guard/);

    await world.files.write("hris.csv", toCsv(people));
    await daemon.reconcileNow();
    expect(await (await fetch(`${daemon.opsUrl}/readyz`)).text()).not.toContain("needs operator");
    expect(await (await fetch(`${daemon.opsUrl}/metrics`)).text()).toContain(
      'retention_sync_needs_operator{reason="mass_archive_guard"} 0',
    );
  });

  it("a webhook receiver with no signing secret: /readyz and the metric say needs operator, naming the variable to set", async () => {
    const { daemon, logs } = await start({}, WEBHOOK_ON);
    const ready = await fetch(`${daemon.opsUrl}/readyz`);
    const body = await ready.text();
    expect(body).toMatch(
      /needs operator: the webhook receiver is on \(alerts\.webhook\.enabled\) but has no signing secret, so every delivery is refused \(401\): set RETENTION_WEBHOOK_SECRETS \(alerts\.webhook\.secrets\)/,
    );
    expect(await (await fetch(`${daemon.opsUrl}/metrics`)).text()).toContain(
      'retention_sync_needs_operator{reason="webhook_secret"} 1',
    );
    expect(logs.text()).toMatch(/"level":40.*the webhook receiver is on .* but has no signing secret/);
  });

  it("a webhook receiver with a signing secret has no such note", async () => {
    const { daemon } = await start({ RETENTION_WEBHOOK_SECRETS: "whsec_configured_for_the_test" }, WEBHOOK_ON);
    expect(await (await fetch(`${daemon.opsUrl}/readyz`)).text()).not.toContain("webhook");
    expect(await (await fetch(`${daemon.opsUrl}/metrics`)).text()).not.toContain(
      'retention_sync_needs_operator{reason="webhook_secret"} 1',
    );
  });

  it("a roster file that is an env file: /readyz shows the file and the kind of problem only; the log and the CLI mask the values", async () => {
    const secrets = {
      RETENTION_API_KEY: "rk_live_0a1b2c3d4e5f60718293a4b5c6d7e8f9",
      SLACK_BOT_TOKEN: "xoxb-3333-4444-qrstuvwxyzabcdef",
      PGPASSWORD: "staple-battery-horse-correct",
    };
    for (const [name, value] of Object.entries(secrets)) registerSecret(value, `made-up ${name} in an env file`);
    const envFile = await world.files.write(
      "retention.env",
      `${Object.entries(secrets)
        .map(([name, value]) => `${name}=${value}`)
        .join("\n")}\n`,
    );
    const { daemon, logs } = await start({ HRIS_ROSTER_FILE: envFile });
    await daemon.reconcileNow();
    const body = await (await fetch(`${daemon.opsUrl}/readyz`)).text();
    expect(body).toContain(
      `needs operator: reconcile: the roster file ${envFile} cannot be used (has no profile URL column); the daemon's log and retention-sync check say why`,
    );
    expect(await (await fetch(`${daemon.opsUrl}/metrics`)).text()).toContain(
      'retention_sync_needs_operator{reason="reconcile_config"} 1',
    );
    const cli = await runCli(["reconcile", "--dry-run", "--file", envFile], {
      ...daemonEnv(world, `operator-cli-${Date.now()}`),
      LOG_LEVEL: "silent",
    });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('Found columns: "RETENTION_API_KEY=[masked]"');
    expect(logs.text()).toContain("RETENTION_API_KEY=[masked]");
    for (const [name, value] of Object.entries(secrets)) {
      expect(body).not.toContain(name);
      for (const shown of [body, logs.text(), cli.stdout, cli.stderr]) {
        expect(shown).not.toContain(value);
        expect(shown).not.toContain(value.slice(0, 12));
      }
    }
  });

  it("posts the report of one export once, however often it is reconciled", async () => {
    const people = makePeople(6).map((p, i) => (i === 2 ? { ...p, url: "https://example.com/in/not-linkedin" } : p));
    const file = await world.files.write("hris.csv", toCsv(people));
    const { daemon } = await start({ HRIS_ROSTER_FILE: file });
    for (let i = 0; i < 3; i += 1) await daemon.reconcileNow();
    const posts = await until("the ops post", async () => {
      const posted = world.slack.posted("retention-ops");
      return posted.length > 0 ? posted : undefined;
    });
    expect(posts).toHaveLength(1);
    expect(posts[0]?.text).toMatch(/^:warning: Roster reconcile needs attention: 1 row of the export need fixing$/);
  });
});
