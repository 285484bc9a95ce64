/**
 * The buttons' optional HTTP mode: Slack POSTs the press to the ops server, signed; a good
 * signature is applied, a bad or stale one is refused with 401 and changes nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ActionJournal } from "../../src/interactive/action-journal.js";
import { loadKeptUntracked } from "../../src/roster/kept-untracked.js";
import { openStateStore } from "../../src/store/state-store.js";
import {
  ALLOWED,
  blocksText,
  buttonValue,
  current,
  type InteractiveWorld,
  ignoredPresses,
  pressPayload,
  rootAbout,
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

describe("interactive alerts over HTTP", () => {
  it("applies a press with a good signature and refuses a bad and a stale one", async () => {
    const ids: number[] = [];
    for await (const e of world.client.iterateEmployees()) ids.push(e.id);
    const [jane] = ids;
    if (jane === undefined) throw new Error("no people");
    const configured = await world.start({
      mode: "http",
      env: { SLACK_APP_TOKEN: "", SLACK_SIGNING_SECRET: world.slack.signingSecret },
    });
    const url = `${configured.daemon.opsUrl}/slack/interactivity`;
    await world.emulator.control.signals({ employeeId: jane, changeType: "open_to_work", riskScore: 0.9 });
    const root = await rootAbout(world.slack, jane);
    expect(blocksText(root)).toContain('"action_id":"rs_ack"');
    expect(world.slack.socketConnections()).toBe(0);

    const bad = await world.slack.postInteractivity(url, pressPayload(root, "rs_ack", "U0MALLORY", "1700000001.1"), {
      secret: "not-the-signing-secret",
    });
    expect(bad.status).toBe(401);
    const stale = await world.slack.postInteractivity(url, pressPayload(root, "rs_ack", "U0MALLORY", "1700000002.1"), {
      timestamp: Math.floor(Date.now() / 1000) - 301,
    });
    expect(stale.status).toBe(401);
    expect(world.slack.updates()).toHaveLength(0);

    const good = await world.slack.postInteractivity(url, pressPayload(root, "rs_ack", "U0ALICE", "1700000003.1"));
    expect(good.status).toBe(200);
    await until("the acknowledged message", () =>
      blocksText(current(world.slack, root)).includes("Acknowledged by <@U0ALICE>") ? true : undefined,
    );
    expect(world.slack.updates()).toHaveLength(1);
    // The first refusal is logged at once; the stale one is counted with the next.
    const records = world.logs
      .text()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as unknown);
    expect(records).toContainEqual(
      expect.objectContaining({
        server: "ops",
        refused: 1,
        sample: expect.objectContaining({ reason: "bad_signature", path: "/slack/interactivity", detail: "mismatch" }),
      }),
    );
  });

  it("acks and ignores a press whose value names another person, and one on a message it never posted", async () => {
    const ids: number[] = [];
    for await (const e of world.client.iterateEmployees()) ids.push(e.id);
    const [jane, john] = ids;
    if (jane === undefined || john === undefined) throw new Error("no people");
    const configured = await world.start({
      mode: "http",
      env: { SLACK_APP_TOKEN: "", SLACK_SIGNING_SECRET: world.slack.signingSecret },
    });
    const url = `${configured.daemon.opsUrl}/slack/interactivity`;
    await world.emulator.control.signals({ employeeId: jane, changeType: "open_to_work", riskScore: 0.9 });
    await world.emulator.control.signals({ employeeId: john, changeType: "open_to_work", riskScore: 0.9 });
    const janeRoot = await rootAbout(world.slack, jane);
    const johnRoot = await rootAbout(world.slack, john);

    // Stop tracking pressed on Jane's alert, its value swapped for John's button's.
    const johnsValue = buttonValue(johnRoot, "rs_untrack");
    const swapped = pressPayload(janeRoot, "rs_untrack", ALLOWED, "1700000011.1", johnsValue);
    expect((await world.slack.postInteractivity(url, swapped)).status).toBe(200);
    // An acknowledge on a ts this daemon never posted in that channel.
    const unposted = pressPayload({ ...janeRoot, ts: "1700000000.999999" }, "rs_ack", "U0ALICE", "1700000012.1");
    expect((await world.slack.postInteractivity(url, unposted)).status).toBe(200);

    const ignored = await ignoredPresses(world, 2);
    expect(ignored.map((line) => [line.level, line.action, line.reason])).toEqual([
      [40, "untrack", "the person is not one that message carried"],
      [40, "ack", "this daemon has no record of posting that message"],
    ]);
    expect((await world.client.getEmployee(john)).tracked).toBe(true);
    expect((await world.client.getEmployee(jane)).tracked).toBe(true);
    expect(world.slack.updates()).toHaveLength(0);
    expect(world.slack.ephemerals()).toHaveLength(0);
    await world.stop();
    const store = await openStateStore(`${world.files.dir}/state.sqlite`);
    try {
      expect(await new ActionJournal(store).all()).toEqual([]);
      expect((await loadKeptUntracked(store)).size).toBe(0);
    } finally {
      await store.close();
    }
  });
});
