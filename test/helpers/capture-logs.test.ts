import { describe, expect, it } from "vitest";
import { captureLogs } from "./capture-logs.js";

describe("captureLogs", () => {
  it("keeps lines as JSON and scrubs secrets", () => {
    const logs = captureLogs({ secrets: ["super-secret-value"] });
    logs.logger.info({ detail: "has super-secret-value inside" }, "hello");
    logs.logger.trace("deep");
    expect(logs.records().map((r) => r.msg)).toEqual(["hello", "deep"]);
    expect(logs.text()).not.toContain("super-secret-value");
  });
});
