import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EmployeePatch } from "../../src/api/request-types.js";
import type { Employee } from "../../src/api/spec-records.js";
import { ApiNetworkError } from "../../src/errors.js";
import { alertActionsBlock, digestMenu } from "../../src/interactive/action-blocks.js";
import { ActionJournal } from "../../src/interactive/action-journal.js";
import type { AccessPolicy } from "../../src/interactive/authorize.js";
import { encodeButtonValue, encodeOptionValue } from "../../src/interactive/button-value.js";
import { parseInteraction } from "../../src/interactive/interaction-payload.js";
import { InteractiveActions, type PressOutcome } from "../../src/interactive/interactive-actions.js";
import type { InteractiveSlack } from "../../src/interactive/interactive-slack.js";
import { PersonMarks } from "../../src/interactive/person-marks.js";
import { UsergroupCache } from "../../src/interactive/usergroup-cache.js";
import { silentLogger } from "../../src/logger.js";
import { loadKeptUntracked } from "../../src/roster/kept-untracked.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";
import { sampleTarget } from "./support/sample-target.js";

const target = sampleTarget;

const policy: AccessPolicy = {
  acknowledge: { allowedUsers: [], allowedUsergroups: [], openWhenUnset: true, configKey: "a" },
  snooze: { allowedUsers: [], allowedUsergroups: [], openWhenUnset: true, configKey: "s" },
  stopTracking: { allowedUsers: ["U0CAROL"], allowedUsergroups: ["S0HR"], openWhenUnset: false, configKey: "st" },
};

function payload(action: Record<string, unknown>, user = "U0ALICE", actionTs = "1700000100.000200") {
  return {
    type: "block_actions",
    user: { id: user },
    container: { type: "message", message_ts: "1700000000.000100", channel_id: "C0HR", is_ephemeral: false },
    message: { ts: "1700000000.000100", text: "Open to work: Jane", blocks: [alertActionsBlock(target, {})] },
    actions: [{ action_ts: actionTs, ...action }],
  };
}

class RecordingSlack implements InteractiveSlack {
  readonly updates: Array<{ channel: string; ts: string; blocks: readonly unknown[] }> = [];
  readonly ephemerals: Array<{ user: string; text: string; blocks?: readonly unknown[] | undefined }> = [];
  groupReads = 0;
  async updateMessage(input: { channel: string; ts: string; text: string; blocks: readonly unknown[] }) {
    this.updates.push(input);
  }
  async postEphemeral(input: { channel: string; user: string; text: string; blocks?: readonly unknown[] | undefined }) {
    this.ephemerals.push(input);
  }
  async usergroupMembers(group: string) {
    this.groupReads += 1;
    return group === "S0HR" ? ["U0DAVE"] : [];
  }
}

let store: StateStore;
let slack: RecordingSlack;
let patches: Array<[number, EmployeePatch]>;
let failPatch: Error | undefined;
let outcomes: Array<[string, PressOutcome]>;

function service(beforeApply?: () => void) {
  return new InteractiveActions({
    store,
    journal: new ActionJournal(store),
    slack,
    client: {
      async updateEmployee(id, patch) {
        if (failPatch) throw failPatch;
        patches.push([id, patch]);
        return { id, networkUrl: "https://www.linkedin.com/in/jane-doe", tracked: false } as Employee;
      },
    },
    policy,
    usergroups: new UsergroupCache((g) => slack.usergroupMembers(g), silentLogger()),
    logger: silentLogger(),
    onOutcome: (kind, outcome) => outcomes.push([kind, outcome]),
    beforeApply,
  });
}

const noAck = async () => undefined;

beforeEach(async () => {
  store = await openStateStore(":memory:");
  slack = new RecordingSlack();
  patches = [];
  failPatch = undefined;
  outcomes = [];
});
afterEach(async () => {
  await store.close();
});

