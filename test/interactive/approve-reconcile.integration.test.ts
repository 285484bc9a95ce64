/**
 * A reconcile held for a person, approved from Slack: the daemon's real Socket Mode client
 * against the fake Slack, the emulator as the service. The held plan's post carries Review and
 * Approve; Review shows the plan to the presser only; Approve by an allowed user applies exactly
 * the plan, once, and a stale plan is refused with nothing changed.
 */
import { statSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ActionJournal, isPlanEntry } from "../../src/interactive/action-journal.js";
import { actionRows } from "../../src/interactive/action-list.js";
import { UsergroupCache, usergroupKvCache } from "../../src/interactive/usergroup-cache.js";
import { silentLogger } from "../../src/logger.js";
import { openStateStore } from "../../src/store/state-store.js";
import type { FakeSlackMessage } from "../helpers/fake-slack.js";
import { type HrisPerson, makePeople, toCsv, urlOf } from "../helpers/roster-files.js";
import {
  ALLOWED,
  blocksText,
  current,
  GROUP_MEMBER,
  HR_GROUP,
  type InteractiveWorld,
  pressPayload,
  startInteractiveWorld,
  until,
} from "./support/interactive-world.js";

const OPS = "#retention-ops";
const OUTSIDER = "U0BOB";

let world: InteractiveWorld;
beforeEach(async () => {
  world = await startInteractiveWorld({ people: 0 });
});
afterEach(async () => {
  await world.close();
});

/** The daemon with reconcile on (never on its own schedule: the test runs it) and approvers set. */
async function startDaemon(rosterLines: readonly string[] = []) {
  const roster = `${world.files.dir}/hris.csv`;
  return world.start({
    extra: ["roster:", '  schedule: "0 2 1 1 *"', ...rosterLines].join("\n"),
    env: { HRIS_ROSTER_FILE: roster, SLACK_OPS_CHANNEL: OPS },
    interactivityLines: [
      "    approveReconcile:",
      `      allowedUsers: ["${ALLOWED}"]`,
      `      allowedUsergroups: ["${HR_GROUP}"]`,
    ],
  });
}

const writeExport = (people: readonly HrisPerson[]) => world.files.write("hris.csv", toCsv(people));

/** The service's roster: profile URL → archived or live. */
async function serviceRoster(): Promise<Map<string, { archived: boolean; tracked: boolean }>> {
  const out = new Map<string, { archived: boolean; tracked: boolean }>();
  for await (const e of world.client.iterateEmployees({ pageSize: 100 })) {
    out.set(e.networkUrl, { archived: e.status === "archived", tracked: e.tracked });
  }
  return out;
}

async function archivedUrls(): Promise<string[]> {
  return [...(await serviceRoster())].filter(([, p]) => p.archived).map(([url]) => url);
}

/** The ops posts carrying plan buttons. */
const heldPosts = () => world.slack.posted(OPS).filter((m) => blocksText(m).includes('"action_id":"rs_plan_approve"'));

/** The plan id the post names in words. */
function planIdOf(post: FakeSlackMessage): string {
  const id = /Plan ([0-9a-f]{8}) waits for approval/.exec(blocksText(post))?.[1];
  if (!id) throw new Error("the post names no plan");
  return id;
}

function press(post: FakeSlackMessage, actionId: string, userId: string) {
  return world.slack.pressButton({ channel: post.channel, ts: post.ts, actionId, userId });
}

const ephemeralTo = (user: string, text: string) =>
  until(`an ephemeral note to ${user} saying "${text}"`, () =>
    world.slack.ephemerals().find((e) => e.user === user && JSON.stringify([e.text, e.blocks]).includes(text)),
  );

async function planJournal() {
  const store = await openStateStore(`${world.files.dir}/state.sqlite`);
  try {
    return (await new ActionJournal(store).all()).filter(isPlanEntry);
  } finally {
    await store.close();
  }
}

