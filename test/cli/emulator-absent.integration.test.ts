import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleEntry } from "../helpers/bundle-entry.js";
import { auditLogText } from "../helpers/log-audit.js";

/**
 * The production image holds the daemon without packages/emulator. Here: the CLI bundled with the
 * workspace package left external, run from a folder whose node_modules has every installed
 * package except the workspace's own, so `import("@retention-sync/emulator")` fails as it does there.
 */
let dir: string;
let cli: string;

beforeAll(async () => {
  const bundle = await bundleEntry("src/cli.ts", "cli-without-emulator", { externalWorkspace: true });
  dir = mkdtempSync(join(tmpdir(), "rs-no-emulator-"));
  cli = join(dir, "cli.mjs");
  copyFileSync(bundle, cli);
  mkdirSync(join(dir, "node_modules"));
  for (const name of readdirSync("node_modules")) {
    if (name === "@retention-sync" || name.startsWith(".")) continue;
    symlinkSync(resolve("node_modules", name), join(dir, "node_modules", name));
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = execFile(process.execPath, [cli, ...args], { cwd: dir, env: { PATH: process.env.PATH } }, (error) => {
      done({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr });
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
  });
}

describe("the CLI where the emulator package is not installed (the production image)", () => {
  it.each(["emulator", "demo"])(
    "`%s` exits 2: the emulator is a development tool, run it from a checkout",
    async (command) => {
      const result = await runCli([command]);
      auditLogText(`${command} without the emulator package`, result.stdout + result.stderr);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`retention-sync: usage error: ${command}: the emulator is a development tool`);
      expect(result.stderr).toContain("npm ci && npm run demo");
      expect(result.stdout).toBe("");
    },
  );

  it("runs everything else: the daemon does not import the package", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("emulator");
    const check = await runCli(["check"]);
    auditLogText("check without the emulator package", check.stdout + check.stderr);
    // no key configured: a configuration error, not a missing module
    expect(check.code).toBe(2);
    expect(check.stderr + check.stdout).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find (module|package)/);
  });
});
