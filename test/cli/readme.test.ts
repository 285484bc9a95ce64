import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { helpText } from "../../src/cli.js";
import { knownKeysAt } from "../../src/config/describe-issues.js";
import { CONFIG_FILE_ENV, ENV_OVERRIDES } from "../../src/config/env-overrides.js";
import { configSchema } from "../../src/config/schema.js";

/**
 * The documentation's layout: a short README (quick start, minimum set-up, commands, links), one
 * page per topic under docs/, config/default.yaml as the one option reference. This checks what a
 * reader relies on: the quick start works as written, every variable, command and config section
 * is documented somewhere, and no relative link leads nowhere.
 */

const read = (path: string) => readFileSync(path, "utf8");
const readme = read("README.md");
const configurationPage = read("docs/configuration.md");
const defaultYaml = read("config/default.yaml");
const pkg = JSON.parse(read("package.json")) as { scripts: Record<string, string> };

/** Markdown files under a folder, recursively. */
function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

/** The documentation whose links must resolve: the top-level pages, docs/ and the emulator's. */
const DOCUMENTS = [
  "README.md",
  "ARCHITECTURE.md",
  "BENCHMARKS.md",
  "CONTRIBUTING.md",
  ...markdownUnder("docs"),
  "packages/emulator/README.md",
  ...(existsSync("packages/emulator/docs") ? markdownUnder("packages/emulator/docs") : []),
  "src/roster/README.md",
];

/** The text without fenced code blocks and inline code, where `[x](y)` is code, not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** Inline links `[text](target)` and reference definitions `[label]: target`, targets only. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? "");
  const references = [...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/gm)].map((m) => m[1] ?? "");
  return [...inline, ...references];
}

const isRelative = (target: string) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("//");

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const match of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = (match[1] ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

describe("README", () => {
  it("has the two single-line quick-start commands, backed by package scripts", () => {
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]?.trim());
    expect(blocks.slice(0, 2)).toEqual(["npm ci && npm run demo", "npm ci && npm test"]);
    expect(pkg.scripts.demo).toBeDefined();
    expect(pkg.scripts.test).toBeDefined();
  });

  it("names the minimum set-up and links every topic page and the option reference", () => {
    for (const env of [
      "RETENTION_API_URL",
      "RETENTION_API_KEY",
      "SLACK_BOT_TOKEN",
      "SLACK_CHANNEL",
      "HRIS_ROSTER_FILE",
    ]) {
      expect(readme).toContain(`\`${env}\``);
    }
    expect(readme).toContain("/api/v1");
    const targets = linkTargets(readme).map((target) => target.split("#")[0]);
    for (const page of readdirSync("docs").filter((name) => name.endsWith(".md"))) {
      expect(targets, `README links docs/${page}`).toContain(`docs/${page}`);
    }
    for (const target of ["config/default.yaml", "packages/emulator/README.md", "ARCHITECTURE.md", "CONTRIBUTING.md"]) {
      expect(targets).toContain(target);
    }
  });
});

describe("documented settings and commands", () => {
  const documented = `${readme}\n${configurationPage}`;

  it("documents every environment variable with the option it sets (README or docs/configuration.md)", () => {
    expect(documented).toContain(`\`${CONFIG_FILE_ENV}\``);
    for (const { env, path } of ENV_OVERRIDES) {
      expect(documented, env).toContain(`\`${env}\``);
      expect(documented, path).toContain(`\`${path}\``);
    }
  });

  it("documents every command of --help in the README's command table", () => {
    const help = helpText();
    const commands = help
      .slice(help.indexOf("Commands:\n") + "Commands:\n".length)
      .split("\n\n")[0]
      ?.split("\n")
      .map((line) => line.trim().split(/\s+/)[0] ?? "")
      .filter((name) => name.length > 0);
    expect(commands).toEqual(expect.arrayContaining(["run", "poll", "reconcile", "check", "emulator", "demo"]));
    for (const command of commands ?? []) expect(readme, command).toContain(`| \`${command}`);
  });

  it("documents every top-level config section in config/default.yaml", () => {
    const sections = knownKeysAt(configSchema, []);
    expect(sections.length).toBeGreaterThan(0);
    for (const section of sections) expect(defaultYaml, section).toMatch(new RegExp(`^${section}:`, "m"));
  });
});

describe("links", () => {
  it.each(DOCUMENTS)("every relative link in %s points to a file that exists", (document) => {
    const broken: string[] = [];
    for (const target of linkTargets(read(document)).filter(isRelative)) {
      const [pathPart = "", anchor] = target.split("#");
      const path = decodeURIComponent(pathPart.split("?")[0] ?? "");
      const file = path === "" ? document : normalize(join(dirname(document), path));
      if (!existsSync(file)) {
        broken.push(`${target} (no ${file})`);
      } else if (anchor && file.endsWith(".md") && statSync(file).isFile() && !anchorsOf(read(file)).has(anchor)) {
        broken.push(`${target} (no heading #${anchor} in ${file})`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe("documentation sizes", () => {
  it("keeps the short pages short: topics go to docs/", () => {
    const limits: Record<string, number> = {
      "README.md": 12 * 1024,
      "ARCHITECTURE.md": 15 * 1024,
      "BENCHMARKS.md": 15 * 1024,
      "packages/emulator/README.md": 15 * 1024,
    };
    for (const [file, limit] of Object.entries(limits)) {
      expect(statSync(file).size, `${file} is over ${limit} bytes`).toBeLessThanOrEqual(limit);
    }
  });
});
