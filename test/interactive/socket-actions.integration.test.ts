/**
 * Buttons on alerts, pressed through the fake Slack's Socket Mode and answered by the
 * daemon's real `@slack/socket-mode` client; the emulator is the service.
 */
import { once } from "node:events";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { ActionJournal, isPersonEntry } from "../../src/interactive/action-journal.js";
import { loadKeptUntracked } from "../../src/roster/kept-untracked.js";
import { openStateStore } from "../../src/store/state-store.js";
import {
  ALLOWED,
  blocksText,
  buttonValue,
  current,
  GROUP_MEMBER,
  type InteractiveWorld,
  ignoredPresses,
  messagesAbout,
  pressPayload,
  rootAbout,
  snoozeOption,
  startInteractiveWorld,
  until,
} from "./support/interactive-world.js";

let world: InteractiveWorld;
beforeEach(async () => {
  world = await startInteractiveWorld();
});
afterEach(async () => {
  await world.close();
});

async function signal(employeeId: number, changeType = "open_to_work", riskScore = 0.9) {
  const [change] = await world.emulator.control.signals({
    employeeId,
    changeType,
    ...(changeType === "employee_departed" ? {} : { riskScore }),
  });
  if (!change) throw new Error("no change generated");
  return change;
}

async function trackedIds(): Promise<number[]> {
  const ids: number[] = [];
  for await (const e of world.client.iterateEmployees()) if (e.tracked) ids.push(e.id);
  return ids;
}

/** A Socket Mode connection that receives envelopes and never acks them. */
async function silentConnection(): Promise<{ received(): number; close(): Promise<void> }> {
  const res = await fetch(`${world.slack.url}apps.connections.open`, {
    method: "POST",
    headers: { authorization: `Bearer ${world.slack.appToken}` },
  });
  const { url } = (await res.json()) as { url: string };
  const socket = new WebSocket(url);
  let envelopes = 0;
  socket.on("message", (data) => {
    if (String(data).includes('"envelope_id"')) envelopes += 1;
  });
  await once(socket, "open");
  await world.slack.waitForSocketConnection();
  return {
    received: () => envelopes,
    async close() {
      const closed = once(socket, "close");
      socket.close(1000);
      await closed;
    },
  };
}

async function journal() {
  const store = await openStateStore(`${world.files.dir}/state.sqlite`);
  try {
    return await new ActionJournal(store).all();
  } finally {
    await store.close();
  }
}

