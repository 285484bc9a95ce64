/**
 * The world the fault and crash suites run the daemon against, and how they judge the outcome:
 * a company roster with joiners, leavers and rehires in its HRIS file, a competitor workspace,
 * and risk changes on distinct people of both lenses, each of which must reach Slack once.
 */
import { RetentionClient } from "../../../src/api/client.js";
import type { DaemonWorld } from "../../helpers/daemon-world.js";
import type { FakeSlack } from "../../helpers/fake-slack.js";
import { canonicalUrl, makePeople, toCsv } from "../../helpers/roster-files.js";
import type { TestEmulator } from "../../helpers/start-emulator.js";

export const SIZES = {
  /** Own people on the service before the first run: `own-0` ... `own-99`. */
  own: 100,
  /** `own-0` ... `own-4` are archived on the service and back in the HRIS file. */
  rehires: 5,
  /** People of the competitor workspace: `rival-0` ... `rival-39`. */
  rivals: 40,
} as const;

/**
 * What the HRIS file says: `own-0` ... `own-<keepOwn - 1>` stay (the others are leavers) and
 * `new-0` ... `new-<joiners - 1>` join.
 */
export interface RosterPlan {
  readonly keepOwn: number;
  readonly joiners: number;
}

/** 8 leavers (8 %, under the mass-archive guard) and 120 joiners (bulk chunks of 50, 50, 20). */
export const DEFAULT_PLAN: RosterPlan = { keepOwn: 92, joiners: 120 };

/**
 * The daemon's config for these suites (the HRIS file, key and Slack come from the environment):
 * every alert of either lens, one channel per lens, digests above 25 alerts per channel and pass;
 * leavers archived on the first file that misses them, people the HRIS never listed included.
 */
export function scenarioConfigYaml(options: { pollSeconds: number; timeoutSeconds: number }): string {
  return `api: { requestsPerMinute: 6000, timeoutSeconds: ${options.timeoutSeconds}, maxRetries: 6 }
slack: { messagesPerSecondPerChannel: 10 }
alerts:
  pollInterval: ${options.pollSeconds}
  digestThreshold: 25
  routes:
    - { name: retention, lens: retention, minRiskLevel: low, channel: "#hr-alerts" }
    - { name: poaching, lens: poaching, minRiskLevel: low, channel: "#poaching-alerts" }
roster:
  runOnStart: true
  schedule: "0 3 * * *"
  archiveUnknown: true
  archiveAfterMissingRuns: 1
# The grace only bounds a hang: a clean stop must come from the jobs answering the abort, not from a race with a timer.
daemon: { port: 0, host: 127.0.0.1, shutdownGraceSeconds: 60 }
log: { level: debug }
`;
}

export interface Scenario {
  readonly hrisFile: string;
  readonly competitorId: number;
  /** What the HRIS file says now. */
  readonly plan: RosterPlan;
  /** Risk changes raised so far, by person name ("Person own 12"). */
  readonly raised: Map<string, number>;
  /** Raises one high-risk change on each named person (own or rival), through the control API. */
  raise(people: readonly string[]): Promise<void>;
  /** Writes a new version of the HRIS file. */
  writeHris(plan: RosterPlan): Promise<void>;
}

/** Seeds the service side and writes the HRIS export; no faults are on while this runs. */
export async function setUpScenario(world: DaemonWorld): Promise<Scenario> {
  const { emulator } = world;
  const client = new RetentionClient({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.writeKey,
    requestsPerMinute: 10_000,
  });
  try {
    await emulator.control.seedPeople({ count: SIZES.own, slugPrefix: "own", tracked: true });
    const competitor = await client.addCompetitor({
      name: "Acme Corp",
      companyNetworkUrl: "https://www.linkedin.com/company/acme-corp",
    });
    await emulator.control.seedPeople({
      count: SIZES.rivals,
      slugPrefix: "rival",
      tracked: true,
      organizationId: competitor.id,
    });
    const ids = new Map<string, number>();
    for await (const e of client.iterateEmployees({ pageSize: 100 })) ids.set(e.networkUrl, e.id);
    for await (const e of client.iterateEmployees({ organizationId: competitor.id, pageSize: 100 })) {
      ids.set(e.networkUrl, e.id);
    }
    for (let i = 0; i < SIZES.rehires; i += 1) {
      await client.updateEmployee(idOf(ids, `own-${i}`), { status: "archived" });
    }
    const raised = new Map<string, number>();
    let plan = DEFAULT_PLAN;
    const writeHris = async (next: RosterPlan) => {
      const joiners = makePeople(next.joiners, { prefix: "new" }).map((p) => ({
        ...p,
        employeeId: `N${p.employeeId}`,
      }));
      const people = [...makePeople(next.keepOwn, { prefix: "own" }), ...joiners];
      await world.files.write("hris.csv", toCsv(people));
      plan = next;
    };
    await writeHris(plan);
    return {
      hrisFile: `${world.files.dir}/hris.csv`,
      competitorId: competitor.id,
      get plan() {
        return plan;
      },
      raised,
      writeHris,
      async raise(people) {
        for (const slug of people) {
          await emulator.control.signals({ employeeId: idOf(ids, slug), riskScore: 0.9 });
          const name = personName(slug);
          raised.set(name, (raised.get(name) ?? 0) + 1);
        }
      },
    };
  } finally {
    await client.close();
  }
}

