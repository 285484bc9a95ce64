import { describe, expect, it } from "vitest";
import { SCORES_NAMESPACE, ScoreHistory } from "../../src/alerts/score-history.js";
import { openStateStore } from "../../src/store/state-store.js";
import { ACME, buildAlert } from "./support/build-alert.js";

async function history() {
  const store = await openStateStore(":memory:");
  return { store, scores: new ScoreHistory(store.namespace(SCORES_NAMESPACE), 60_000) };
}

describe("ScoreHistory", () => {
  it("gives an alert the score of the person's previous delivered change, in the same lens only", async () => {
    const { store, scores } = await history();
    const person = { employeeId: 7, name: "Kim" };
    const first = buildAlert({ riskScore: 0.52, detectedAt: "2026-11-20T10:00:00Z", person });
    expect((await scores.withPrevious([first]))[0]?.previousScore).toBeUndefined();
    await scores.record([first]);
    const second = buildAlert({ riskScore: 0.81, detectedAt: "2026-11-24T10:00:00Z", person });
    expect((await scores.withPrevious([second]))[0]?.previousScore).toBe(0.52);
    const elsewhere = buildAlert({ lens: ACME, riskScore: 0.9, person });
    expect((await scores.withPrevious([elsewhere]))[0]?.previousScore).toBeUndefined();
    await store.close();
  });

  it("chains changes of one person within a batch, and never takes a change as its own predecessor", async () => {
    const { store, scores } = await history();
    const person = { employeeId: 8 };
    const a = buildAlert({ riskScore: 0.5, detectedAt: "2026-11-20T10:00:00Z", person });
    const b = buildAlert({ riskScore: 0.7, detectedAt: "2026-11-21T10:00:00Z", person });
    const [, second] = await scores.withPrevious([a, b]);
    expect(second?.previousScore).toBe(0.5);
    await scores.record([a, b]);
    // A replayed change (a crash before its commit finished) is not its own "previous".
    expect((await scores.withPrevious([b]))[0]?.previousScore).toBeUndefined();
    await store.close();
  });

  it("does not let a late arrival overwrite a newer score, nor show a newer one as previous", async () => {
    const { store, scores } = await history();
    const person = { employeeId: 9 };
    const newer = buildAlert({ riskScore: 0.9, detectedAt: "2026-11-24T10:00:00Z", person });
    await scores.record([newer]);
    const late = buildAlert({ riskScore: 0.4, detectedAt: "2026-11-22T10:00:00Z", person });
    expect((await scores.withPrevious([late]))[0]?.previousScore).toBeUndefined();
    await scores.record([late]);
    const next = buildAlert({ riskScore: 0.95, detectedAt: "2026-11-25T10:00:00Z", person });
    expect((await scores.withPrevious([next]))[0]?.previousScore).toBe(0.9);
    // Departures carry no score and leave the last one in place.
    await scores.record([buildAlert({ changeType: "employee_departed", riskScore: null, person })]);
    expect((await scores.withPrevious([next]))[0]?.previousScore).toBe(0.9);
    await store.close();
  });
});
