/**
 * `retention-sync status` against a state store a real daemon wrote (SQLite): while the daemon runs
 * it adds what only the daemon knows; once it stopped it says so and reads the store alone, without
 * changing a byte of it; exit 3 while something needs a person, 0 once nothing does.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DaemonStatus } from "../../src/app/daemon-status.js";
import { main } from "../../src/cli.js";
import { captureStream } from "../helpers/capture-stream.js";
import { type DaemonWorld, daemonEnv, startDaemonWorld } from "../helpers/daemon-world.js";
import { freePort } from "../helpers/free-port.js";
import { makePeople, toCsv } from "../helpers/roster-files.js";
import { until } from "../helpers/until.js";
import { runCli } from "./cli-harness.js";

let world: DaemonWorld;
beforeEach(async () => {
  world = await startDaemonWorld();
});
afterEach(async () => world.close());

/** The bytes of the state database and its WAL files, to prove a reader changed nothing. */
function stateFingerprint(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    out[path.slice(file.length) || "db"] = existsSync(path)
      ? createHash("sha256").update(readFileSync(path)).digest("hex")
      : "absent";
  }
  return out;
}

describe("retention-sync status (SQLite)", () => {
  it("reads a running daemon's state and its /readyz, then the store alone once it stopped, writing nothing", async () => {
    const { emulator, slack, files } = world;
    await emulator.control.seedPeople({ count: 1, slugPrefix: "status", tracked: true });
    const hr = slack.channels.get("hr-alerts");
    if (!hr) throw new Error("the fake Slack has #hr-alerts");
    hr.isMember = false;
    const port = await freePort();
    const roster = await files.write("hris.csv", toCsv(makePeople(2)));
    const config = await files.write(
      "config.yaml",
      [
        "alerts: { pollInterval: 0.2, initialLookback: 2m }",
        "roster: { runOnStart: true }",
        `daemon: { host: 127.0.0.1, port: ${port} }`,
        "",
      ].join("\n"),
    );
    const env = daemonEnv(world, "status", { HRIS_ROSTER_FILE: roster, RETENTION_SYNC_CONFIG: config });
    const stateFile = env.RETENTION_SYNC_STATE ?? "";
    const controller = new AbortController();
    const exit = main(["run"], {
      env: { ...env, LOG_LEVEL: "info" },
      stdout: captureStream().stream,
      stderr: captureStream().stream,
      signal: controller.signal,
    });
    let stopped = false;
    try {
      const ops = `http://127.0.0.1:${port}`;
      await until("the daemon's first reconcile", async () => {
        const metrics = await fetch(`${ops}/metrics`)
          .then((r) => r.text())
          .catch(() => "");
        return /retention_sync_reconcile_runs_total\{outcome="ok"\} 1/.test(metrics) ? true : undefined;
      });
      await emulator.control.signals({ count: 1, organizationId: emulator.organizationId, riskScore: 0.9 });
      await until("the refused channel's note", async () => {
        const text = await (await fetch(`${ops}/readyz`)).text();
        return text.includes("not_in_channel") ? true : undefined;
      });

      const live = await runCli(["status", "--json"], env);
      const status = JSON.parse(live.stdout) as DaemonStatus;
      expect(status.leader).toMatchObject({ pid: process.pid });
      expect(status.lock).toMatchObject({ pid: process.pid, held: true });
      expect(status.lenses.map((l) => l.lens)).toContain(`retention:${emulator.organizationId}`);
      expect(status.outbox).toEqual([
        expect.objectContaining({ channel: "#hr-alerts", waiting: 1, lastError: "not_in_channel" }),
      ]);
      expect(status.reconcile).toMatchObject({ outcome: "routine" });
      expect(status.roster).toMatchObject({ source: `roster file ${roster}`, stale: false });
      expect(status.live).toMatchObject({ reachable: true, ready: true });
      expect(status.needsOperator).toEqual([
        expect.stringContaining(
          "Slack refuses posts to #hr-alerts (not_in_channel); 1 wait: run /invite @<your bot> in #hr-alerts",
        ),
      ]);
      expect(live.code).toBe(3);
      const text = await runCli(["status"], env);
      expect(text.stdout).toContain(`from the daemon on 127.0.0.1:${port}: ready`);
      expect(text.stdout).toMatch(/Needs you {3}- Slack refuses posts to #hr-alerts \(not_in_channel\)/);

      controller.abort();
      stopped = true;
      expect(await exit).toBe(0);
      const before = stateFingerprint(stateFile);
      const alone = await runCli(["status"], env);
      expect(alone.stdout).toContain(`daemon not reachable on 127.0.0.1:${port}`);
      expect(alone.stdout).toContain("instance lock free: no daemon runs on this state");
      expect(alone.stdout).toMatch(/#hr-alerts: 1 waiting, oldest .*; last error not_in_channel/);
      expect(alone.code).toBe(3);
      expect(stateFingerprint(stateFile)).toEqual(before);

      // Invited: the next pass posts what waited, and nothing needs a person any more.
      hr.isMember = true;
      expect((await runCli(["poll", "--once"], { ...env, LOG_LEVEL: "silent" })).code).toBe(0);
      const healthy = await runCli(["status", "--json"], env);
      expect((JSON.parse(healthy.stdout) as DaemonStatus).needsOperator).toEqual([]);
      expect(healthy.code).toBe(0);
    } finally {
      if (!stopped) {
        controller.abort();
        await exit;
      }
    }
  });

  it("says plainly that no daemon has run with a state that does not exist, and creates nothing", async () => {
    const env = daemonEnv(world, "never");
    const result = await runCli(["status"], env);
    expect(result.stderr).toContain("no state database at");
    expect(result.code).toBe(1);
    expect(existsSync(env.RETENTION_SYNC_STATE ?? "")).toBe(false);
  });
});
