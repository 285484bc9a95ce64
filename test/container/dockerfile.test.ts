import { existsSync, readFileSync } from "node:fs";
import { posix } from "node:path";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { runProbe, scriptOf } from "../deploy/support/probe-script.js";

/** What can be checked about the image without a Docker engine. */

interface Instruction {
  readonly stage: number;
  readonly keyword: string;
  readonly args: string;
}

function parseDockerfile(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, " ");
  const out: Instruction[] = [];
  let stage = -1;
  for (const raw of joined.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.length === 0 || line.startsWith("#")) continue;
    const match = /^(\w+)\s+(.*)$/.exec(line);
    if (!match?.[1] || match[2] === undefined) continue;
    const keyword = match[1].toUpperCase();
    if (keyword === "FROM") stage += 1;
    out.push({ stage, keyword, args: match[2].trim() });
  }
  return out;
}

const dockerfile = parseDockerfile(readFileSync("Dockerfile", "utf8"));
const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
  bin?: Record<string, string>;
  main?: string;
  engines?: { node?: string };
  scripts?: Record<string, string>;
  workspaces?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as {
  packages: Record<string, { name?: string; link?: boolean; resolved?: string }>;
};
/** The workspace packages as the lock file knows them: folder -> package name. */
const workspaces = Object.entries(lock.packages)
  .filter(([path, entry]) => path.startsWith("packages/") && entry.name !== undefined)
  .map(([path, entry]) => ({ dir: path, name: entry.name ?? "" }));
/** The daemon's build (rolldown.config.ts): one entry, bundled into an output folder. */
const buildConfig = (await import("../../rolldown.config.js")).default as {
  input?: string;
  output?: { dir?: string; entryFileNames?: string };
};
const finalStage = Math.max(...dockerfile.map((i) => i.stage));
const dockerignore = readFileSync(".dockerignore", "utf8")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l.length > 0 && !l.startsWith("#"));
const inFinal = (keyword: string) => dockerfile.filter((i) => i.stage === finalStage && i.keyword === keyword);
const defaultPort = configSchema.parse({}).daemon.port;
/** The Node majors `.ci/run` runs the suite on (`test_on_node <major>`). */
const ciNodeMajors = [...readFileSync(".ci/run", "utf8").matchAll(/^test_on_node (\d+)\s*$/gm)].map((m) =>
  Number(m[1]),
);

function imageNodeMajor(): number {
  const from = dockerfile.find((i) => i.keyword === "FROM" && i.stage === finalStage);
  return Number(/^node:(\d+)/.exec(from?.args ?? "")?.[1]);
}

/** The subset of npm's range syntax engines.node uses: `||`, `^x.y.z`, `>=`, `>`, `<=`, `<`, `=`. */
function satisfies(version: string, range: string): boolean {
  return range.split("||").some((set) =>
    set
      .trim()
      .split(/\s+/)
      .every((part) => {
        const { op, bound } = comparator(part);
        const order = compareVersions(parseVersion(version), bound);
        if (op === "^") return order >= 0 && parseVersion(version)[0] === bound[0];
        if (op === ">=") return order >= 0;
        if (op === ">") return order > 0;
        if (op === "<=") return order <= 0;
        if (op === "<") return order < 0;
        return order === 0;
      }),
  );
}

/** The major each `||` alternative of a range starts at. */
function lowestMajors(range: string): number[] {
  return range.split("||").map((set) => {
    const lower = set
      .trim()
      .split(/\s+/)
      .map(comparator)
      .filter((c) => c.op !== "<" && c.op !== "<=");
    return Math.min(...lower.map((c) => c.bound[0]));
  });
}

type Version = [major: number, minor: number, patch: number];

function comparator(part: string): { op: string; bound: Version } {
  const match = /^(\^|>=|>|<=|<|=)?v?(\d+(?:\.\d+){0,2})$/.exec(part);
  if (!match?.[2]) throw new Error(`engines.node: "${part}" is outside the syntax this test reads`);
  return { op: match[1] ?? "=", bound: parseVersion(match[2]) };
}

function parseVersion(version: string): Version {
  const [major = 0, minor = 0, patch = 0] = version.split(".").map(Number);
  return [major, minor, patch];
}

