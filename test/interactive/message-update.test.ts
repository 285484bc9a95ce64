import { describe, expect, it } from "vitest";
import { formatAlert } from "../../src/alerts/format-alert.js";
import { actionTargetOf } from "../../src/interactive/action-target.js";
import { updatedMessage } from "../../src/interactive/message-update.js";
import { ACME, buildAlert } from "../alerts/support/build-alert.js";

type Loose = {
  type?: string;
  block_id?: string;
  elements?: Array<{ action_id?: string; text?: unknown; url?: string }>;
};

const actionIds = (blocks: readonly unknown[]) =>
  ((blocks as Loose[]).find((b) => b.block_id === "rs_actions")?.elements ?? []).map((e) => e.action_id);
const contextText = (blocks: readonly unknown[]) =>
  JSON.stringify((blocks as Loose[]).filter((b) => b.type === "context" && b.block_id?.startsWith("rs_mark")));

describe("alert buttons and the message updater", () => {
  const alert = buildAlert({ person: { name: "Jane Doe", employeeId: 42 } });
  const message = formatAlert(alert, { actions: true });
  const target = actionTargetOf(alert);
  const at = "2026-11-24T07:30:00.000Z";

  it("formats buttons only when asked", () => {
    expect(actionIds(formatAlert(alert).blocks)).toEqual([]);
    expect(actionIds(message.blocks)).toEqual(["rs_ack", "rs_snooze", "rs_untrack", "rs_profile", "rs_dashboard"]);
    const untrack = (message.blocks.at(-1) as unknown as { elements: Array<{ confirm?: unknown }> }).elements[2];
    expect(untrack?.confirm).toBeDefined();
  });

  it("offers no Stop tracking for a competitor's people", () => {
    const poaching = formatAlert(buildAlert({ lens: ACME }), { actions: true });
    expect(actionIds(poaching.blocks)).not.toContain("rs_untrack");
  });

  it("acknowledged: says who and when, Acknowledge gone, the rest kept; twice is the same", () => {
    const once = updatedMessage(message, target, { kind: "ack", userId: "U0ALICE", at });
    expect(contextText(once.blocks)).toContain("Acknowledged by <@U0ALICE> at 2026-11-24 07:30 UTC");
    expect(actionIds(once.blocks)).toEqual(["rs_snooze", "rs_untrack", "rs_profile", "rs_dashboard"]);
    expect(once.blocks.slice(0, message.blocks.length - 1)).toEqual(message.blocks.slice(0, -1));
    expect(updatedMessage(once, target, { kind: "ack", userId: "U0ALICE", at })).toEqual(once);
    expect(once.text).toBe(message.text);
  });

  it("snoozed: until when, Unsnooze instead of Snooze; unsnoozed: back as before", () => {
    const snoozed = updatedMessage(message, target, {
      kind: "snooze",
      userId: "U0BOB",
      at,
      until: "2026-12-01T07:30:00.000Z",
    });
    expect(contextText(snoozed.blocks)).toContain("Snoozed by <@U0BOB> until 2026-12-01 07:30 UTC");
    expect(actionIds(snoozed.blocks)).toEqual(["rs_ack", "rs_unsnooze", "rs_untrack", "rs_profile", "rs_dashboard"]);
    const back = updatedMessage(snoozed, target, { kind: "unsnooze", userId: "U0BOB", at });
    expect(back.blocks).toEqual(message.blocks);
  });

  it("untracked: says so and keeps only the links", () => {
    const acked = updatedMessage(message, target, { kind: "ack", userId: "U0ALICE", at });
    const stopped = updatedMessage(acked, target, { kind: "untrack", userId: "U0CAROL", at });
    expect(contextText(stopped.blocks)).toContain("Tracking stopped by <@U0CAROL>");
    expect(contextText(stopped.blocks)).toContain("Acknowledged by <@U0ALICE>");
    expect(actionIds(stopped.blocks)).toEqual(["rs_profile", "rs_dashboard"]);
  });

  it("shows an earlier acknowledgement on a later alert about the person", () => {
    const later = formatAlert({ ...alert, acknowledged: { by: "U0ALICE", at } }, { actions: true });
    expect(JSON.stringify(later.blocks)).toContain("Acknowledged by <@U0ALICE> at 2026-11-24 07:30 UTC");
  });
});