describe("approving a held reconcile from Slack", () => {
  it("a held mass-archive guard: Review shows the plan, an outsider is refused, two approvals at once apply it once and the report names the approver", async () => {
    const people = makePeople(20);
    await writeExport(people);
    const configured = await startDaemon(["  archiveAfterMissingExports: 1"]);
    await configured.daemon.reconcileNow();
    expect([...(await serviceRoster()).values()].filter((p) => !p.archived)).toHaveLength(20);

    // 8 of 20 leave: 40 %, over the 10 % limit. The guard holds them; the post carries the plan.
    const stay = people.slice(0, 12);
    const leavers = people.slice(12);
    await writeExport(stay);
    await configured.daemon.reconcileNow();
    const post = await until("the held plan's post", () => heldPosts()[0]);
    const planId = planIdOf(post);
    expect(blocksText(post)).toContain('"action_id":"rs_plan_review"');
    expect(blocksText(post)).toContain("archive 8");
    expect(await archivedUrls()).toEqual([]);
    await world.slack.waitForSocketConnection();

    const review = press(post, "rs_plan_review", OUTSIDER);
    await world.slack.waitForAck(review.envelopeId);
    const shown = await ephemeralTo(OUTSIDER, `Plan ${planId}`);
    const reviewText = JSON.stringify(shown.blocks);
    for (const leaver of leavers) expect(reviewText).toContain(leaver.slug);
    for (const stayer of stay) expect(reviewText).not.toContain(`${stayer.slug}"`);
    expect(reviewText).toContain("archive (8)");
    expect(reviewText).toContain("seat delta -8");

    const refused = press(post, "rs_plan_approve", OUTSIDER);
    await world.slack.waitForAck(refused.envelopeId);
    await ephemeralTo(OUTSIDER, "slack.interactivity.approveReconcile");
    expect(await archivedUrls()).toEqual([]);

    // Two allowed people press Approve at once, on the message as both see it.
    const reportsBefore = world.slack.posted(OPS).length;
    const first = world.slack.sendEnvelope({
      type: "interactive",
      payload: pressPayload(post, "rs_plan_approve", ALLOWED, "1700000001.000100"),
    });
    const second = world.slack.sendEnvelope({
      type: "interactive",
      payload: pressPayload(post, "rs_plan_approve", GROUP_MEMBER, "1700000001.000200"),
    });
    await world.slack.waitForAck(first.envelopeId);
    await world.slack.waitForAck(second.envelopeId);
    const settled = await until("the settled post", () => {
      const now = current(world.slack, post);
      return blocksText(now).includes(`Plan ${planId} approved by`) ? now : undefined;
    });
    expect(blocksText(settled)).not.toContain("rs_plan_approve");
    expect(blocksText(settled)).toContain("8 archived");
    const approver = blocksText(settled).includes(`approved by <@${ALLOWED}>`) ? ALLOWED : GROUP_MEMBER;
    const other = approver === ALLOWED ? GROUP_MEMBER : ALLOWED;
    await ephemeralTo(other, "was already approved");
    expect((await archivedUrls()).sort()).toEqual(leavers.map(urlOf).sort());

    const report = await until("the report of the apply", () =>
      world.slack.posted(OPS).find((m) => blocksText(m).includes(`approved in Slack by <@${approver}>`)),
    );
    expect(blocksText(report)).toContain("mass-archive guard lifted by an approval in Slack for 8 people");
    expect(world.slack.posted(OPS)).toHaveLength(reportsBefore + 1);

    // Pressed again later (by a member of the group, whom the fake Slack knows as a workspace user): nothing more.
    const notesBefore = world.slack.ephemerals().length;
    const again = world.slack.sendEnvelope({
      type: "interactive",
      payload: pressPayload(post, "rs_plan_approve", GROUP_MEMBER, "1700000002.000100"),
    });
    await world.slack.waitForAck(again.envelopeId);
    await until("the note to the second approval", () =>
      world.slack
        .ephemerals()
        .slice(notesBefore)
        .find((e) => String(e.text).includes("was already approved")),
    );
    await world.stop();
    expect(world.slack.posted(OPS)).toHaveLength(reportsBefore + 1);
    expect((await archivedUrls()).sort()).toEqual(leavers.map(urlOf).sort());

    const entries = await planJournal();
    const userId = (user: string) => /\(([UW]\w+)\)$/.exec(user)?.[1] ?? user;
    const rows = actionRows(entries, 0).map((r) => [userId(r.user), r.action, r.person, r.outcome]);
    expect(rows).toContainEqual([OUTSIDER, "approve reconcile", `plan ${planId}`, "refused"]);
    expect(rows).toContainEqual([approver, "approve reconcile", `plan ${planId}`, "applied"]);
    expect(rows.filter((r) => r[3] === "applied")).toHaveLength(1);
    expect(actionRows(entries, 0).find((r) => r.outcome === "applied")?.detail).toBe(`plan ${planId}: 8 archived`);
  });

  it("a stale held plan is refused: the presser is told what changed, the post says a new plan comes, nothing is archived", async () => {
    const people = makePeople(20);
    await writeExport(people);
    const configured = await startDaemon(["  archiveAfterMissingExports: 1"]);
    await configured.daemon.reconcileNow();
    await writeExport(people.slice(0, 12));
    await configured.daemon.reconcileNow();
    const post = await until("the held plan's post", () => heldPosts()[0]);
    const planId = planIdOf(post);

    // One leaver is back in the export before the approval: the plan is no longer what is true.
    const back = people[12] as HrisPerson;
    await writeExport([...people.slice(0, 12), back]);
    await world.slack.waitForSocketConnection();
    const approve = press(post, "rs_plan_approve", ALLOWED);
    await world.slack.waitForAck(approve.envelopeId);
    const note = await ephemeralTo(ALLOWED, `Plan ${planId} is stale`);
    expect(note.text).toContain(`- archive`);
    expect(note.text).toContain(back.slug);
    expect(note.text).toContain("the export changed");
    expect(note.text).toContain("A new plan comes with the next run.");
    const updated = await until("the refused post", () => {
      const now = current(world.slack, post);
      return blocksText(now).includes("was not applied: it is stale") ? now : undefined;
    });
    expect(blocksText(updated)).toContain("A new plan comes with the next run.");
    expect(blocksText(updated)).not.toContain("rs_plan_approve");
    expect(await archivedUrls()).toEqual([]);
    await world.stop();
    expect((await planJournal()).map((e) => e.outcome)).toEqual(["refused"]);
  });

  it("adds deferred by roster.maxSeats: Approve adds the people the plan names, for that plan only", async () => {
    const people = makePeople(5);
    await writeExport(people);
    const configured = await startDaemon(["  maxSeats: 3"]);
    await configured.daemon.reconcileNow();
    expect([...(await serviceRoster()).values()].filter((p) => p.tracked)).toHaveLength(3);
    const post = await until("the held plan's post", () => heldPosts()[0]);
    const planId = planIdOf(post);
    expect(blocksText(post)).toContain("roster.maxSeats");
    const before = new Set((await serviceRoster()).keys());
    const deferred = people.map(urlOf).filter((url) => !before.has(url));
    expect(deferred).toHaveLength(2);

    await world.slack.waitForSocketConnection();
    const approve = press(post, "rs_plan_approve", GROUP_MEMBER);
    await world.slack.waitForAck(approve.envelopeId);
    await until("the settled post", () =>
      blocksText(current(world.slack, post)).includes(`Plan ${planId} approved by <@${GROUP_MEMBER}>`)
        ? true
        : undefined,
    );
    const after = await serviceRoster();
    for (const url of deferred) expect(after.get(url)?.tracked).toBe(true);
    expect([...after.values()].filter((p) => p.tracked)).toHaveLength(5);
    const report = await until("the report of the apply", () =>
      world.slack.posted(OPS).find((m) => blocksText(m).includes(`approved in Slack by <@${GROUP_MEMBER}>`)),
    );
    expect(blocksText(report)).toContain("roster.maxSeats");

    // For that plan only: a new joiner is deferred again by the cap on the next run.
    await writeExport([...people, ...makePeople(1, { prefix: "joiner" })]);
    await configured.daemon.reconcileNow();
    expect([...(await serviceRoster()).values()].filter((p) => p.tracked)).toHaveLength(5);

    // The group's members the daemon read are in keyv's file beside the state, owner-only, closed at stop.
    await world.stop();
    const state = `${world.files.dir}/state.sqlite`;
    expect(statSync(`${state}.cache.sqlite`).mode & 0o777).toBe(0o600);
    const slackDown = async (): Promise<string[]> => {
      throw new Error("slack is down");
    };
    const cache = new UsergroupCache(slackDown, silentLogger(), usergroupKvCache(state, silentLogger()));
    expect(await cache.members([HR_GROUP])).toEqual(new Map([[HR_GROUP, [GROUP_MEMBER]]]));
    await cache.close();
  });
});
