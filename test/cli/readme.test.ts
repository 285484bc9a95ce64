import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { helpText } from "../../src/cli.js";
import { knownKeysAt } from "../../src/config/describe-issues.js";
import { ENV_OVERRIDES } from "../../src/config/env-overrides.js";
import { configSchema } from "../../src/config/schema.js";

const readme = readFileSync("README.md", "utf8");
const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> };

describe("README", () => {
  it("has the two single-line quick-start commands, backed by package scripts", () => {
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]?.trim());
    expect(blocks.slice(0, 2)).toEqual(["npm ci && npm run demo", "npm ci && npm test"]);
    expect(pkg.scripts.demo).toBeDefined();
    expect(pkg.scripts.test).toBeDefined();
  });

  it("documents every environment variable, command and top-level option section", () => {
    for (const { env, path } of ENV_OVERRIDES) {
      expect(readme).toContain(`\`${env}\``);
      expect(readme).toContain(`\`${path}\``);
    }
    for (const command of ["run", "poll", "reconcile", "check", "emulator", "demo"]) {
      expect(helpText()).toContain(`  ${command} `);
      expect(readme).toContain(`| \`${command}`);
    }
    for (const section of knownKeysAt(configSchema, [])) expect(readme).toContain(`\`${section}.`);
    expect(readme).toContain("config/default.yaml");
    expect(readme).toContain("packages/emulator/README.md");
  });
});