function idOf(ids: ReadonlyMap<string, number>, slug: string): number {
  const id = ids.get(canonicalUrl(slug));
  if (id === undefined) throw new Error(`scenario: no employee ${slug}`);
  return id;
}

/** "own-12" -> "Person own 12", the name the emulator gives seeded people. */
export function personName(slug: string): string {
  const cut = slug.lastIndexOf("-");
  return `Person ${slug.slice(0, cut)} ${slug.slice(cut + 1)}`;
}

export function slugs(prefix: string, from: number, to: number): string[] {
  return Array.from({ length: to - from }, (_, i) => `${prefix}-${from + i}`);
}

/** What the roster must be once `plan` is reconciled: canonical URL -> status and tracking. */
export function expectedRoster(plan: RosterPlan): Map<string, { status: "active" | "archived"; tracked: boolean }> {
  const expected = new Map<string, { status: "active" | "archived"; tracked: boolean }>();
  for (let i = 0; i < SIZES.own; i += 1) {
    const leaver = i >= plan.keepOwn;
    expected.set(
      canonicalUrl(`own-${i}`),
      leaver ? { status: "archived", tracked: false } : { status: "active", tracked: true },
    );
  }
  for (let i = 0; i < plan.joiners; i += 1) expected.set(canonicalUrl(`new-${i}`), { status: "active", tracked: true });
  return expected;
}

export interface RosterCheck {
  /** Rows whose status or tracking differs from the plan (URL: what is there). */
  readonly wrong: string[];
  /** Planned people with no row at all. */
  readonly missing: string[];
  /** Profile URLs with more than one row: a duplicate add. */
  readonly duplicates: string[];
  /** Rows the plan does not know. */
  readonly unexpected: string[];
}

/** Compares the emulator's own-company rows (read through the control API, never faulted) with the plan. */
export async function checkRoster(emulator: TestEmulator, plan: RosterPlan): Promise<RosterCheck> {
  const state = (await emulator.control.state()) as {
    employees: Array<{ organizationId: number; networkUrl: string; status: string; tracked: boolean }>;
  };
  const rows = state.employees.filter((e) => e.organizationId === emulator.organizationId);
  const expected = expectedRoster(plan);
  const seen = new Map<string, number>();
  const wrong: string[] = [];
  const unexpected: string[] = [];
  for (const row of rows) {
    seen.set(row.networkUrl, (seen.get(row.networkUrl) ?? 0) + 1);
    const want = expected.get(row.networkUrl);
    if (!want) unexpected.push(row.networkUrl);
    else if (want.tracked !== row.tracked || (want.status === "archived") !== (row.status === "archived")) {
      wrong.push(`${row.networkUrl}: ${row.status}${row.tracked ? " tracked" : ""}`);
    }
  }
  return {
    wrong,
    missing: [...expected.keys()].filter((url) => !seen.has(url)),
    duplicates: [...seen].filter(([, n]) => n > 1).map(([url]) => url),
    unexpected,
  };
}

export function rosterConverged(check: RosterCheck): boolean {
  return (
    check.wrong.length === 0 &&
    check.missing.length === 0 &&
    check.duplicates.length === 0 &&
    check.unexpected.length === 0
  );
}

/**
 * How many times each person appears in the Slack messages posted so far: once per single alert
 * (the linked name in its first section) and once per digest line.
 */
export function slackTally(slack: FakeSlack): Map<string, number> {
  const tally = new Map<string, number>();
  for (const message of slack.posted()) {
    for (const match of JSON.stringify(message.blocks ?? []).matchAll(/\|(Person (?:own|rival) \d+)>/g)) {
      const name = match[1] ?? "";
      tally.set(name, (tally.get(name) ?? 0) + 1);
    }
  }
  return tally;
}

export interface DeliveryCheck {
  /** People with a change raised and no alert in Slack. */
  readonly lost: string[];
  /** People posted more often than changes were raised for them, with the surplus. */
  readonly doubled: Array<{ readonly name: string; readonly extra: number }>;
  /** People in Slack with no change raised. */
  readonly unexpected: string[];
}

export function checkDelivery(raised: ReadonlyMap<string, number>, slack: FakeSlack): DeliveryCheck {
  const tally = slackTally(slack);
  const lost: string[] = [];
  const doubled: Array<{ name: string; extra: number }> = [];
  for (const [name, count] of raised) {
    const got = tally.get(name) ?? 0;
    if (got < count) lost.push(name);
    else if (got > count) doubled.push({ name, extra: got - count });
  }
  return { lost, doubled, unexpected: [...tally.keys()].filter((name) => !raised.has(name)) };
}

/** Polls `check` every 100 ms until it returns true or `ms` pass; returns whether it did. */
export async function eventually(check: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
