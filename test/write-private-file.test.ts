import { lstatSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePrivateFile } from "../src/write-private-file.js";

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8).padStart(4, "0");

async function withUsualUmask<T>(work: () => Promise<T>): Promise<T> {
  const before = process.umask(0o022);
  try {
    return await work();
  } finally {
    process.umask(before);
  }
}

describe("writePrivateFile: whole, owner-only, never through someone else's file", () => {
  it("writes the file 0600 and leaves no temporary file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rs-private-"));
    const path = join(dir, "plan.json");
    await withUsualUmask(() => writePrivateFile(path, "{}\n"));
    expect(readFileSync(path, "utf8")).toBe("{}\n");
    expect(modeOf(path)).toBe("0600");
    expect(readdirSync(dir)).toEqual(["plan.json"]);
  });

  it("refuses a temporary name someone created first (EEXIST) and leaves their file as it was", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rs-private-"));
    const path = join(dir, "plan.json");
    const planted = join(dir, "planted.tmp");
    writeFileSync(planted, "someone else's file\n", { mode: 0o644 });
    await expect(writePrivateFile(path, "secret plan\n", () => planted)).rejects.toMatchObject({ code: "EEXIST" });
    expect(readFileSync(planted, "utf8")).toBe("someone else's file\n");
    expect(modeOf(planted)).toBe("0644");
    expect(readdirSync(dir).sort()).toEqual(["planted.tmp"]);
  });

  it("never writes through a symlink planted at the temporary name or at the file's name", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rs-private-"));
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "keep me\n");
    const path = join(dir, "plan.json");
    const plantedTemp = join(dir, "planted.tmp");
    symlinkSync(victim, plantedTemp);
    await expect(writePrivateFile(path, "plan\n", () => plantedTemp)).rejects.toMatchObject({ code: "EEXIST" });
    expect(readFileSync(victim, "utf8")).toBe("keep me\n");
    // A symlink at the file's own name is replaced by the new file, not followed.
    symlinkSync(victim, path);
    await writePrivateFile(path, "plan\n");
    expect(lstatSync(path).isSymbolicLink()).toBe(false);
    expect(readFileSync(path, "utf8")).toBe("plan\n");
    expect(readFileSync(victim, "utf8")).toBe("keep me\n");
  });
});
