import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bootEmulator, type Wire } from "./support/wire.js";

let w: Wire;
beforeEach(async () => {
  w = await bootEmulator({ seed: "empty", rateLimitPerMinute: 100_000 });
});
afterEach(async () => {
  await w.close();
});

async function statuses(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i += 1) out.push((await w.get("/me")).status);
  return out;
}

describe("control API: POST /_emulator/faults", () => {
  it("faults errorRate 1: every API response is an injected 5xx", async () => {
    await w.faults({ errorRate: 1 });
    const got = await statuses(10);
    expect(got.every((s) => s === 500 || s === 502 || s === 503)).toBe(true);
  });

  it("faults statuses: a burst answered in order, one request each, then normal service", async () => {
    await w.faults({ statuses: [503, 502, 500] });
    expect(await statuses(4)).toEqual([503, 502, 500, 200]);
  });

  it("faults errorRate 0.5 injects roughly half (seeded, not all, not none)", async () => {
    await w.faults({ errorRate: 0.5 });
    const got = await statuses(60);
    const injected = got.filter((s) => s >= 500).length;
    expect(injected).toBeGreaterThan(5);
    expect(injected).toBeLessThan(55);
  });

  it("faults malformedRate 1: 200 responses whose body is not valid JSON", async () => {
    await w.faults({ malformedRate: 1 });
    const res = await w.get("/me");
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();
    expect(() => JSON.parse(res.text)).toThrow();
  });

  it("faults a 429 burst carries Retry-After and no code", async () => {
    await w.faults({ statuses: [429, 429] });
    for (const res of [await w.get("/me"), await w.get("/me")]) {
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(res.json.code).toBeUndefined();
    }
    expect((await w.get("/me")).status).toBe(200);
  });

  it("faults timeoutRate 1: the response does not arrive before the client gives up", async () => {
    await w.faults({ timeoutRate: 1 });
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 300);
    await expect(
      fetch(`${w.handle.baseUrl}/me`, {
        headers: { authorization: `Bearer ${w.writeKey}` },
        signal: controller.signal,
      }),
    ).rejects.toThrow();
    clearTimeout(timer);
  });

  it("faults lostResponseRate 1: the operation is carried out, then the connection is cut before any answer", async () => {
    await w.faults({ lostResponseRate: 1 });
    await expect(w.post("/employees", { networkUrl: "https://www.linkedin.com/in/lost-answer" })).rejects.toThrow();
    await w.faults({ lostResponseRate: 0 });
    const list = await w.get("/employees");
    expect(list.json.total).toBe(1);
    const again = await w.post("/employees", { networkUrl: "https://www.linkedin.com/in/lost-answer" });
    expect(again.status).toBe(409);
    const { requests } = (await w.control("GET", "/requests")).json as {
      requests: Array<{ method: string; path: string; status: number; responseLost?: boolean }>;
    };
    expect(requests.find((r) => r.method === "POST" && r.responseLost)).toMatchObject({
      path: "/api/v1/employees",
      status: 201,
    });
  });

  it("faults are cleared with rates 0; the control API itself is never faulted", async () => {
    await w.faults({ errorRate: 1 });
    expect((await w.raw("GET", "/_emulator/state")).status).toBe(200);
    await w.faults({ errorRate: 0, timeoutRate: 0, malformedRate: 0 });
    expect(await statuses(5)).toEqual([200, 200, 200, 200, 200]);
  });

  it("faults rejects rates outside 0..1 with 400", async () => {
    const res = await w.raw("POST", "/_emulator/faults", { errorRate: 2 });
    expect(res.status).toBe(400);
  });
});

describe("control API: slow responses", () => {
  it("faults latencyMs delays every API response by at least that long", async () => {
    await w.faults({ latencyMs: 120 });
    const started = Date.now();
    expect((await w.get("/me")).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    await w.faults({ latencyMs: 0 });
  });
});

describe("control API: held responses", () => {
  it("faults timeoutRate with timeoutDelayMs: the held response ends as 504", async () => {
    await w.faults({ timeoutRate: 1, timeoutDelayMs: 50 });
    expect((await w.get("/me")).status).toBe(504);
  });
});
