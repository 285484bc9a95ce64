import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The version in retention-sync's package.json, found by walking up from this module (works from src/, dist/ and bundles). */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    try {
      const pkg: unknown = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      if (typeof pkg === "object" && pkg !== null) {
        const { name, version } = pkg as { name?: unknown; version?: unknown };
        if (name === "retention-sync" && typeof version === "string") return version;
      }
    } catch {
      // not here: keep walking up
    }
    dir = dirname(dir);
  }
  return "0.0.0";
}
