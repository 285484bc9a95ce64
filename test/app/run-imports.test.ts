import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "src");

/** Static value imports (`import x from`, `export ... from`; not `import type`, not `import()`). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  const pattern = /^(?:import|export)\s+(?!type\b)[^;]*?\sfrom\s+"([^"]+)";/gms;
  for (const match of text.matchAll(pattern)) {
    // `import { type A, type B } from` is type-only too (a default or namespace import is not).
    const braces = /^(?:import|export)\s+\{([^}]*)\}\s+from/.exec(match[0])?.[1];
    const onlyTypes = braces
      ?.split(",")
      .map((n) => n.trim())
      .filter((n) => n.length > 0)
      .every((n) => n.startsWith("type "));
    if (!onlyTypes && match[1]) found.push(match[1]);
  }
  return found;
}

/** Every module `run` loads before it runs anything: the static import closure of the CLI and the command. */
function closure(entries: readonly string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const todo = [...entries];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith(".")) todo.push(join(dirname(file), spec.replace(/\.js$/, ".ts")));
      else if (!spec.startsWith("node:")) packages.add(spec);
    }
  }
  return { files, packages };
}

describe("what `retention-sync run` loads at start", () => {
  const { files, packages } = closure([join(SRC, "cli.ts"), join(SRC, "commands", "run.ts")]);
  const relative = [...files].map((f) => f.slice(SRC.length + 1));

  it("finds the daemon's path (the check sees the imports)", () => {
    expect(relative).toContain("app/configured-daemon.ts");
    expect(relative).toContain("alerts/receive-webhook.ts");
    expect(packages).toContain("sqlite3");
  });

  it("leaves out what only some configurations use: Postgres, Socket Mode, SFTP, the roster flow, the buttons, keyv", () => {
    expect(
      [...packages].filter((p) => /^(pg|@slack\/socket-mode|ssh2|ssh2-sftp-client|keyv|@keyv\/sqlite)$/.test(p)),
    ).toEqual([]);
    expect(
      relative.filter((f) =>
        /^(store\/postgres-state-store|roster\/(reconcile-once|read-roster|presets\/index|sources\/roster-puller)|interactive\/(start-interactivity|socket-transport|usergroup-cache)|store\/kv-cache|alerts\/hris-lookup)\.ts$/.test(
          f,
        ),
      ),
    ).toEqual([]);
  });
});
