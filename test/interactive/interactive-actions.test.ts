import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EmployeePatch } from "../../src/api/request-types.js";
import type { Employee } from "../../src/api/spec-records.js";
import { ApiNetworkError } from "../../src/errors.js";
import { alertActionsBlock, digestMenu } from "../../src/interactive/action-blocks.js";
import { ActionJournal, isPersonEntry } from "../../src/interactive/action-journal.js";
import type { AccessPolicy } from "../../src/interactive/authorize.js";
import { type ActionTarget, encodeButtonValue, encodeOptionValue } from "../../src/interactive/button-value.js";
import { parseInteraction } from "../../src/interactive/interaction-payload.js";
import { InteractiveActions } from "../../src/interactive/interactive-actions.js";
import { InteractiveEvents, type PressOutcome } from "../../src/interactive/interactive-events.js";
import type { InteractiveSlack } from "../../src/interactive/interactive-slack.js";
import { PersonMarks } from "../../src/interactive/person-marks.js";
import { UsergroupCache } from "../../src/interactive/usergroup-cache.js";
import { type Logger, silentLogger } from "../../src/logger.js";
import { loadKeptUntracked } from "../../src/roster/kept-untracked.js";
import { POSTED_NAMESPACE, postedKey } from "../../src/slack/posted-messages.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";
import { captureLogs } from "../helpers/capture-logs.js";
import { sampleTarget } from "./support/sample-target.js";

const target = sampleTarget;

const policy: AccessPolicy = {
  acknowledge: { allowedUsers: [], allowedUsergroups: [], openWhenUnset: true, configKey: "a" },
  snooze: { allowedUsers: [], allowedUsergroups: [], openWhenUnset: true, configKey: "s" },
  stopTracking: { allowedUsers: ["U0CAROL"], allowedUsergroups: ["S0HR"], openWhenUnset: false, configKey: "st" },
  approveReconcile: { allowedUsers: [], allowedUsergroups: [], openWhenUnset: false, configKey: "ar" },
};

/** The message the presses are on, as the daemon recorded it when it posted it (`slack.posted`). */
const POSTED = { channel: "C0HR", ts: "1700000000.000100" };

/** A competitor's person (poaching lens) and a second own employee, posted in their own messages. */
const rival: ActionTarget = {
  lens: "poaching",
  organizationId: 7,
  employeeId: 900,
  profileUrl: "https://www.linkedin.com/in/rival",
  personRef: "7:900",
  changeKey: "chg:rival",
  name: "Rick Rival",
};
const john: ActionTarget = { ...target, employeeId: 43, personRef: "1:43", changeKey: "chg:john", name: "John Roe" };

function payload(
  action: Record<string, unknown>,
  user = "U0ALICE",
  actionTs = "1700000100.000200",
  at: { channel: string; ts: string; ephemeral?: boolean } = POSTED,
) {
  return {
    type: "block_actions",
    user: { id: user },
    container: { type: "message", message_ts: at.ts, channel_id: at.channel, is_ephemeral: at.ephemeral === true },
    ...(at.ephemeral
      ? {}
      : { message: { ts: at.ts, text: "Open to work: Jane", blocks: [alertActionsBlock(target, {})] } }),
    actions: [{ action_ts: actionTs, ...action }],
  };
}

