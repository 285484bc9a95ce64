import { describe, expect, it } from "vitest";
import { ChangeEnricher, type EnrichDeps } from "../../src/alerts/enrich.js";
import type { ChangeItem } from "../../src/api/change-item.js";
import type { Employee } from "../../src/api/spec-records.js";
import { silentLogger } from "../../src/logger.js";
import { ACME, RETENTION } from "./support/build-alert.js";

function item(overrides: Partial<ChangeItem> = {}): ChangeItem {
  return {
    key: "chg:1",
    id: 1,
    employeeId: 42,
    changeType: "open_to_work",
    riskScore: 0.9,
    riskLevel: "high",
    detectedAt: "2026-11-23T09:00:00.000Z",
    ...overrides,
  };
}

function employee(overrides: Partial<Employee> = {}): Employee {
  return {
    id: 42,
    name: "Dana Fetched",
    networkUrl: "https://www.linkedin.com/in/dana",
    title: "Controller",
    department: "Finance",
    location: "Berlin, Germany",
    ...overrides,
  } as Employee;
}

function enricher(deps: Partial<EnrichDeps> = {}) {
  const calls: number[] = [];
  const made = new ChangeEnricher({
    getEmployee: async (id) => {
      calls.push(id);
      return employee({ id });
    },
    logger: silentLogger(),
    ...deps,
  });
  return { enricher: made, calls };
}

describe("ChangeEnricher", () => {
  it("uses the person embedded in the change and asks the API nothing", async () => {
    const { enricher: e, calls } = enricher();
    const alert = await e.toAlert(
      item({ employee: { id: 42, name: "Dana Embedded", networkUrl: "https://www.linkedin.com/in/dana" } }),
      RETENTION,
    );
    expect(alert.person.name).toBe("Dana Embedded");
    expect(calls).toEqual([]);
  });

  it("fetches a person the change does not describe, once per person however many changes name them", async () => {
    const { enricher: e, calls } = enricher();
    const first = await e.toAlert(item({ key: "chg:1" }), RETENTION);
    await e.toAlert(item({ key: "chg:2" }), RETENTION);
    expect(calls).toEqual([42]);
    expect(first.person).toMatchObject({ name: "Dana Fetched", title: "Controller", department: "Finance" });
  });

  it("prefers the HRIS department and takes the manager from the HRIS row found by profile URL", async () => {
    const { enricher: e } = enricher({
      hris: (url) =>
        url === "https://www.linkedin.com/in/dana"
          ? { department: "FP&A", managerEmail: "boss@example.com" }
          : undefined,
    });
    const alert = await e.toAlert(item(), RETENTION);
    expect(alert.person).toMatchObject({ department: "FP&A", managerEmail: "boss@example.com" });
  });

  it("carries the whole HRIS row as HR data, beside the profile's title", async () => {
    const { enricher: e } = enricher({
      hris: () => ({
        department: "FP&A",
        managerEmail: "boss@example.com",
        managerName: "Bo Ss",
        employeeId: "E-7",
        title: " Senior Controller ",
      }),
    });
    const alert = await e.toAlert(item(), RETENTION);
    expect(alert.person.title).toBe("Controller");
    expect(alert.person.hris).toEqual({
      employeeId: "E-7",
      title: "Senior Controller",
      department: "FP&A",
      managerEmail: "boss@example.com",
      managerName: "Bo Ss",
    });
    const { enricher: none } = enricher();
    expect((await none.toAlert(item(), RETENTION)).person.hris).toBeUndefined();
  });

  it("asks findPerson (roster list pages) instead of GET /employees/{id} when given, with the lens", async () => {
    const asked: Array<[number, number]> = [];
    const { enricher: e, calls } = enricher({
      findPerson: async (id, lens) => {
        asked.push([id, lens.organizationId]);
        return employee({ id, name: "Dana Listed" });
      },
    });
    const alert = await e.toAlert(item(), ACME);
    await e.toAlert(item({ key: "chg:2" }), ACME);
    expect(alert.person.name).toBe("Dana Listed");
    expect(asked).toEqual([[42, ACME.organizationId]]);
    expect(calls).toEqual([]);
  });

  it("alerts without details when the look-up fails, naming the person by id", async () => {
    const { enricher: e } = enricher({ getEmployee: () => Promise.reject(new Error("503")) });
    const alert = await e.toAlert(item(), ACME);
    expect(alert.person.name).toBe("Employee #42");
    expect(alert.lens).toBe(ACME);
  });

  it("fails instead of degrading the alert when the look-up failed because of shutdown", async () => {
    const shutdown = new AbortController();
    shutdown.abort();
    const { enricher: e } = enricher({
      getEmployee: () => Promise.reject(new Error("aborted")),
      signal: shutdown.signal,
    });
    await expect(e.toAlert(item(), RETENTION)).rejects.toThrow("aborted");
  });

  it("links the dashboard from alerts.dashboardUrl when the change carries no link", async () => {
    const { enricher: e } = enricher({
      dashboardUrl: "https://app.example.com/",
      getEmployee: async () => employee({ url: undefined } as Partial<Employee>),
    });
    const alert = await e.toAlert(item(), RETENTION);
    expect(alert.person.dashboardUrl).toBe("https://app.example.com/employees/42");
  });
});
