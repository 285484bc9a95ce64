import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ActionJournal, type JournalEntry } from "../../src/interactive/action-journal.js";
import type { Press } from "../../src/interactive/interaction-payload.js";
import { openStateStore } from "../../src/store/state-store.js";
import { runCli } from "../cli/cli-harness.js";

const press = (over: Partial<Press>): Press => ({
  id: "x",
  kind: "ack",
  target: {
    lens: "retention",
    organizationId: 1,
    employeeId: 42,
    personRef: "1:42",
    changeKey: "chg:7",
    name: "Jane Doe",
  },
  userId: "U0ALICE",
  userName: "alice",
  channel: "C1",
  messageTs: "1.1",
  actionTs: "1.2",
  actionId: "rs_ack",
  fromDigest: false,
  ephemeral: false,
  ...over,
});

describe("retention-sync actions", () => {
  let dir: string;
  let state: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "rs-actions-"));
    state = join(dir, "state.sqlite");
    const store = await openStateStore(state);
    const journal = new ActionJournal(store);
    const now = Date.now();
    const entries: JournalEntry[] = [
      {
        id: "old",
        press: press({ id: "old" }),
        outcome: "applied",
        journaledAt: new Date(now - 10 * 86_400_000).toISOString(),
      },
      {
        id: "snooze",
        press: press({ id: "snooze", kind: "snooze", days: 30, userId: "U0BOB", userName: "bob" }),
        outcome: "applied",
        journaledAt: new Date(now - 3_600_000).toISOString(),
        detail: "snoozed until 2026-12-24T07:00:00.000Z",
      },
      {
        id: "refused",
        press: press({ id: "refused", kind: "untrack", userId: "U0EVE", userName: undefined }),
        outcome: "refused",
        journaledAt: new Date(now - 60_000).toISOString(),
        detail: "not allowed",
      },
    ];
    for (const entry of entries) await journal.put(entry);
    await store.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("lists the presses of the last 7 days by default, oldest first", async () => {
    const result = await runCli(["actions"], { RETENTION_SYNC_STATE: state, LOG_LEVEL: "silent" });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^time\s+user\s+action\s+person\s+change\s+outcome$/);
    expect(lines.slice(1)).toHaveLength(2);
    expect(lines[1]).toMatch(/bob \(U0BOB\)\s+snooze 30d\s+Jane Doe \(1:42\)\s+chg:7\s+applied: snoozed until/);
    expect(lines[2]).toMatch(/U0EVE\s+untrack\s+Jane Doe \(1:42\)\s+chg:7\s+refused: not allowed/);
  });

  it("--since and --json", async () => {
    const result = await runCli(["actions", "--since", "30d", "--json"], {
      RETENTION_SYNC_STATE: state,
      LOG_LEVEL: "silent",
    });
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as Array<{ action: string; outcome: string; user: string }>;
    expect(rows.map((r) => [r.action, r.outcome])).toEqual([
      ["ack", "applied"],
      ["snooze 30d", "applied"],
      ["untrack", "refused"],
    ]);
    const bad = await runCli(["actions", "--since", "soon"], { RETENTION_SYNC_STATE: state });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--since expects a duration");
  });
});
