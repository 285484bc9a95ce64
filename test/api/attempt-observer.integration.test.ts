import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { endpointOf } from "../../src/api/api-caller.js";
import { type ApiAttempt, ApiEvents } from "../../src/api/api-events.js";
import { ServerError } from "../../src/errors.js";
import { type Harness, startHarness } from "./support/client-setup.js";

describe("endpointOf", () => {
  it("replaces ids so endpoints are low-cardinality labels", () => {
    expect(endpointOf("/employees/42/changes")).toBe("/employees/{id}/changes");
    expect(endpointOf("/webhooks/whe_abc123")).toBe("/webhooks/{id}");
    expect(endpointOf("/employees/bulk")).toBe("/employees/bulk");
  });
});

describe("attempt events", () => {
  let harness: Harness;
  beforeEach(async () => {
    harness = await startHarness();
  });
  afterEach(async () => harness.close());

  it("sees every attempt, failed ones included, with status and endpoint", async () => {
    const attempts: ApiAttempt[] = [];
    const events = new ApiEvents();
    events.on("attempt", (a) => attempts.push(a));
    const client = harness.client({ events, maxRetries: 1 });
    harness.server.enqueue(
      { status: 502, body: { error: "bad gateway" } },
      {
        status: 200,
        body: {
          id: 7,
          organizationId: 1,
          name: "A",
          networkUrl: "https://www.linkedin.com/in/a",
          tracked: true,
          status: "active",
        },
      },
    );
    await client.getEmployee(7);
    expect(attempts.map((a) => [a.method, a.endpoint, a.status, a.ok])).toEqual([
      ["GET", "/employees/{id}", 502, false],
      ["GET", "/employees/{id}", 200, true],
    ]);
    expect(attempts[0]?.error).toBeInstanceOf(ServerError);
    expect(attempts[1]?.priority).toBe("poll");
  });

  it("never lets a throwing observer break a request", async () => {
    const events = new ApiEvents();
    events.on("attempt", () => {
      throw new Error("metrics broke");
    });
    const client = harness.client({ events });
    harness.server.enqueue({
      status: 200,
      body: { organization: { id: 1, name: "Co" }, competitors: [], scopes: ["read"] },
    });
    await expect(client.me()).resolves.toMatchObject({ organization: { id: 1 } });
  });
});
