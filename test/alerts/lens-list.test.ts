import { afterEach, describe, expect, it } from "vitest";
import { createAlertPipeline } from "../../src/alerts/alert-pipeline.js";
import { alertSettings } from "../../src/alerts/alert-settings.js";
import { LENS_LIST_REFRESH_MS, LensList } from "../../src/alerts/lens-list.js";
import { CURSOR_NAMESPACE, type PollClient } from "../../src/alerts/poll-changes.js";
import type { ChangeItem } from "../../src/api/change-item.js";
import type { Employee, Me, Page } from "../../src/api/spec-records.js";
import { createDelivery } from "../../src/app/runtime.js";
import { configSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/logger.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";

const OWN_ORG = 1;
const ACME = { id: 2, name: "Acme Corp" };
const GLOBEX = { id: 3, name: "Globex" };
const T0 = Date.parse("2026-03-02T09:00:00.000Z");
const MINUTE = 60_000;

/** A PollClient without HTTP that counts its requests; a competitor in `failing` fails to list its changes. */
class CountingClient implements PollClient {
  competitors: Array<{ id: number; name: string }> = [ACME];
  readonly failing = new Set<number>();
  /** Called before a lens's changes are listed (the organization polled). */
  onChanges: (organizationId: number) => void = () => {};
  readonly requests = { me: 0, changes: [] as number[] };

  /** The own company and the competitor workspaces (spec 2.2): the one request a lens list costs. */
  async me(): Promise<Me> {
    this.requests.me += 1;
    return {
      organization: { id: OWN_ORG, name: "Own Company" },
      competitors: this.competitors.map(({ id, name }) => ({ id, name })),
      scopes: ["read"],
    };
  }

  // biome-ignore lint/correctness/useYield: a feed with nothing new; the fake only counts and fails.
  async *iterateChanges(query: { organizationId?: number | undefined } = {}): AsyncGenerator<ChangeItem> {
    const organizationId = query.organizationId ?? OWN_ORG;
    this.requests.changes.push(organizationId);
    this.onChanges(organizationId);
    if (this.failing.has(organizationId)) throw new Error(`GET /changes: 404 COMPETITOR_NOT_FOUND (${organizationId})`);
  }

  async getEmployee(id: number): Promise<Employee> {
    throw new Error(`no employee look-up expected (asked for ${id})`);
  }

  async listEmployees(): Promise<Page<Employee>> {
    return { items: [], total: 0, page: 1, pageSize: 100, hasMore: false };
  }
}

const settings = alertSettings(
  configSchema.parse({
    alerts: {
      routes: [
        { name: "hr", lens: "retention", minRiskLevel: "low", channel: "#hr-alerts" },
        { name: "poaching", lens: "poaching", minRiskLevel: "low", channel: "#poaching-alerts" },
      ],
    },
  }),
);

const stores: StateStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** The real pipeline over an in-memory store, no Slack poster (its flush is a no-op). */
async function pipelineWith(client: CountingClient, store?: StateStore) {
  const state = store ?? (await openStateStore(":memory:"));
  stores.push(state);
  const logger = silentLogger();
  const pipeline = createAlertPipeline({
    settings,
    store: state,
    client,
    delivery: createDelivery(settings, { store: state, logger }),
    logger,
  });
  return (atMs: number, signal?: AbortSignal) => pipeline.poll({ now: new Date(atMs), dryRun: false, signal });
}

describe("the poll pass's lens list", () => {
  it("is read once over several passes within the refresh interval", async () => {
    const client = new CountingClient();
    const poll = await pipelineWith(client);
    for (const at of [T0, T0 + MINUTE, T0 + LENS_LIST_REFRESH_MS - 1]) {
      const report = await poll(at);
      expect(report.lenses.map((l) => l.lens)).toEqual([`retention:${OWN_ORG}`, `poaching:${ACME.id}`]);
    }
    expect(client.requests).toMatchObject({ me: 1 });
    // Each pass still reads both lenses' changes.
    expect(client.requests.changes).toEqual([OWN_ORG, ACME.id, OWN_ORG, ACME.id, OWN_ORG, ACME.id]);
  });

  it("is read again once it is as old as the refresh interval, by the pass's clock", async () => {
    const client = new CountingClient();
    const poll = await pipelineWith(client);
    await poll(T0);
    await poll(T0 + LENS_LIST_REFRESH_MS);
    expect(client.requests).toMatchObject({ me: 2 });
    await poll(T0 + LENS_LIST_REFRESH_MS + MINUTE);
    expect(client.requests).toMatchObject({ me: 2 });
  });

  it("polls a competitor workspace added since, once the interval has passed", async () => {
    const client = new CountingClient();
    const poll = await pipelineWith(client);
    await poll(T0);
    client.competitors = [ACME, GLOBEX];
    const soon = await poll(T0 + MINUTE);
    expect(soon.lenses.map((l) => l.lens)).not.toContain(`poaching:${GLOBEX.id}`);
    const later = await poll(T0 + LENS_LIST_REFRESH_MS);
    expect(later.lenses.map((l) => l.lens)).toContain(`poaching:${GLOBEX.id}`);
    expect(later.lenses.find((l) => l.lens === `poaching:${GLOBEX.id}`)?.error).toBeUndefined();
    expect(client.requests.changes.filter((org) => org === GLOBEX.id)).toHaveLength(1);
  });

  it("is read again on the pass after a lens failed to read its changes, and then kept again", async () => {
    const client = new CountingClient();
    const poll = await pipelineWith(client);
    await poll(T0);
    // The workspace is deleted: its lens fails on the next pass, and the pass after lists the lenses anew.
    client.failing.add(ACME.id);
    client.competitors = [];
    const failed = await poll(T0 + MINUTE);
    expect(failed.lenses.find((l) => l.lens === `poaching:${ACME.id}`)?.error).toContain("404");
    expect(client.requests).toMatchObject({ me: 1 });
    const next = await poll(T0 + 2 * MINUTE);
    expect(client.requests).toMatchObject({ me: 2 });
    expect(next.lenses.map((l) => l.lens)).toEqual([`retention:${OWN_ORG}`]);
    await poll(T0 + 3 * MINUTE);
    expect(client.requests).toMatchObject({ me: 2 });
  });

  it("is kept when shutdown cuts a pass short during a lens read", async () => {
    const client = new CountingClient();
    const poll = await pipelineWith(client);
    await poll(T0);
    const shutdown = new AbortController();
    client.onChanges = (org) => {
      if (org !== ACME.id) return;
      shutdown.abort();
      throw new Error("aborted");
    };
    expect((await poll(T0 + MINUTE, shutdown.signal)).stopped).toBe(true);
    client.onChanges = () => {};
    await poll(T0 + 2 * MINUTE);
    expect(client.requests).toMatchObject({ me: 1 });
  });

  it("a failed read fails the pass (no stale list) and is tried again on the next pass", async () => {
    const client = new CountingClient();
    const poll = await pipelineWith(client);
    await poll(T0);
    const down = new Error("GET /me: 503 Service Unavailable");
    client.me = async () => {
      client.requests.me += 1;
      throw down;
    };
    const failed = await poll(T0 + LENS_LIST_REFRESH_MS);
    expect(failed.error).toBe(down.message);
    expect(failed.lenses).toEqual([]);
    const again = await poll(T0 + LENS_LIST_REFRESH_MS + MINUTE);
    expect(again.error).toBe(down.message);
    expect(client.requests.me).toBe(3);
  });

  it("reads every polled lens's cursor in one read and still resumes each lens from its cursor", async () => {
    const client = new CountingClient();
    client.competitors = [ACME, GLOBEX];
    const store = await openStateStore(":memory:");
    const cursors = store.namespace(CURSOR_NAMESPACE);
    const reads = { get: 0, getMany: 0 };
    const get = cursors.get.bind(cursors);
    const getMany = cursors.getMany.bind(cursors);
    cursors.get = (key) => {
      reads.get += 1;
      return get(key);
    };
    cursors.getMany = (keys) => {
      reads.getMany += 1;
      return getMany(keys);
    };
    const counted = new Proxy(store, {
      get: (target, name) => {
        if (name === "namespace") {
          return (namespace: string) => (namespace === CURSOR_NAMESPACE ? cursors : target.namespace(namespace));
        }
        const value: unknown = Reflect.get(target, name, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const poll = await pipelineWith(client, counted);
    const first = await poll(T0);
    const second = await poll(T0 + MINUTE);
    expect(reads).toEqual({ get: 0, getMany: 2 });
    expect(second.lenses).toHaveLength(3);
    for (const lens of second.lenses) {
      const cursor = first.lenses.find((l) => l.lens === lens.lens)?.cursor;
      expect(cursor).toBeDefined();
      expect(lens.since).toBe(new Date(Date.parse(cursor ?? "") - settings.cursorOverlapSeconds * 1000).toISOString());
    }
  });
});

describe("LensList", () => {
  it("reads again when the clock went back, and after invalidate", async () => {
    const client = new CountingClient();
    const list = new LensList(client, { refreshMs: 10 * MINUTE });
    await list.current(T0);
    await list.current(T0 + 9 * MINUTE);
    expect(client.requests.me).toBe(1);
    await list.current(T0 - MINUTE);
    expect(client.requests.me).toBe(2);
    list.invalidate();
    expect(await list.current(T0)).toEqual([
      { kind: "retention", organizationId: OWN_ORG },
      { kind: "poaching", organizationId: ACME.id, competitor: ACME },
    ]);
    expect(client.requests).toMatchObject({ me: 3 });
  });
});
