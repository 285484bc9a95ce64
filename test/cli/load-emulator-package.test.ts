import { describe, expect, it } from "vitest";
import { isEmulatorMissing, loadEmulatorPackage } from "../../src/commands/load-emulator-package.js";
import { EXIT_USAGE, UsageError } from "../../src/errors.js";

function moduleNotFound(message: string): Error {
  return Object.assign(new Error(message), { code: "ERR_MODULE_NOT_FOUND" });
}

describe("loadEmulatorPackage", () => {
  it("loads the package from its sources in a checkout", async () => {
    const emulator = await loadEmulatorPackage("emulator");
    expect(typeof emulator.startEmulator).toBe("function");
    expect(emulator.SEED_NAMES).toContain("demo");
  });

  it("turns a missing package into a usage error (exit 2) that says what the emulator is and how to get it", async () => {
    const missing = moduleNotFound(
      "Cannot find package '@retention-sync/emulator' imported from /app/dist/commands/load-emulator-package.js",
    );
    const error = await loadEmulatorPackage("demo", () => Promise.reject(missing)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(EXIT_USAGE);
    expect((error as UsageError).message).toMatch(/^demo: the emulator is a development tool/);
    expect((error as UsageError).message).toContain("npm ci && npm run demo");
    expect((error as UsageError).cause).toBe(missing);
  });

  it("recognises an unbuilt package (its dist/ missing) as missing too, and nothing else", () => {
    expect(isEmulatorMissing(moduleNotFound("Cannot find module '/src/rs/packages/emulator/dist/index.js'"))).toBe(
      true,
    );
    expect(isEmulatorMissing(moduleNotFound("Cannot find package 'zod' imported from /app/dist/x.js"))).toBe(false);
    expect(isEmulatorMissing(new Error("@retention-sync/emulator broke"))).toBe(false);
  });

  it("passes any other failure through unchanged", async () => {
    const failure = new TypeError("boom");
    await expect(loadEmulatorPackage("emulator", () => Promise.reject(failure))).rejects.toBe(failure);
  });
});
