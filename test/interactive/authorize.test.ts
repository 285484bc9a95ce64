import { describe, expect, it } from "vitest";
import { type AccessPolicy, type AccessRule, authorize, groupsFor } from "../../src/interactive/authorize.js";

const rule = (over: Partial<AccessRule> = {}, open = true): AccessRule => ({
  allowedUsers: [],
  allowedUsergroups: [],
  openWhenUnset: open,
  configKey: "slack.interactivity.x",
  ...over,
});

const policy = (stop: Partial<AccessRule> = {}, ack: Partial<AccessRule> = {}): AccessPolicy => ({
  acknowledge: rule({ ...ack, configKey: "slack.interactivity.acknowledge" }),
  snooze: rule({ configKey: "slack.interactivity.snooze" }),
  stopTracking: rule({ ...stop, configKey: "slack.interactivity.stopTracking" }, false),
  approveReconcile: rule({ configKey: "slack.interactivity.approveReconcile" }, false),
});

describe("authorize", () => {
  it("lets anyone acknowledge and snooze by default", () => {
    expect(authorize("ack", "U1", policy(), new Map())).toEqual({ allowed: true });
    expect(authorize("snooze", "U1", policy(), new Map())).toEqual({ allowed: true });
    expect(authorize("unsnooze", "U1", policy(), new Map())).toEqual({ allowed: true });
  });

  it("lets nobody stop tracking until configured, and names the key to set", () => {
    const answer = authorize("untrack", "U1", policy(), new Map());
    expect(answer.allowed).toBe(false);
    if (!answer.allowed) {
      expect(answer.message).toContain("slack.interactivity.stopTracking.allowedUsers");
      expect(answer.message).toContain("<@U1>");
    }
  });

  it("allows listed users and members of listed groups only", () => {
    const p = policy({ allowedUsers: ["U1"], allowedUsergroups: ["S9"] });
    expect(authorize("untrack", "U1", p, new Map())).toEqual({ allowed: true });
    expect(authorize("untrack", "U2", p, new Map([["S9", ["U2"]]]))).toEqual({ allowed: true });
    expect(authorize("untrack", "U3", p, new Map([["S9", ["U2"]]])).allowed).toBe(false);
    // A group that could not be read lets nobody in.
    expect(authorize("untrack", "U2", p, new Map()).allowed).toBe(false);
    expect(groupsFor("untrack", p)).toEqual(["S9"]);
    expect(groupsFor("ack", p)).toEqual([]);
  });

  it("restricts acknowledge when a list is set", () => {
    const p = policy({}, { allowedUsers: ["U7"] });
    expect(authorize("ack", "U7", p, new Map())).toEqual({ allowed: true });
    const refused = authorize("ack", "U8", p, new Map());
    expect(refused.allowed).toBe(false);
    if (!refused.allowed) expect(refused.message).toContain("slack.interactivity.acknowledge");
  });
});
