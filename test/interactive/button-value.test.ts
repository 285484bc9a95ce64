import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ActionTarget,
  decodeValue,
  encodeButtonValue,
  encodeOptionValue,
  MAX_BUTTON_VALUE,
  MAX_OPTION_VALUE,
  personRef,
} from "../../src/interactive/button-value.js";
import { sampleTarget } from "./support/sample-target.js";

const target = sampleTarget;

describe("button value codec", () => {
  it("round-trips a button value", () => {
    expect(decodeValue(encodeButtonValue(target))).toEqual({ ok: true, target });
  });

  it("round-trips a menu option value with its verb and days, without the URL and name", () => {
    const value = encodeOptionValue("snooze", 30, target);
    expect(value.length).toBeLessThanOrEqual(MAX_OPTION_VALUE);
    expect(decodeValue(value)).toEqual({
      ok: true,
      verb: "snooze",
      days: 30,
      target: { lens: "retention", organizationId: 1, employeeId: 42, personRef: "1:42", changeKey: "chg:abc" },
    });
  });

  it("keeps every value within Slack's limits, dropping the name then the URL", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 3000 }),
        fc.string({ minLength: 1, maxLength: 300 }),
        fc.option(fc.integer({ min: 1, max: 2_000_000_000 }), { nil: undefined }),
        (name, change, employeeId) => {
          const long: ActionTarget = {
            ...target,
            name,
            employeeId,
            profileUrl: `https://www.linkedin.com/in/${"x".repeat(1900)}`,
            changeKey: change,
            personRef: personRef(`1:${name}`),
          };
          const button = encodeButtonValue(long);
          expect(button.length).toBeLessThanOrEqual(MAX_BUTTON_VALUE);
          const decoded = decodeValue(button);
          expect(decoded.ok).toBe(true);
          const option = encodeOptionValue("untrack", undefined, long);
          expect(option.length).toBeLessThanOrEqual(MAX_OPTION_VALUE);
          expect(decodeValue(option).ok).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("carries the ts of the message an ephemeral confirmation answers", () => {
    expect(decodeValue(encodeButtonValue(target, "1700000000.000400"))).toEqual({
      ok: true,
      target,
      answersTs: "1700000000.000400",
    });
    expect(decodeValue('rs1:{"v":1,"l":"r","o":1,"p":"1:2","c":"chg:1","m":"C0HR|1.2"}').ok).toBe(false);
  });

  it("refuses values it did not make", () => {
    for (const value of [
      undefined,
      42,
      "",
      "hello",
      "rs1:",
      "rs1:{not json",
      'rs1:{"v":2,"l":"r","o":1,"p":"1:2","c":"chg:1"}',
      'rs1:{"v":1,"l":"x","o":1,"p":"1:2","c":"chg:1"}',
      'rs1:{"v":1,"l":"r","o":1,"p":"1:2","c":"chg:1","u":"javascript:alert(1)"}',
      "rs1|delete|7|r|1||1:2|chg:1",
      "rs1|snooze|x|r|1||1:2|chg:1",
      "rs1|snooze|7|r|1",
      "x".repeat(MAX_BUTTON_VALUE + 1),
    ]) {
      expect(decodeValue(value).ok, String(value)).toBe(false);
    }
  });

  it("derives the person reference from the thread key, hashing long or odd keys", () => {
    expect(personRef("1:42")).toBe("1:42");
    const long = personRef(`7:https://www.linkedin.com/in/${"a".repeat(80)}`);
    expect(long).toMatch(/^h:[0-9a-f]{24}$/);
    expect(personRef("1:a|b")).toMatch(/^h:/);
    expect(personRef("1:a|b")).toBe(personRef("1:a|b"));
  });
});
