/**
 * The buttons end to end: Stop tracking pressed in Slack survives the next reconcile of the daemon
 * (the person stays untracked on the service, the ops report lists them), until the HRIS row
 * changes. Needs both halves: the button and reconcile's holds (keep-untracked).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makePeople, toCsv, urlOf } from "../helpers/roster-files.js";
import {
  ALLOWED,
  blocksText,
  current,
  type InteractiveWorld,
  rootAbout,
  startInteractiveWorld,
  until,
} from "./support/interactive-world.js";

let world: InteractiveWorld;
beforeEach(async () => {
  world = await startInteractiveWorld({ people: 0 });
});
afterEach(async () => {
  await world.close();
});

async function onService(url: string) {
  for await (const e of world.client.iterateEmployees({ pageSize: 100 })) if (e.networkUrl === url) return e;
  throw new Error(`${url} is not on the service`);
}

describe("stop tracking and the next reconcile", () => {
  it("keeps the person untracked across reconciles of new exports and lists them in the report", async () => {
    const people = makePeople(3);
    const ada = people[0];
    if (!ada) throw new Error("no people");
    const roster = await world.files.write("hris.csv", toCsv(people));
    const configured = await world.start({
      extra: ['roster:\n  schedule: "0 2 1 1 *"'].join("\n"),
      env: { HRIS_ROSTER_FILE: roster, SLACK_OPS_CHANNEL: "#retention-ops" },
    });
    await configured.daemon.reconcileNow();
    const before = await onService(urlOf(ada));
    expect(before.tracked).toBe(true);

    await world.emulator.control.signals({ employeeId: before.id, changeType: "open_to_work", riskScore: 0.9 });
    const root = await rootAbout(world.slack, before.id);
    await world.slack.waitForSocketConnection();
    const press = world.slack.pressButton({
      channel: root.channel,
      ts: root.ts,
      actionId: "rs_untrack",
      userId: ALLOWED,
    });
    await world.slack.waitForAck(press.envelopeId);
    await until("the stopped message", () =>
      blocksText(current(world.slack, root)).includes("Tracking stopped by") ? true : undefined,
    );
    expect((await onService(urlOf(ada))).tracked).toBe(false);

    // A new export with the same rows: reconcile would track Ada again without the hold.
    await world.files.write("hris.csv", toCsv(people));
    await configured.daemon.reconcileNow();
    expect((await onService(urlOf(ada))).tracked).toBe(false);
    const report = await until("the report listing the hold", () =>
      world.slack
        .posted("#retention-ops")
        .map((m) => blocksText(m))
        .find((text) => text.includes("Kept untracked (stopped in Slack)")),
    );
    expect(report).toContain(ada.slug);
  });
});
