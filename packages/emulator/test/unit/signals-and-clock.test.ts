import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../src/clock.js";
import { decideFault, noFaults } from "../../src/faults.js";
import { type EmployeeRecord, riskLevel } from "../../src/model.js";
import { Rng } from "../../src/rng.js";
import { snapThreshold } from "../../src/routes/account.js";
import { generateChange } from "../../src/signals.js";
import { admittedAt, signatureHeader, webhookUrlProblem } from "../../src/webhooks.js";

const emp: EmployeeRecord = {
  id: 1,
  organizationId: 2,
  name: "Ada Adler",
  title: null,
  location: null,
  department: null,
  networkUrl: "https://www.linkedin.com/in/ada",
  canonicalUrl: "https://www.linkedin.com/in/ada",
  slug: "ada",
  profileImageUrl: null,
  tracked: true,
  status: "active",
  trackingStartedAt: 0,
  createdAt: 0,
  importReadyAt: null,
  windows: [{ from: 0, to: null }],
  changeIds: [],
};

describe("emulator signals, clock, signatures, limits", () => {
  it("generates the same changes from the same seed, and every type eventually", () => {
    const a = new Rng("demo:signals");
    const b = new Rng("demo:signals");
    const types = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const x = generateChange(a, emp, i, 1000);
      expect(generateChange(b, emp, i, 1000)).toEqual(x);
      types.add(x.changeType);
      if (x.changeType === "employee_departed") expect(x.riskScore).toBeNull();
      else expect(x.riskScore).toBeGreaterThanOrEqual(0);
    }
    expect(types.size).toBe(10);
  });

  it("reads risk levels from the 2.4 thresholds, departures high", () => {
    expect([riskLevel(0.75), riskLevel(0.74), riskLevel(0.5), riskLevel(0.49), riskLevel(null)]).toEqual([
      "high",
      "watch",
      "watch",
      "low",
      "high",
    ]);
  });

  it("admits by sensitivity level, departures always", () => {
    expect(admittedAt(1, { changeType: "open_to_work", riskScore: 0.89 })).toBe(false);
    expect(admittedAt(5, { changeType: "open_to_work", riskScore: 0.2 })).toBe(true);
    expect(admittedAt(1, { changeType: "employee_departed", riskScore: null })).toBe(true);
  });

  it("signs t.body with HMAC-SHA256", () => {
    const expected = createHmac("sha256", "s3cret").update('1700000000.{"a":1}').digest("hex");
    expect(signatureHeader("s3cret", 1700000000, '{"a":1}')).toBe(`t=1700000000,v1=${expected}`);
  });

  it("admits only public HTTPS webhook URLs unless loopback is allowed", () => {
    expect(webhookUrlProblem("https://hooks.example.com/x", false)).toBeNull();
    expect(webhookUrlProblem("http://hooks.example.com/x", false)).not.toBeNull();
    expect(webhookUrlProblem("https://hooks.example.com:8443/x", false)).not.toBeNull();
    expect(webhookUrlProblem("https://10.1.2.3/x", false)).not.toBeNull();
    expect(webhookUrlProblem("https://localhost/x", false)).not.toBeNull();
    expect(webhookUrlProblem("http://127.0.0.1:4000/x", false)).not.toBeNull();
    expect(webhookUrlProblem("http://127.0.0.1:4000/x", true)).toBeNull();
  });

  it("advances the virtual clock forward only", () => {
    let real = 1000;
    const clock = new VirtualClock(() => real);
    clock.advance(60);
    real += 5;
    expect(clock.now()).toBe(61_005);
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });

  it("snaps thresholds between 0.5 and 0.75, the midpoint down", () => {
    expect([0.4, 0.55, 0.625, 0.7, 0.9].map(snapThreshold)).toEqual([0.4, 0.5, 0.5, 0.75, 0.9]);
  });

  it("plays a status burst in order before rolling rates", () => {
    const settings = { ...noFaults(), statuses: [429, 503] };
    const rng = new Rng(1);
    expect([decideFault(settings, rng), decideFault(settings, rng), decideFault(settings, rng)]).toEqual([
      { kind: "status", status: 429 },
      { kind: "status", status: 503 },
      { kind: "none" },
    ]);
  });
});
