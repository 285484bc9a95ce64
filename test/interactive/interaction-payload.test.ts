import { describe, expect, it } from "vitest";
import { alertActionsBlock } from "../../src/interactive/action-blocks.js";
import { encodeButtonValue, encodeOptionValue } from "../../src/interactive/button-value.js";
import { parseInteraction } from "../../src/interactive/interaction-payload.js";
import { sampleTarget } from "./support/sample-target.js";

const target = sampleTarget;

function payload(action: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    type: "block_actions",
    user: { id: "U0ALICE", username: "alice", name: "alice", team_id: "T1" },
    api_app_id: "A1",
    container: { type: "message", message_ts: "1700000000.000100", channel_id: "C0HR", is_ephemeral: false },
    channel: { id: "C0HR", name: "hr-alerts" },
    message: { ts: "1700000000.000100", text: "Open to work: Jane", blocks: [alertActionsBlock(target, {})] },
    response_url: "http://127.0.0.1:9/response",
    trigger_id: "1.2.3",
    actions: [{ block_id: "rs_actions", action_ts: "1700000100.000200", ...action }],
    ...extra,
  };
}

describe("parseInteraction", () => {
  it("reads an Acknowledge press with the person it claims, its message and a deterministic id", () => {
    const body = payload({ action_id: "rs_ack", type: "button", value: encodeButtonValue(target) });
    const first = parseInteraction(body);
    expect(first).toMatchObject({
      ok: true,
      press: {
        kind: "ack",
        claim: target,
        userId: "U0ALICE",
        channel: "C0HR",
        messageTs: "1700000000.000100",
        actionTs: "1700000100.000200",
        fromDigest: false,
        ephemeral: false,
      },
    });
    const again = parseInteraction(structuredClone(body));
    expect(first.ok && again.ok && first.press.id === again.press.id).toBe(true);
    const otherUser = parseInteraction({ ...body, user: { id: "U0BOB" } });
    expect(first.ok && otherUser.ok && first.press.id !== otherUser.press.id).toBe(true);
  });

  it("reads a snooze choice from the select and from a digest's menu", () => {
    const select = parseInteraction(
      payload({
        action_id: "rs_snooze",
        type: "static_select",
        selected_option: { value: encodeOptionValue("snooze", 90, target) },
      }),
    );
    expect(select).toMatchObject({ ok: true, press: { kind: "snooze", days: 90, fromDigest: false } });
    const menu = parseInteraction(
      payload({
        action_id: "rs_menu",
        type: "overflow",
        selected_option: { value: encodeOptionValue("ack", undefined, target) },
      }),
    );
    expect(menu).toMatchObject({ ok: true, press: { kind: "ack", fromDigest: true } });
  });

  it("ignores unknown fields Slack may add", () => {
    const body = payload(
      { action_id: "rs_untrack", type: "button", value: encodeButtonValue(target), new_field: { x: 1 } },
      { enterprise: null, is_enterprise_install: false, state: { values: {} }, brand_new: [1, 2] },
    );
    expect(parseInteraction(body)).toMatchObject({ ok: true, press: { kind: "untrack" } });
  });

  it("acks-and-ignores what is not a press of ours, with a reason", () => {
    const cases: unknown[] = [
      null,
      "text",
      { type: "view_submission" },
      { type: "block_actions" },
      payload({ action_id: "rs_profile", type: "button", url: "https://www.linkedin.com/in/x" }),
      payload({ action_id: "rs_dashboard", type: "button" }),
      payload({ action_id: "someone_elses", type: "button", value: encodeButtonValue(target) }),
      payload({ action_id: "rs_ack", type: "button", value: "not ours" }),
      payload({ action_id: "rs_ack", type: "button" }),
      payload({
        action_id: "rs_snooze",
        type: "static_select",
        selected_option: { value: encodeOptionValue("snooze", 3, target) },
      }),
      payload({
        action_id: "rs_snooze",
        type: "static_select",
        selected_option: { value: encodeOptionValue("untrack", undefined, target) },
      }),
      payload(
        { action_id: "rs_ack", type: "button", value: encodeButtonValue(target) },
        { user: { id: "not-a-user" } },
      ),
      payload({ action_id: "rs_ack", type: "button", value: encodeButtonValue(target) }, { actions: [] }),
      payload(
        { action_id: "rs_ack", type: "button", value: encodeButtonValue(target) },
        { container: { type: "view" }, channel: undefined, message: undefined },
      ),
    ];
    for (const body of cases) {
      const parsed = parseInteraction(body);
      expect(parsed.ok, JSON.stringify(body)?.slice(0, 200)).toBe(false);
      if (!parsed.ok) expect(parsed.reason.length).toBeGreaterThan(0);
    }
  });

  it("treats a press in an ephemeral message as having no message to update", () => {
    const body = payload(
      { action_id: "rs_untrack", type: "button", value: encodeButtonValue(target) },
      { container: { type: "message", message_ts: "1.2", channel_id: "C0HR", is_ephemeral: true } },
    );
    expect(parseInteraction(body)).toMatchObject({ ok: true, press: { ephemeral: true, message: undefined } });
  });
});