function compareVersions(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

describe("Dockerfile", () => {
  it("starts every stage from the same official node:<major>-slim image, pinned by the digest of its index", () => {
    const froms = dockerfile.filter((i) => i.keyword === "FROM");
    expect(froms.length).toBeGreaterThanOrEqual(2);
    // a tag alone moves under the build; the digest fixes the image until the pin is bumped
    for (const from of froms) expect(from.args).toMatch(/^node:\d+-slim@sha256:[0-9a-f]{64}(\s+AS\s+\w+)?$/i);
    // one base for both stages: the native sqlite3 binding is compiled for the Node that runs it
    expect(new Set(froms.map((f) => f.args.split(/\s+/)[0])).size).toBe(1);
  });

  it("runs a Node line that engines.node admits and that CI tests; engines admits exactly the tested lines", () => {
    const major = imageNodeMajor();
    const engines = pkg.engines?.node ?? "";
    // the -slim tag of a line follows its newest release
    expect(satisfies(`${major}.999.999`, engines), `node:${major} against engines.node "${engines}"`).toBe(true);
    expect(ciNodeMajors).toContain(major);
    // every line CI tests is admitted, and every line engines admits from its lower bound is tested
    for (const tested of ciNodeMajors) expect(satisfies(`${tested}.999.999`, engines), `Node ${tested}`).toBe(true);
    expect([...ciNodeMajors].sort((a, b) => a - b)).toEqual(lowestMajors(engines).sort((a, b) => a - b));
    // the workspace packages claim the same lines
    for (const { dir } of workspaces) {
      const workspacePkg = JSON.parse(readFileSync(`${dir}/package.json`, "utf8")) as { engines?: { node?: string } };
      expect(workspacePkg.engines?.node, dir).toBe(engines);
    }
  });

  it("copies only paths that exist in the repository", () => {
    const copies = dockerfile.filter((i) => i.keyword === "COPY" && !i.args.startsWith("--from"));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const parts = copy.args.split(/\s+/).filter((p) => !p.startsWith("--"));
      for (const source of parts.slice(0, -1)) expect(existsSync(source), `COPY ${source}`).toBe(true);
    }
    // and the build context does not exclude them
    for (const copy of copies) {
      for (const source of copy.args.split(/\s+/).slice(0, -1)) expect(dockerignore).not.toContain(source);
    }
  });

  it("runs `npm ci`, the build, and keeps production dependencies only", () => {
    const runs = dockerfile.filter((i) => i.keyword === "RUN").map((i) => i.args);
    expect(runs.some((r) => r.includes("npm ci"))).toBe(true);
    expect(runs.some((r) => r.includes("npm run build"))).toBe(true);
    expect(runs.some((r) => /npm prune --omit=dev|npm ci .*--omit=dev/.test(r))).toBe(true);
    expect(pkg.scripts?.build).toContain("rolldown.config.ts");
  });

  it("starts the compiled CLI that the build produces from src/cli.ts", () => {
    const [cmd] = inFinal("CMD");
    const argv = JSON.parse(cmd?.args ?? "[]") as string[];
    expect(argv[0]).toBe("node");
    expect(argv[2]).toBe("run");
    expect(buildConfig.input).toBe("src/cli.ts");
    const outDir = buildConfig.output?.dir ?? "";
    const builtCli = posix.join(outDir, (buildConfig.output?.entryFileNames ?? "").replace("[name]", "cli"));
    expect(argv[1]).toBe(builtCli);
    expect(pkg.bin?.["retention-sync"]).toBe(builtCli);
    expect(pkg.main).toBe(builtCli);
    expect(existsSync("src/cli.ts")).toBe(true);
    // the runtime stage gets dist/ from the build stage
    expect(inFinal("COPY").some((c) => c.args.startsWith("--from=build") && c.args.includes(outDir))).toBe(true);
  });

  it("exposes the default ops port and health-checks /livez on OPS_PORT (default 9400)", async () => {
    expect(inFinal("EXPOSE").map((e) => e.args)).toEqual([String(defaultPort)]);
    expect(inFinal("ENV").some((e) => new RegExp(`\\bOPS_PORT=${defaultPort}\\b`).test(e.args))).toBe(true);
    const [healthcheck] = inFinal("HEALTHCHECK");
    expect(healthcheck?.args).not.toMatch(/\bcurl\b|\bwget\b/);
    const command: unknown = JSON.parse(/\bCMD\s+(\[.*\])\s*$/.exec(healthcheck?.args ?? "")?.[1] ?? "null");
    const script = scriptOf(Array.isArray(command) ? command : []);
    expect(await runProbe(script, {}, "ok")).toEqual({ url: `http://127.0.0.1:${defaultPort}/livez`, exitCode: 0 });
    expect(await runProbe(script, { OPS_PORT: "9500" }, "ok")).toEqual({
      url: "http://127.0.0.1:9500/livez",
      exitCode: 0,
    });
    expect((await runProbe(script, {}, "not-ok")).exitCode).toBe(1);
    expect((await runProbe(script, {}, "unreachable")).exitCode).toBe(1);
  });

  it("runs as a non-root user with the state on a declared volume", () => {
    const [user] = inFinal("USER");
    expect(user).toBeDefined();
    expect(user?.args).not.toMatch(/^(root|0)(:|$)/);
    const volume = inFinal("VOLUME").map((v) => v.args)[0] ?? "";
    const env = inFinal("ENV")
      .map((e) => e.args)
      .join(" ");
    const statePath = /RETENTION_SYNC_STATE=(\S+)/.exec(env)?.[1] ?? "";
    expect(statePath.startsWith(`${volume}/`)).toBe(true);
    // the volume directory belongs to the runtime user
    expect(inFinal("RUN").some((r) => r.args.includes(`chown ${user?.args}`) && r.args.includes(volume))).toBe(true);
    // and is its alone: the state holds people's names and scores
    expect(inFinal("RUN").some((r) => r.args.includes(`chmod 700 ${volume}`))).toBe(true);
  });

  it("installs from the workspace lock file: every workspace's package.json is copied before `npm ci`", () => {
    expect(pkg.workspaces).toEqual(["packages/*"]);
    expect(workspaces.map((w) => w.name)).toContain("@retention-sync/emulator");
    const npmCi = dockerfile.findIndex((i) => i.keyword === "RUN" && i.args.includes("npm ci"));
    for (const { dir } of workspaces) {
      const copied = dockerfile.findIndex(
        (i) => i.keyword === "COPY" && i.args.split(/\s+/).includes(`${dir}/package.json`),
      );
      expect(copied, `COPY ${dir}/package.json`).toBeGreaterThanOrEqual(0);
      expect(copied, `${dir}/package.json before npm ci`).toBeLessThan(npmCi);
      // to the same place under WORKDIR, where the lock file expects the workspace
      const target = dockerfile[copied]?.args.split(/\s+/).at(-1) ?? "";
      expect(`${target.replace(/^\.\//, "").replace(/\/$/, "")}/`).toMatch(new RegExp(`^${dir}/(package\\.json/)?$`));
    }
  });

  it("ships the daemon only: the emulator is no production dependency and its workspace link is dropped", () => {
    for (const { name } of workspaces) {
      for (const deps of [pkg.dependencies, pkg.optionalDependencies, pkg.peerDependencies]) {
        expect(Object.keys(deps ?? {})).not.toContain(name);
      }
      // npm prune keeps workspace links: the build stage removes them with the dev dependencies
      const scope = name.split("/")[0] ?? name;
      const prune = dockerfile.find((i) => i.keyword === "RUN" && i.args.includes("npm prune --omit=dev"));
      expect(prune?.args).toMatch(new RegExp(`npm prune --omit=dev && rm -rf node_modules/${scope}(\\s|$)`));
    }
  });

  it("copies no packages/ and no bench/ into the runtime stage", () => {
    const copies = inFinal("COPY").map((c) => c.args.split(/\s+/).filter((p) => !p.startsWith("--")));
    expect(copies.length).toBeGreaterThan(0);
    for (const parts of copies) {
      for (const path of parts) expect(path, parts.join(" ")).not.toMatch(/(^|\/)(packages|bench)(\/|$)/);
      // from the build stage, only named folders (not the whole /app, which holds packages/)
      expect(parts[0]).not.toMatch(/^(\/app\/?|\.\/?)$/);
    }
    // the build context itself leaves out the benchmarks and the packages' tests and builds
    for (const pattern of ["bench", "packages/*/test", "**/dist", "**/node_modules"])
      expect(dockerignore).toContain(pattern);
  });
});
