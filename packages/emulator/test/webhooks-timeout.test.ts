import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addPerson, waitImported } from "./support/people.js";
import { asArray, bootEmulator, num, obj, type Wire } from "./support/wire.js";

// In its own file so its ten real seconds run in parallel with the rest of the suite.
let w: Wire;
let silent: Server;
beforeEach(async () => {
  w = await bootEmulator({ seed: "empty", allowLoopbackWebhooks: true });
  silent = createServer(() => {
    // never answers
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
});
afterEach(async () => {
  await w.close();
  silent.closeAllConnections();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
});

describe("6.5 rule 2 per-request time-out", () => {
  it("6.5 rule 2 a receiver that does not answer fails the attempt after 10 seconds, not before", async () => {
    const { port } = silent.address() as AddressInfo;
    const hook = await w.post("/webhooks", { url: `http://127.0.0.1:${port}/hook` });
    expect(hook.status).toBe(201);
    const p = await waitImported(w, num((await addPerson(w)).id));
    const started = Date.now();
    // the control call answers after the first attempt finished
    await w.signals({ employeeId: p.id, riskScore: 0.9 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_500);
    const endpoint = obj(asArray((await w.get("/webhooks")).body)[0]);
    const health = obj(endpoint.health);
    expect(health).toMatchObject({ consecutiveFailures: 1, lastStatus: "failed" });
    expect(obj(asArray(health.recentDeliveries)[0])).toMatchObject({
      ok: false,
      httpStatus: null,
      error: expect.stringMatching(/time/i),
    });
  }, 25_000);
});
