import { describe, expect, it } from "vitest";
import { isLoopbackApi, registrationUrlProblem } from "../../src/commands/webhook-url.js";

const SERVICE = "https://retention.example.com/api/v1";
const EMULATOR = "http://127.0.0.1:8787/api/v1";

describe("registrationUrlProblem", () => {
  it("admits a public https URL whatever the API", () => {
    expect(registrationUrlProblem("https://hooks.example.com/webhooks/retention", SERVICE)).toBeUndefined();
    expect(registrationUrlProblem("https://hooks.example.com/webhooks/retention", EMULATOR)).toBeUndefined();
  });

  it("refuses http, naming HTTPS and the proxy to put in front", () => {
    expect(registrationUrlProblem("http://hooks.example.com/x", SERVICE)).toMatch(/only to public HTTPS URLs.*proxy/);
  });

  it("admits http://127.0.0.1 only when the API is on loopback (the emulator)", () => {
    expect(registrationUrlProblem("http://127.0.0.1:9401/webhooks/retention", EMULATOR)).toBeUndefined();
    expect(registrationUrlProblem("http://127.0.0.1:9401/webhooks/retention", SERVICE)).toMatch(/HTTPS/);
    expect(registrationUrlProblem("http://localhost:9401/webhooks/retention", EMULATOR)).toMatch(/HTTPS/);
  });

  it("refuses what is not a URL, and credentials in the URL without echoing them", () => {
    expect(registrationUrlProblem("hooks.example.com/x", SERVICE)).toMatch(/is not a URL/);
    const problem = registrationUrlProblem("https://user:hunter2x@hooks.example.com/x", SERVICE);
    expect(problem).toMatch(/user name or password/);
    expect(problem).not.toContain("hunter2x");
    expect(registrationUrlProblem("http://user:hunter2x@hooks.example.com/x", SERVICE)).not.toContain("hunter2x");
  });
});

describe("isLoopbackApi", () => {
  it("knows the loopback spellings and nothing else", () => {
    expect(isLoopbackApi(EMULATOR)).toBe(true);
    expect(isLoopbackApi("http://localhost:8787/api/v1")).toBe(true);
    expect(isLoopbackApi("http://[::1]:8787/api/v1")).toBe(true);
    expect(isLoopbackApi(SERVICE)).toBe(false);
    expect(isLoopbackApi("not a url")).toBe(false);
  });
});
