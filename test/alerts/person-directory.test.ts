import { describe, expect, it } from "vitest";
import { PERSON_CACHE_TTL_MS, PersonDirectory } from "../../src/alerts/person-directory.js";
import type { Employee, Page } from "../../src/api/spec-records.js";
import { silentLogger } from "../../src/logger.js";
import { ACME, RETENTION } from "./support/build-alert.js";

function person(id: number): Employee {
  return {
    id,
    organizationId: 1,
    name: `P${id}`,
    networkUrl: `https://www.linkedin.com/in/p${id}`,
    tracked: true,
    status: "active",
  } as Employee;
}

/** A roster of `ids` (newest first), listed 100 a page, with a log of the requests. */
function fakeService(initial: number[]) {
  let ids = [...initial];
  const requests: string[] = [];
  return {
    requests,
    join(id: number) {
      ids = [id, ...ids];
    },
    client: {
      async listEmployees(query: {
        organizationId?: number;
        page?: number;
        pageSize?: number;
      }): Promise<Page<Employee>> {
        const page = query.page ?? 1;
        const size = query.pageSize ?? 25;
        requests.push(`list org=${query.organizationId ?? "own"} page=${page}`);
        const items = ids.slice((page - 1) * size, page * size).map(person);
        return { items, page, pageSize: size, total: ids.length, hasMore: page * size < ids.length };
      },
      async getEmployee(id: number): Promise<Employee> {
        requests.push(`get ${id}`);
        if (!ids.includes(id) && id < 100_000) throw new Error("404");
        return person(id);
      },
    },
  };
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe("PersonDirectory", () => {
  it("serves 1,000 look-ups from the roster's list pages: 3 requests for 300 people", async () => {
    const service = fakeService(range(1, 300));
    const directory = new PersonDirectory(service.client, { logger: silentLogger() });
    for (let i = 0; i < 1000; i += 1) {
      const found = await directory.find((i % 300) + 1, RETENTION);
      expect(found?.id).toBe((i % 300) + 1);
    }
    expect(service.requests).toEqual(["list org=own page=1", "list org=own page=2", "list org=own page=3"]);
    expect(directory.counts).toEqual({ listPages: 3, singleReads: 0 });
  });

  it("reads a competitor's roster with its organizationId", async () => {
    const service = fakeService(range(1, 5));
    const directory = new PersonDirectory(service.client, { logger: silentLogger() });
    await directory.find(3, ACME);
    expect(service.requests).toEqual([`list org=${ACME.organizationId} page=1`]);
  });

  it("finds a joiner on the newest page, and reads the whole roster again only after the TTL", async () => {
    const service = fakeService(range(1, 250));
    let now = 0;
    const directory = new PersonDirectory(service.client, { logger: silentLogger(), now: () => now });
    await directory.find(1, RETENTION);
    service.requests.length = 0;
    service.join(999);
    expect((await directory.find(999, RETENTION))?.id).toBe(999);
    expect(service.requests).toEqual(["list org=own page=1"]);
    service.requests.length = 0;
    now = PERSON_CACHE_TTL_MS + 1;
    await directory.find(2, RETENTION);
    expect(service.requests).toEqual(["list org=own page=1", "list org=own page=2", "list org=own page=3"]);
  });

  it("looks up alone, once, someone no list page holds", async () => {
    const service = fakeService(range(1, 10));
    const directory = new PersonDirectory(service.client, { logger: silentLogger() });
    expect((await directory.find(100_001, RETENTION))?.id).toBe(100_001);
    expect(await directory.find(55, RETENTION)).toBeUndefined();
    expect(await directory.find(55, RETENTION)).toBeUndefined();
    expect(service.requests).toEqual(["list org=own page=1", "get 100001", "list org=own page=1", "get 55"]);
  });

  it("falls back to single look-ups when the list cannot be read, and fails on shutdown", async () => {
    const service = fakeService(range(1, 10));
    const failing = {
      ...service.client,
      listEmployees: () => Promise.reject(new Error("503")),
    };
    const directory = new PersonDirectory(failing, { logger: silentLogger() });
    expect((await directory.find(4, RETENTION))?.id).toBe(4);
    const stop = new AbortController();
    stop.abort();
    await expect(directory.find(5, RETENTION, stop.signal)).rejects.toThrow("503");
  });
});