describe("InteractiveActions", () => {
  it("acks after the journal write and before applying", async () => {
    const order: string[] = [];
    const actions = service(() => {
      order.push("apply");
    });
    const ack = async () => {
      order.push(`ack:${(await new ActionJournal(store).all()).length}`);
    };
    await actions.receive(payload({ action_id: "rs_ack", type: "button", value: encodeButtonValue(target) }), ack);
    expect(order).toEqual(["ack:1", "apply"]);
    expect((await new PersonMarks(store).lookup(["1:42"], Date.now())).get("1:42")?.acknowledged?.by).toBe("U0ALICE");
  });

  it("snoozes until the chosen day and unsnoozes", async () => {
    const actions = service();
    const pressedAt = Math.floor(Date.now() / 1000);
    const snooze = payload(
      {
        action_id: "rs_snooze",
        type: "static_select",
        selected_option: { value: encodeOptionValue("snooze", 30, target) },
      },
      "U0ALICE",
      `${pressedAt}.000200`,
    );
    expect(await actions.receive(snooze, noAck)).toBe("applied");
    const mark = (await new PersonMarks(store).lookup(["1:42"], Date.now())).get("1:42");
    expect(mark?.snoozedUntil).toBe(new Date((pressedAt + 30 * 86400) * 1000 + 0.2).toISOString());
    const unsnooze = payload(
      { action_id: "rs_unsnooze", type: "button", value: encodeButtonValue(target) },
      "U0ALICE",
      "1700000200.1",
    );
    expect(await actions.receive(unsnooze, noAck)).toBe("applied");
    expect((await new PersonMarks(store).lookup(["1:42"], Date.now())).size).toBe(0);
    expect(slack.updates).toHaveLength(2);
  });

  it("lets a user group member stop tracking, refuses others, and writes the hold with the journal", async () => {
    const actions = service();
    const untrack = (user: string, ts: string) =>
      actions.receive(
        payload({ action_id: "rs_untrack", type: "button", value: encodeButtonValue(target) }, user, ts),
        noAck,
      );
    expect(await untrack("U0EVE", "1.1")).toBe("refused");
    expect(patches).toEqual([]);
    expect(slack.ephemerals[0]?.text).toContain("only the users and user groups in `st`");
    expect(await untrack("U0DAVE", "1.2")).toBe("applied");
    expect(patches).toEqual([[42, { tracked: false }]]);
    expect([...(await loadKeptUntracked(store)).entries()]).toEqual([
      [
        "https://www.linkedin.com/in/jane-doe",
        { employeeId: 42, stoppedBy: "U0DAVE", stoppedAt: "1970-01-01T00:00:01.200Z" },
      ],
    ]);
    expect(slack.groupReads).toBe(1);
  });

  it("a failed API call is journaled failed, the user told, nothing held", async () => {
    failPatch = new ApiNetworkError("PATCH", "/employees/42", "connection reset");
    const actions = service();
    const outcome = await actions.receive(
      payload({ action_id: "rs_untrack", type: "button", value: encodeButtonValue(target) }, "U0CAROL"),
      noAck,
    );
    expect(outcome).toBe("failed");
    expect((await new ActionJournal(store).all()).map((e) => e.outcome)).toEqual(["failed"]);
    expect(slack.ephemerals.at(-1)?.text).toContain("Sorry, that did not work");
    expect((await loadKeptUntracked(store)).size).toBe(0);
    expect(slack.updates).toEqual([]);
  });

  it("a duplicate is acked and applies nothing; a pending one left by a crash is applied by recover", async () => {
    const body = payload({ action_id: "rs_ack", type: "button", value: encodeButtonValue(target) });
    // What a crash after the journal write leaves: another press of the same person, pending.
    const left = parseInteraction(
      payload({ action_id: "rs_ack", type: "button", value: encodeButtonValue(target) }, "U0BOB"),
    );
    if (!left.ok) throw new Error("payload not parsed");
    await new ActionJournal(store).put({
      id: left.press.id,
      press: left.press,
      outcome: "pending",
      journaledAt: new Date().toISOString(),
    });
    const actions = service();
    expect(await actions.recover()).toBe(1);
    expect(await actions.recover()).toBe(0);
    let acks = 0;
    const first = await actions.receive(body, async () => {
      acks += 1;
    });
    expect(first).toBe("applied");
    expect(
      await actions.receive(structuredClone(body), async () => {
        acks += 1;
      }),
    ).toBe("duplicate");
    expect(acks).toBe(2);
    expect(outcomes.filter(([, o]) => o === "duplicate")).toHaveLength(1);
  });

  it("two copies of one press arriving together apply it once", async () => {
    const actions = service();
    const body = payload({ action_id: "rs_ack", type: "button", value: encodeButtonValue(target) });
    const outcomesOf = await Promise.all([actions.receive(body, noAck), actions.receive(structuredClone(body), noAck)]);
    expect(outcomesOf.sort()).toEqual(["applied", "duplicate"]);
    expect(slack.updates).toHaveLength(1);
    expect(await new ActionJournal(store).all()).toHaveLength(1);
  });

  it("a digest's Stop tracking… answers with the real button and its confirmation, applying nothing", async () => {
    const actions = service();
    const menu = digestMenu(target);
    expect(menu.type).toBe("overflow");
    const body = payload(
      {
        action_id: "rs_menu",
        type: "overflow",
        selected_option: { value: encodeOptionValue("untrack", undefined, target) },
      },
      "U0CAROL",
    );
    expect(await actions.receive(body, noAck)).toBe("ignored");
    expect(patches).toEqual([]);
    const blocks = JSON.stringify(slack.ephemerals.at(-1)?.blocks);
    expect(blocks).toContain('"action_id":"rs_untrack"');
    expect(blocks).toContain('"confirm"');
    expect(await new ActionJournal(store).all()).toEqual([]);
  });
});
