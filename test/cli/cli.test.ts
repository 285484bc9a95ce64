import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ENV_OVERRIDES } from "../../src/config/env-overrides.js";
import { runCli } from "./cli-harness.js";

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };

describe("retention-sync CLI", () => {
  it("--help lists commands, flags, env variables and exit codes", async () => {
    const result = await runCli(["--help"]);
    expect(result.code).toBe(0);
    for (const command of ["run", "poll", "reconcile", "check", "emulator", "demo"]) {
      expect(result.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
    }
    for (const { env } of ENV_OVERRIDES) expect(result.stdout).toContain(env);
    expect(result.stdout).toContain("RETENTION_SYNC_CONFIG");
    expect(result.stdout).toContain("--config");
    expect(result.stdout).toMatch(/^ {2}3 {2}partial success/m);
  });

  it("--version prints the package version", async () => {
    const result = await runCli(["--version"]);
    expect(result).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it("unknown command: usage message on stderr, exit 2", async () => {
    const result = await runCli(["frobnicate"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain('unknown command "frobnicate"');
    expect(result.stderr).toContain("retention-sync --help");
  });

  it("unknown global or command flag: usage message on stderr, exit 2", async () => {
    const global = await runCli(["--frob", "check"]);
    expect(global.code).toBe(2);
    expect(global.stderr).toContain("--frob");
    const local = await runCli(["check", "--frob"]);
    expect(local.code).toBe(2);
    expect(local.stderr).toMatch(/check: .*--frob/);
  });

  it("missing command: help on stderr, exit 2", async () => {
    const result = await runCli([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing command");
  });

  it("<command> --help prints that command's usage", async () => {
    const result = await runCli(["reconcile", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("--allow-mass-archive");
  });

  it("a global --config reaches the command, and a bad config exits 2 with every problem", async () => {
    const result = await runCli(["--config", "/nonexistent/retention-sync.yaml", "check"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain("/nonexistent/retention-sync.yaml");
    expect(result.stdout).toContain("file not found");
  });
});
