import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { run } from "../../src/commands/emulator.js";
import { UsageError } from "../../src/errors.js";
import { startTestEmulator } from "../helpers/start-emulator.js";

function io(argv: string[], signal?: AbortSignal) {
  const stdout = new PassThrough();
  let out = "";
  stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  return {
    io: { argv, env: { LOG_LEVEL: "silent" }, stdout, stderr: new PassThrough(), ...(signal ? { signal } : {}) },
    out: () => out,
  };
}

describe("retention-sync emulator command", () => {
  it("prints the base URL and both keys, serves them, and stops on abort", async () => {
    const ac = new AbortController();
    const { io: cmdIo, out } = io(
      ["--port", "0", "--seed", "empty", "--write-key", "wk-123456", "--read-key", "rk-123456"],
      ac.signal,
    );
    const done = run(cmdIo);
    while (!out().includes("read-only key")) await new Promise((r) => setTimeout(r, 10));
    const base = /RETENTION_API_URL=(\S+)/.exec(out())?.[1] ?? "";
    const me = await fetch(`${base}/me`, { headers: { authorization: "Bearer rk-123456" } });
    expect(await me.json()).toMatchObject({ scopes: ["read"] });
    ac.abort();
    expect(await done).toBe(0);
  });

  it("refuses an unknown seed as a usage error", async () => {
    await expect(run(io(["--seed", "nope"]).io)).rejects.toBeInstanceOf(UsageError);
  });

  it("test helper drives the control API", async () => {
    const emu = await startTestEmulator({ seed: "empty" });
    try {
      const key = await emu.control.createKey({ scopes: ["read"] });
      const res = await fetch(`${emu.baseUrl}/me`, { headers: { authorization: `Bearer ${key.key}` } });
      expect(res.status).toBe(200);
      await emu.control.revokeKey(key.key);
      const again = await fetch(`${emu.baseUrl}/me`, { headers: { authorization: `Bearer ${key.key}` } });
      expect(again.status).toBe(401);
      const log = await emu.control.requests();
      expect(log.map((r) => r.status)).toEqual([200, 401]);
      expect(JSON.stringify(log)).not.toContain(key.key);
    } finally {
      await emu.close();
    }
  });
});