describe("interactive alerts over Socket Mode", () => {
  it("acknowledge updates the message, and a later alert in the thread says it was acknowledged", async () => {
    const [jane] = await trackedIds();
    if (jane === undefined) throw new Error("no people");
    await world.start();
    await signal(jane);
    const root = await rootAbout(world.slack, jane);
    expect(blocksText(root)).toContain('"action_id":"rs_ack"');
    await world.slack.waitForSocketConnection();
    const ready = await fetch(`${world.configured?.daemon.opsUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.text()).toContain("slack socket mode: connected");

    const envelope = world.slack.pressButton({
      channel: root.channel,
      ts: root.ts,
      actionId: "rs_ack",
      userId: "U0ALICE",
    });
    await world.slack.waitForAck(envelope.envelopeId);
    const updated = await until("the updated message", () => {
      const now = current(world.slack, root);
      return blocksText(now).includes("Acknowledged by <@U0ALICE>") ? now : undefined;
    });
    expect(blocksText(updated)).not.toContain('"action_id":"rs_ack"');
    expect(blocksText(updated)).toContain('"action_id":"rs_snooze"');
    expect(world.slack.updates().filter((u) => u.ts === root.ts)).toHaveLength(1);

    await signal(jane, "title_change", 0.85);
    const reply = await until("the reply in the thread", () =>
      messagesAbout(world.slack, jane).find((m) => m.threadTs === root.ts),
    );
    expect(blocksText(reply)).toContain("Acknowledged by <@U0ALICE>");
    await world.stop();
    expect((await journal()).map((e) => [e.press.kind, e.outcome, e.press.userId])).toEqual([
      ["ack", "applied", "U0ALICE"],
    ]);
  });

  it("snooze suppresses the person's later alerts in every channel while a departure still posts; unsnooze ends it", async () => {
    const [jane, other] = await trackedIds();
    if (jane === undefined || other === undefined) throw new Error("no people");
    // A second route: the person's alerts go to two channels, both silenced by one snooze.
    await world.start({
      alertLines: [
        "  routes:",
        "    - lens: retention",
        "      minRiskScore: 0",
        '      channel: "#hr-alerts"',
        "    - lens: retention",
        "      minRiskScore: 0",
        '      channel: "#retention-ops"',
      ],
    });
    await signal(jane);
    const root = await rootAbout(world.slack, jane);
    await world.slack.waitForSocketConnection();
    const envelope = world.slack.pressButton({
      channel: root.channel,
      ts: root.ts,
      actionId: "rs_snooze",
      userId: "U0BOB",
      selectedOption: snoozeOption(root, 0),
    });
    await world.slack.waitForAck(envelope.envelopeId);
    await until("the snoozed message", () =>
      blocksText(current(world.slack, root)).includes("Snoozed by <@U0BOB>") ? true : undefined,
    );
    expect(blocksText(current(world.slack, root))).toContain('"action_id":"rs_unsnooze"');

    const postedAboutJane = messagesAbout(world.slack, jane).length;
    await signal(jane, "title_change", 0.95);
    await signal(other);
    // The other person's alert comes from the same pass: by then Jane's was dropped, not delayed.
    await rootAbout(world.slack, other);
    expect(messagesAbout(world.slack, jane)).toHaveLength(postedAboutJane);
    await until("the pass report counting the snoozed alert", () =>
      world.logs.text().includes('"snoozed":1') ? true : undefined,
    );

    await signal(jane, "employee_departed");
    const departure = await until("the departure", () =>
      messagesAbout(world.slack, jane).find((m) => String(m.text).startsWith("Left the company")),
    );
    expect(departure).toBeDefined();

    const unsnooze = world.slack.pressButton({
      channel: root.channel,
      ts: root.ts,
      actionId: "rs_unsnooze",
      userId: "U0BOB",
    });
    await world.slack.waitForAck(unsnooze.envelopeId);
    await until("the unsnoozed message", () =>
      blocksText(current(world.slack, root)).includes('"action_id":"rs_snooze"') ? true : undefined,
    );
    expect(blocksText(current(world.slack, root))).not.toContain("Snoozed by");
  });

  it("stop tracking untracks on the service and holds the person for reconcile; others are refused", async () => {
    const [jane, john] = await trackedIds();
    if (jane === undefined || john === undefined) throw new Error("no people");
    await world.start();
    await signal(jane);
    await signal(john);
    const janeRoot = await rootAbout(world.slack, jane);
    const johnRoot = await rootAbout(world.slack, john);
    await world.slack.waitForSocketConnection();

    const refused = world.slack.pressButton({
      channel: janeRoot.channel,
      ts: janeRoot.ts,
      actionId: "rs_untrack",
      userId: "U0BOB",
    });
    await world.slack.waitForAck(refused.envelopeId);
    const refusal = await until("the refusal", () => world.slack.ephemerals().find((e) => e.user === "U0BOB"));
    expect(refusal.text).toContain("slack.interactivity.stopTracking");
    expect((await world.client.getEmployee(jane)).tracked).toBe(true);

    const pressed = world.slack.pressButton({
      channel: janeRoot.channel,
      ts: janeRoot.ts,
      actionId: "rs_untrack",
      userId: ALLOWED,
    });
    await world.slack.waitForAck(pressed.envelopeId);
    await until("the stopped message", () =>
      blocksText(current(world.slack, janeRoot)).includes("Tracking stopped by <@U0CAROL>") ? true : undefined,
    );
    expect((await world.client.getEmployee(jane)).tracked).toBe(false);

    // A member of the configured user group may stop tracking too (usergroups.users.list).
    const byGroup = world.slack.pressButton({
      channel: johnRoot.channel,
      ts: johnRoot.ts,
      actionId: "rs_untrack",
      userId: GROUP_MEMBER,
    });
    await world.slack.waitForAck(byGroup.envelopeId);
    await until("john untracked", async () => ((await world.client.getEmployee(john)).tracked ? undefined : true));

    await world.stop();
    const store = await openStateStore(`${world.files.dir}/state.sqlite`);
    try {
      const { loadKeptUntracked } = await import("../../src/roster/kept-untracked.js");
      const holds = await loadKeptUntracked(store);
      expect([...holds.values()].map((h) => [h.employeeId, h.stoppedBy]).sort()).toEqual(
        [
          [jane, ALLOWED],
          [john, GROUP_MEMBER],
        ].sort(),
      );
      const entries = await new ActionJournal(store).all();
      expect(entries.map((e) => [e.press.kind, e.press.userId, e.outcome])).toEqual([
        ["untrack", "U0BOB", "refused"],
        ["untrack", ALLOWED, "applied"],
        ["untrack", GROUP_MEMBER, "applied"],
      ]);
    } finally {
      await store.close();
    }
  });

  it("applies a press once when Slack resends its unacked envelope to the restarted daemon and sends the payload again", async () => {
    const [jane] = await trackedIds();
    if (jane === undefined) throw new Error("no people");
    await world.start();
    await signal(jane);
    const root = await rootAbout(world.slack, jane);
    await world.stop();

    // While the daemon is down, a connection that never acks receives the press (a leader that died).
    const silent = await silentConnection();
    const first = world.slack.pressButton({
      channel: root.channel,
      ts: root.ts,
      actionId: "rs_ack",
      userId: "U0ALICE",
    });
    await until("the silent connection's envelope", () => (silent.received() > 0 ? true : undefined));
    await silent.close();

    const daemon = await world.start();
    const acked = await world.slack.waitForAck(first.envelopeId);
    expect(acked.attempts).toBeGreaterThan(1);
    const again = world.slack.sendEnvelope({ type: "interactive", payload: first.payload });
    await world.slack.waitForAck(again.envelopeId);
    await until("the update", () => (world.slack.updates().some((u) => u.ts === root.ts) ? true : undefined));
    await until("the press applied and the duplicate counted", async () => {
      const text = await (await fetch(`${daemon.daemon.opsUrl}/metrics`)).text();
      const applied = /retention_sync_slack_actions_total\{kind="ack",outcome="applied"\} 1/.test(text);
      return applied && /retention_sync_slack_actions_total\{kind="ack",outcome="duplicate"\} 1/.test(text)
        ? true
        : undefined;
    });
    expect(world.slack.updates().filter((u) => u.ts === root.ts)).toHaveLength(1);
    await world.stop();
    expect((await journal()).map((e) => e.outcome)).toEqual(["applied"]);
  });

  it("acks and ignores a press whose value names another person, and one on a message it never posted", async () => {
    const [jane, john] = await trackedIds();
    if (jane === undefined || john === undefined) throw new Error("no people");
    await world.start();
    await signal(jane);
    await signal(john);
    const janeRoot = await rootAbout(world.slack, jane);
    const johnRoot = await rootAbout(world.slack, john);
    await world.slack.waitForSocketConnection();

    // Stop tracking pressed on Jane's alert, its value swapped for John's button's.
    const swapped = world.slack.sendEnvelope({
      type: "interactive",
      payload: pressPayload(janeRoot, "rs_untrack", ALLOWED, "1700000011.1", buttonValue(johnRoot, "rs_untrack")),
    });
    // An acknowledge on a ts this daemon never posted in that channel.
    const unposted = world.slack.sendEnvelope({
      type: "interactive",
      payload: pressPayload({ ...janeRoot, ts: "1700000000.999999" }, "rs_ack", "U0ALICE", "1700000012.1"),
    });
    await world.slack.waitForAck(swapped.envelopeId);
    await world.slack.waitForAck(unposted.envelopeId);
    const ignored = await ignoredPresses(world, 2);
    expect(ignored.map((line) => [line.level, line.action, line.reason]).sort()).toEqual([
      [40, "ack", "this daemon has no record of posting that message"],
      [40, "untrack", "the person is not one that message carried"],
    ]);
    expect((await world.client.getEmployee(john)).tracked).toBe(true);
    expect((await world.client.getEmployee(jane)).tracked).toBe(true);
    expect(world.slack.updates()).toHaveLength(0);
    expect(world.slack.ephemerals()).toHaveLength(0);

    // The buttons as posted still work.
    const ack = world.slack.pressButton({
      channel: janeRoot.channel,
      ts: janeRoot.ts,
      actionId: "rs_ack",
      userId: "U0ALICE",
    });
    await world.slack.waitForAck(ack.envelopeId);
    await until("the acknowledged message", () =>
      blocksText(current(world.slack, janeRoot)).includes("Acknowledged by <@U0ALICE>") ? true : undefined,
    );
    await world.stop();
    const entries = (await journal()).filter(isPersonEntry);
    expect(entries.map((e) => [e.press.kind, e.outcome, e.press.target.employeeId])).toEqual([
      ["ack", "applied", jane],
    ]);
    const store = await openStateStore(`${world.files.dir}/state.sqlite`);
    try {
      expect((await loadKeptUntracked(store)).size).toBe(0);
    } finally {
      await store.close();
    }
  });

  it("acks and ignores a payload it did not make, with a log line", async () => {
    await world.start();
    await world.slack.waitForSocketConnection();
    const odd = world.slack.sendEnvelope({
      type: "interactive",
      payload: {
        type: "block_actions",
        user: { id: "U0EVE" },
        container: { type: "message", message_ts: "1.1", channel_id: "C1" },
        actions: [{ action_id: "rs_untrack", type: "button", value: 'rs1:{"v":1}', action_ts: "1.2" }],
      },
    });
    await world.slack.waitForAck(odd.envelopeId);
    await until("the log line", () =>
      world.logs.text().includes("interactive payload ignored: not a press of ours") ? true : undefined,
    );
    await world.stop();
    expect(await journal()).toEqual([]);
  });

  it("a digest carries a menu per person: acknowledge from it, and Stop tracking… asks with the real button", async () => {
    const [jane, john] = await trackedIds();
    if (jane === undefined || john === undefined) throw new Error("no people");
    // Both changes exist before the first pass, so that pass has two alerts for the channel: a digest.
    await world.emulator.control.signals({ employeeId: jane, changeType: "open_to_work", riskScore: 0.9 });
    await world.emulator.control.signals({ employeeId: john, changeType: "open_to_work", riskScore: 0.8 });
    await world.start({ alertLines: ["  digestThreshold: 1"] });
    const digest = await until("the digest", () =>
      world.slack.posted("#hr-alerts").find((m) => blocksText(m).includes('"action_id":"rs_menu"')),
    );
    await world.slack.waitForSocketConnection();
    const menus = ((digest.blocks ?? []) as Array<{ accessory?: { options?: Array<{ value: string }> } }>).flatMap(
      (b) => (b.accessory?.options ? [b.accessory.options] : []),
    );
    expect(menus).toHaveLength(2);
    const [first] = menus;
    const ackOption = first?.[0]?.value ?? "";
    const stopOption = first?.at(-1)?.value ?? "";
    const ack = world.slack.pressButton({
      channel: digest.channel,
      ts: digest.ts,
      actionId: "rs_menu",
      userId: "U0ALICE",
      selectedOption: ackOption,
    });
    await world.slack.waitForAck(ack.envelopeId);
    await until("the note to the presser", () =>
      world.slack.ephemerals().find((e) => e.user === "U0ALICE" && String(e.text).startsWith("Acknowledged")),
    );
    const stop = world.slack.pressButton({
      channel: digest.channel,
      ts: digest.ts,
      actionId: "rs_menu",
      userId: ALLOWED,
      selectedOption: stopOption,
    });
    await world.slack.waitForAck(stop.envelopeId);
    const ask = await until("the confirm button", () => world.slack.ephemerals().find((e) => e.user === ALLOWED));
    expect(JSON.stringify(ask.blocks)).toMatch(/"action_id":"rs_untrack".*"confirm"/);
    expect(world.slack.updates()).toEqual([]);
    expect((await world.client.getEmployee(jane)).tracked).toBe(true);
    expect((await world.client.getEmployee(john)).tracked).toBe(true);
  });
});