function record(channel: string, ts: string, people: readonly ActionTarget[]) {
  return store.namespace(POSTED_NAMESPACE).set(postedKey(channel, ts), { v: 1, people });
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

function service(beforeApply?: () => void, logger: Logger = silentLogger()) {
  const events = new InteractiveEvents();
  events.on("press", ({ kind, outcome }) => outcomes.push([kind, outcome]));
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
    logger,
    events,
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
  await record(POSTED.channel, POSTED.ts, [target]);
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
    const { claim, ...press } = left.press;
    await new ActionJournal(store).put({
      id: left.press.id,
      press: { ...press, target: claim },
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

  describe("a press acts only on a person this daemon posted in that message", () => {
    const other = { channel: "C0HR", ts: "1700000000.000200" };
    const competitor = { channel: "C0TALENT", ts: "1700000000.000300" };
    const button = (id: string, who: ActionTarget, answersTs?: string) => ({
      action_id: id,
      type: "button",
      value: encodeButtonValue(who, answersTs),
    });

    beforeEach(async () => {
      await record(other.channel, other.ts, [john]);
      await record(competitor.channel, competitor.ts, [rival]);
    });

    it("ignores, acks and logs a value naming someone else, a message never posted, and Stop tracking on a competitor's person", async () => {
      const logs = captureLogs();
      const actions = service(undefined, logs.logger);
      let acks = 0;
      const ack = async () => {
        acks += 1;
      };
      const presses = [
        // An own employee carried by another message, and a competitor's person, named on Jane's message.
        payload(button("rs_untrack", john), "U0CAROL", "1.1"),
        payload(button("rs_untrack", rival), "U0CAROL", "1.2"),
        // Jane named on a message this daemon never posted (and on one it posted about someone else).
        payload(button("rs_ack", target), "U0ALICE", "1.3", { channel: "C0HR", ts: "1700009999.000100" }),
        payload(button("rs_untrack", target), "U0CAROL", "1.4", other),
        // The competitor's person on the competitor's own message: theirs is not ours to untrack.
        payload(button("rs_untrack", rival), "U0CAROL", "1.5", competitor),
      ];
      for (const body of presses) expect(await actions.receive(body, ack)).toBe("ignored");
      expect(acks).toBe(presses.length);
      expect(patches).toEqual([]);
      expect((await loadKeptUntracked(store)).size).toBe(0);
      expect((await new PersonMarks(store).lookup(["1:42"], Date.now())).size).toBe(0);
      expect(await new ActionJournal(store).all()).toEqual([]);
      expect(slack.updates).toEqual([]);
      expect(slack.ephemerals).toEqual([]);
      const warned = logs.records().filter((r) => String(r.msg).startsWith("press ignored"));
      expect(warned.map((r) => [r.level, r.action, r.reason])).toEqual([
        [40, "untrack", "the person is not one that message carried"],
        [40, "untrack", "the person is not one that message carried"],
        [40, "ack", "this daemon has no record of posting that message"],
        [40, "untrack", "the person is not one that message carried"],
        [40, "untrack", "Stop tracking is only for own employees with an id"],
      ]);
      expect(outcomes).toEqual(["untrack", "untrack", "ack", "untrack", "untrack"].map((k) => [k, "ignored"]));
    });

    it("acts on the person as recorded, whatever else the value says about them", async () => {
      const actions = service();
      const disguised: ActionTarget = {
        ...target,
        name: "Someone Else",
        profileUrl: "https://www.linkedin.com/in/someone-else",
      };
      expect(await actions.receive(payload(button("rs_untrack", disguised), "U0CAROL"), noAck)).toBe("applied");
      expect(patches).toEqual([[42, { tracked: false }]]);
      expect([...(await loadKeptUntracked(store)).keys()]).toEqual(["https://www.linkedin.com/in/jane-doe"]);
      const [entry] = (await new ActionJournal(store).all()).filter(isPersonEntry);
      expect(entry?.press.target).toEqual(target);
      expect(JSON.stringify(slack.updates[0]?.blocks)).not.toContain("someone-else");
    });

    it("a press on a message whose post is still being recorded waits for the record", async () => {
      const fresh = { channel: "C0HR", ts: "1700000000.000500" };
      const actions = new InteractiveActions({
        store,
        journal: new ActionJournal(store),
        slack,
        client: { updateEmployee: async () => ({}) as Employee },
        policy,
        usergroups: new UsergroupCache((g) => slack.usergroupMembers(g), silentLogger()),
        logger: silentLogger(),
        // The post's mark-sent commit, still to come when the press arrives.
        postsSettled: () => record(fresh.channel, fresh.ts, [john]),
      });
      expect(await actions.receive(payload(button("rs_ack", john), "U0ALICE", "3.1", fresh), noAck)).toBe("applied");
      expect((await new PersonMarks(store).lookup(["1:43"], Date.now())).get("1:43")?.acknowledged?.by).toBe("U0ALICE");
    });

    it("a digest's confirmation button is checked against the digest it answers", async () => {
      const digest = { channel: "C0HR", ts: "1700000000.000400" };
      await record(digest.channel, digest.ts, [target, john]);
      const actions = service();
      const menu = payload(
        {
          action_id: "rs_menu",
          type: "overflow",
          selected_option: { value: encodeOptionValue("untrack", undefined, john) },
        },
        "U0CAROL",
        "2.1",
        digest,
      );
      expect(await actions.receive(menu, noAck)).toBe("ignored");
      const [confirm] = JSON.parse(JSON.stringify(slack.ephemerals.at(-1)?.blocks ?? [])).flatMap(
        (b: { elements?: Array<{ value?: string }> }) => b.elements ?? [],
      );
      const ephemeral = { channel: digest.channel, ts: "1700000000.000999", ephemeral: true };
      // The same button answering a message that never carried John (Jane's alert) is ignored.
      const elsewhere = payload(button("rs_untrack", john, POSTED.ts), "U0CAROL", "2.2", ephemeral);
      expect(await actions.receive(elsewhere, noAck)).toBe("ignored");
      const unnamed = payload(button("rs_untrack", john), "U0CAROL", "2.3", ephemeral);
      expect(await actions.receive(unnamed, noAck)).toBe("ignored");
      expect(patches).toEqual([]);
      const pressed = payload(
        { action_id: "rs_untrack", type: "button", value: confirm.value },
        "U0CAROL",
        "2.4",
        ephemeral,
      );
      expect(await actions.receive(pressed, noAck)).toBe("applied");
      expect(patches).toEqual([[43, { tracked: false }]]);
    });
  });
});
