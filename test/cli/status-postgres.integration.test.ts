/**
 * `retention-sync status` on Postgres state: it reads what the daemon's parts recorded (the leader's
 * term with its epoch, a cursor, the outbox, a failed reconcile) through a session the server keeps
 * read-only, and exits 3 for what needs a person.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DaemonStatus } from "../../src/app/daemon-status.js";
import { recordLeader } from "../../src/daemon/leader-record.js";
import { Outbox } from "../../src/delivery/outbox.js";
import { RosterFileError } from "../../src/errors.js";
import { recordFailedRun } from "../../src/roster/run-record.js";
import { openStateStore, openStateStoreReadOnly } from "../../src/store/state-store.js";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres-server.js";
import { runCli } from "./cli-harness.js";

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
}, 60_000);
afterAll(async () => server?.stop());

describe("retention-sync status (Postgres)", () => {
  it("reads the recorded state read-only and names what needs a person", async () => {
    const url = await server.createDatabase();
    const store = await openStateStore(url);
    try {
      await recordLeader(store, 7, new Date("2026-01-02T03:04:05.000Z"));
      await store.namespace("alerts.cursor").set("retention:1", new Date(Date.now() - 90_000).toISOString());
      await new Outbox(store).enqueue(
        [
          {
            id: "a|#talent|k",
            channel: "#talent",
            kind: "alert",
            message: { text: "x", blocks: [] },
            alertKeys: ["k"],
          },
        ],
        Date.now() - 60_000,
      );
      await recordFailedRun(store, new RosterFileError("/data/hris.csv", "cannot be read: it does not exist"));
    } finally {
      await store.close();
    }

    // Port 1 on loopback: nothing listens there, so the daemon is not reachable.
    const result = await runCli(["status", "--json"], {
      RETENTION_SYNC_STATE: url,
      OPS_PORT: "1",
      LOG_LEVEL: "silent",
    });
    const status = JSON.parse(result.stdout) as DaemonStatus;
    expect(status.leader).toMatchObject({ epoch: 7, since: "2026-01-02T03:04:05.000Z", pid: process.pid });
    expect(status).toMatchObject({ engine: "postgres" });
    expect(status.lock).toBeUndefined();
    expect(status.lenses).toEqual([expect.objectContaining({ lens: "retention:1" })]);
    expect(status.outbox).toEqual([expect.objectContaining({ channel: "#talent", waiting: 1 })]);
    expect(status.live).toMatchObject({ reachable: false, url: "http://127.0.0.1:1" });
    expect(status.needsOperator).toEqual([
      expect.stringMatching(/^the last reconcile \(.*\) failed: Roster file \/data\/hris.csv: cannot be read/),
    ]);
    expect(result.code).toBe(3);

    const reader = await openStateStoreReadOnly(url);
    try {
      await expect(reader.namespace("meta").set("x", 1)).rejects.toThrow(/read-only/);
    } finally {
      await reader.close();
    }
  });
});
