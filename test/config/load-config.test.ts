import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { knownKeysAt, type PathSegment } from "../../src/config/describe-issues.js";
import { ENV_OVERRIDES } from "../../src/config/env-overrides.js";
import { loadConfig } from "../../src/config/load-config.js";
import { configSchema, rosterSourceSchema } from "../../src/config/schema.js";
import { ConfigError } from "../../src/errors.js";

const dir = mkdtempSync(join(tmpdir(), "rs-config-"));
let counter = 0;
function yamlFile(text: string): string {
  counter += 1;
  const file = join(dir, `config-${counter}.yaml`);
  writeFileSync(file, text);
  return file;
}

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

const MINIMAL_ENV = {
  RETENTION_API_KEY: "rk_live_minimal_key",
  SLACK_BOT_TOKEN: "xoxb-minimal-token",
  SLACK_CHANNEL: "#hr-alerts",
  HRIS_ROSTER_FILE: "/data/hris.csv",
};

describe("loadConfig", () => {
  it("config/default.yaml parses to exactly the schema defaults", () => {
    expect(loadConfig({ file: "config/default.yaml", env: {} })).toEqual(configSchema.parse({}));
  });

  it("config/default.yaml mentions every option of the schema, with the env variable that overrides it", () => {
    const text = readFileSync("config/default.yaml", "utf8");
    const missing: string[] = [];
    const walk = (path: string[]) => {
      for (const key of knownKeysAt(configSchema, path)) {
        if (!new RegExp(`^\\s*#?\\s*(- )?${key}:`, "m").test(text)) missing.push([...path, key].join("."));
        // routes are an array of objects: describe their keys through the example
        const child = key === "routes" ? [...path, key, 0] : [...path, key];
        walk(child as string[]);
      }
    };
    walk([]);
    expect(missing).toEqual([]);
    for (const { env } of ENV_OVERRIDES) expect(text).toContain(env);
  });

  it("works with no config file and only the four essential variables", () => {
    const config = loadConfig({ env: MINIMAL_ENV });
    expect(config.api.key).toBe("rk_live_minimal_key");
    expect(config.slack.token).toBe("xoxb-minimal-token");
    expect(config.slack.channel).toBe("#hr-alerts");
    expect(config.roster.file).toBe("/data/hris.csv");
    expect(config.daemon.port).toBe(configSchema.parse({}).daemon.port);
  });

  it("finds the file through RETENTION_SYNC_CONFIG, and the explicit file wins", () => {
    const viaEnv = yamlFile("log:\n  level: debug\n");
    const explicit = yamlFile("log:\n  level: warn\n");
    expect(loadConfig({ env: { RETENTION_SYNC_CONFIG: viaEnv } }).log.level).toBe("debug");
    expect(loadConfig({ file: explicit, env: { RETENTION_SYNC_CONFIG: viaEnv } }).log.level).toBe("warn");
  });

  it("lets every environment variable override the file", () => {
    const file = yamlFile(
      "api:\n  url: https://file.example/api/v1\nslack:\n  channel: '#from-file'\ndaemon:\n  port: 1234\nlog:\n  level: warn\n",
    );
    const config = loadConfig({
      file,
      env: {
        RETENTION_API_URL: "https://env.example/api/v1",
        RETENTION_API_KEY: "k-env-123456",
        SLACK_BOT_TOKEN: "xoxb-env",
        SLACK_API_URL: "http://127.0.0.1:9/api/",
        SLACK_CHANNEL: "#from-env",
        SLACK_OPS_CHANNEL: "#ops",
        RETENTION_SYNC_STATE: "/var/lib/rs/state.sqlite",
        HRIS_ROSTER_FILE: "/data/roster.csv",
        OPS_PORT: "9500",
        LOG_LEVEL: "debug",
        RETENTION_WEBHOOK_SECRETS: "whsec_one, whsec_two,,",
      },
    });
    expect(config.api.url).toBe("https://env.example/api/v1");
    expect(config.slack).toMatchObject({ channel: "#from-env", opsChannel: "#ops", apiUrl: "http://127.0.0.1:9/api/" });
    expect(config.state.path).toBe("/var/lib/rs/state.sqlite");
    expect(config.roster.file).toBe("/data/roster.csv");
    expect(config.daemon.port).toBe(9500);
    expect(config.log.level).toBe("debug");
    expect(config.alerts.webhook.secrets).toEqual(["whsec_one", "whsec_two"]);
  });

  it("takes a postgres:// RETENTION_SYNC_STATE as state.url (SQLite's path stays the default)", () => {
    const config = loadConfig({ env: { RETENTION_SYNC_STATE: " postgres://rs@db:5432/retention " } });
    expect(config.state.url).toBe("postgres://rs@db:5432/retention");
    expect(config.state.path).toBe(configSchema.parse({}).state.path);
    expect(loadConfig({ env: { RETENTION_SYNC_STATE: "postgresql://rs@db/rs" } }).state.url).toBe(
      "postgresql://rs@db/rs",
    );
    expect(loadConfig({ env: {} }).state.url).toBeUndefined();
  });

  it("refuses a state.url that is not a Postgres URL without echoing it (it may hold a password)", () => {
    const file = yamlFile("state:\n  url: mysql://rs:hunter2-secret@db/rs\n");
    const error = configError(() => loadConfig({ file, env: {} }));
    expect(error.issues.map((i) => i.path)).toEqual([expect.stringContaining(file)]);
    expect(error.message).toContain("postgres://user@host:5432/database");
    expect(error.message).not.toContain("hunter2-secret");
  });

  it("takes alerts.webhook.publicUrl as https, or http on 127.0.0.1 only (the emulator)", () => {
    const at = (url: string) => yamlFile(`alerts:\n  webhook:\n    publicUrl: ${url}\n`);
    const good = "https://hooks.example.com/webhooks/retention";
    expect(loadConfig({ file: at(good), env: {} }).alerts.webhook.publicUrl).toBe(good);
    expect(loadConfig({ file: at("http://127.0.0.1:9401/x"), env: {} }).alerts.webhook.publicUrl).toBeDefined();
    for (const bad of ["http://hooks.example.com/x", "ftp://hooks.example.com/x", "hooks.example.com"]) {
      const error = configError(() => loadConfig({ file: at(bad), env: {} }));
      expect(error.issues, bad).toHaveLength(1);
      expect(error.issues[0]?.path, bad).toMatch(/^alerts\.webhook\.publicUrl /);
    }
  });

  it("ignores empty environment variables", () => {
    const config = loadConfig({ env: { LOG_LEVEL: "", OPS_PORT: "  " } });
    expect(config.log.level).toBe("info");
  });

  it("returns a deeply frozen config", () => {
    const config = loadConfig({ env: MINIMAL_ENV });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.roster.include.statuses)).toBe(true);
    expect(() => {
      (config.api as { key?: string }).key = "changed";
    }).toThrow(TypeError);
  });

  it("reports every invalid field at once, with paths, origins and suggestions", () => {
    const file = yamlFile(
      [
        "roster:",
        "  maxArchivePercnt: 12",
        "  maxArchiveCount: -1",
        "alerts:",
        "  routes:",
        "    - channel: 'not a channel!'",
        "      minRiskLevel: severe",
        "apiz:",
        "  url: x",
      ].join("\n"),
    );
    const error = configError(() => loadConfig({ file, env: { OPS_PORT: "ninety", LOG_LEVEL: "loud" } }));
    const byPath = (fragment: string) => error.issues.find((i) => i.path.includes(fragment));
    expect(byPath("roster.maxArchivePercnt")?.message).toBe("unknown option — did you mean maxArchivePercent?");
    expect(byPath("roster.maxArchivePercnt")?.path).toContain(`${file}:2:3`);
    expect(byPath("roster.maxArchiveCount")?.message).toContain("-1");
    expect(byPath("alerts.routes[0].channel")?.message).toContain("expected a channel name");
    expect(byPath("alerts.routes[0].minRiskLevel")).toBeDefined();
    expect(byPath("apiz")?.message).toBe("unknown option — did you mean api?");
    expect(byPath("daemon.port")?.path).toContain("OPS_PORT");
    expect(byPath("log.level")?.path).toContain("LOG_LEVEL");
    expect(error.issues).toHaveLength(7);
    for (const issue of error.issues) expect(error.message).toContain(issue.message);
  });

  it("never echoes a secret value in a config problem", () => {
    const error = configError(() =>
      loadConfig({ env: { RETENTION_API_URL: "not a url", SLACK_BOT_TOKEN: "xoxb-secret" } }),
    );
    expect(error.issues.map((i) => i.path)).toEqual(["api.url (from RETENTION_API_URL)"]);
    const keyError = configError(() => loadConfig({ file: yamlFile("api:\n  key: 12345678\n"), env: {} }));
    expect(keyError.message).not.toContain("12345678");
  });

  it("reports unknown keys inside an explicit column mapping", () => {
    const file = yamlFile("roster:\n  mapping:\n    profileUrl: [LinkedIn]\n    deparment: [Dept]\n");
    const error = configError(() => loadConfig({ file, env: {} }));
    expect(error.issues.some((i) => i.message.includes("did you mean department?"))).toBe(true);
  });

  it("names file, line and column of a YAML syntax error", () => {
    const file = yamlFile("api:\n  url: [unclosed\nslack: {\n");
    const error = configError(() => loadConfig({ file, env: {} }));
    expect(error.issues[0]?.path).toMatch(new RegExp(`^${file.replace(/[.]/g, "\\.")}:\\d+:\\d+$`));
    expect(error.issues[0]?.message).toMatch(/YAML syntax error/);
  });

  it("reports a missing file and a non-mapping file clearly", () => {
    expect(configError(() => loadConfig({ file: join(dir, "nope.yaml"), env: {} })).message).toContain(
      "file not found",
    );
    expect(configError(() => loadConfig({ file: yamlFile("- a\n- b\n"), env: {} })).message).toContain(
      "expected a YAML mapping",
    );
    expect(loadConfig({ file: yamlFile("# only comments\n"), env: {} })).toEqual(configSchema.parse({}));
  });
});

describe("alerts options (overlap, manager DMs, next steps)", () => {
  it("default to a 10-minute overlap, manager DMs from high, no next-step overrides; old configs still load", () => {
    const { alerts } = configSchema.parse({});
    expect(alerts.cursorOverlap).toBe(600);
    expect(alerts.managerDm).toEqual({ enabled: false, minRiskLevel: "high" });
    expect(alerts.nextSteps).toEqual({ retention: {}, poaching: {} });
    // A route written before `continue` existed means what it meant: several routes can match.
    const old = loadConfig({
      file: yamlFile("alerts:\n  managerDm: { enabled: true }\n  routes:\n    - { lens: retention, channel: '#hr' }\n"),
      env: {},
    });
    expect(old.alerts.routes[0]?.continue).toBeUndefined();
    expect(old.alerts.managerDm).toEqual({ enabled: true, minRiskLevel: "high" });
  });

  it("reads continue, next steps and the DM threshold, and refuses a next step for an unknown change type", () => {
    const config = loadConfig({
      file: yamlFile(
        [
          "alerts:",
          "  cursorOverlap: 5m",
          "  managerDm: { enabled: true, minRiskLevel: watch }",
          "  nextSteps:",
          "    retention: { open_to_work: 'Talk to them', default: '' }",
          "  routes:",
          "    - { lens: retention, changeTypes: [employee_departed], channel: '#departures', continue: false }",
        ].join("\n"),
      ),
      env: {},
    });
    expect(config.alerts.cursorOverlap).toBe(300);
    expect(config.alerts.managerDm.minRiskLevel).toBe("watch");
    expect(config.alerts.nextSteps.retention).toEqual({ open_to_work: "Talk to them", default: "" });
    expect(config.alerts.routes[0]?.continue).toBe(false);
    const error = configError(() =>
      loadConfig({ file: yamlFile("alerts:\n  nextSteps:\n    retention: { open_to_wrok: 'x' }\n"), env: {} }),
    );
    expect(error.issues.some((i) => i.path.includes("alerts.nextSteps.retention"))).toBe(true);
  });
});

describe("dedupe retention and the webhook signature tolerance", () => {
  it("refuses a dedupeRetention shorter than the tolerance, naming both keys: a replay inside the tolerance would be posted again", () => {
    const error = configError(() =>
      loadConfig({
        file: yamlFile("alerts:\n  dedupeRetention: 5s\n  webhook:\n    toleranceSeconds: 300\n"),
        env: {},
      }),
    );
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]?.path).toMatch(/^alerts\.dedupeRetention \(.*:2:3\)$/);
    expect(error.issues[0]?.message).toContain("alerts.webhook.toleranceSeconds");
    expect(error.issues[0]?.message).toContain("5 s");
    expect(error.issues[0]?.message).toContain("300 s");
    // Equal is enough: a delivery older than the tolerance is refused by its signature.
    const config = loadConfig({ file: yamlFile("alerts:\n  dedupeRetention: 5m\n"), env: {} });
    expect(config.alerts.dedupeRetention).toBe(300);
    expect(() =>
      loadConfig({ file: yamlFile("alerts:\n  dedupeRetention: 60s\n  webhook: { toleranceSeconds: 30 }\n"), env: {} }),
    ).not.toThrow();
  });
});

/** Every option of the schema, as a path (into the first element of a list of objects). */
function optionPaths(path: readonly PathSegment[] = []): PathSegment[][] {
  const keys = knownKeysAt(configSchema, path);
  if (keys.length > 0) return keys.flatMap((key) => optionPaths([...path, key]));
  const inList = knownKeysAt(configSchema, [...path, 0]);
  if (inList.length > 0) return inList.flatMap((key) => optionPaths([...path, 0, key]));
  return [[...path]];
}

/** Options that hold a secret, by their name: a secret option added later is tested too. */
const SECRET_OPTION = /key|token|secret|password|passwd|passphrase|credential|dsn/i;
const secretOptions = optionPaths().filter(
  (path) => SECRET_OPTION.test(String(path[path.length - 1])) || path.join(".") === "state.url",
);

/** A valid source of each type, so that only the option under test can be wrong. */
const VALID_SOURCES: Record<string, Record<string, unknown>> = {
  file: { type: "file" },
  https: { type: "https", url: "https://hris.example.com/report" },
  bamboohr: { type: "bamboohr", companyDomain: "acme" },
  merge: { type: "merge" },
  sftp: {
    type: "sftp",
    host: "sftp.example.com",
    username: "u",
    hostKey: `SHA256:${"A".repeat(43)}`,
    path: "/x/*.csv",
  },
};

/** The `type` of the roster source whose options hold `key` (the source's options depend on it). */
function sourceTypeWith(key: string): string | undefined {
  const union = rosterSourceSchema.unwrap();
  const member = union.options.find((option) => Object.hasOwn(option.shape, key));
  return member?.shape.type.value;
}

function withValue(path: readonly PathSegment[], value: unknown): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let node: Record<string | number, unknown> = root;
  for (const [i, segment] of path.entries()) {
    if (i === path.length - 1) node[segment] = value;
    else {
      const child = (typeof path[i + 1] === "number" ? [] : {}) as Record<string | number, unknown>;
      node[segment] = child;
      node = child;
    }
  }
  const [section, option, key] = path;
  if (section === "roster" && option === "source" && typeof key === "string") {
    const type = sourceTypeWith(key) ?? "file";
    Object.assign(node, { ...VALID_SOURCES[type], [key]: value });
  }
  return root;
}

describe("config problems never show a secret", () => {
  it("finds the secret options of the schema by name", () => {
    expect(secretOptions.map((p) => p.join("."))).toEqual(
      expect.arrayContaining([
        "api.key",
        "slack.token",
        "slack.appToken",
        "slack.interactivity.signingSecret",
        "state.url",
        "alerts.webhook.secrets",
      ]),
    );
  });

  it.each(secretOptions.map((path) => [path.join("."), path] as const))(
    "%s: a value of any type is named, never shown",
    (_name, path) => {
      const values: Array<{ value: unknown; secret: string }> = [
        { value: 99887766554433, secret: "99887766554433" },
        { value: 8.67e27, secret: "8.67e+27" },
        { value: ["s3cret-in-a-list-0001", 4455667788], secret: "s3cret-in-a-list-0001" },
        { value: [4455667788], secret: "4455667788" },
        { value: { nested: "s3cret-in-an-object-0001" }, secret: "s3cret-in-an-object-0001" },
        { value: true, secret: "true" },
        { value: "mysql://admin:pa55w0rd-xyz@db/x", secret: "pa55w0rd-xyz" },
      ];
      let refused = 0;
      for (const { value, secret } of values) {
        let error: ConfigError | undefined;
        try {
          loadConfig({ file: yamlFile(JSON.stringify(withValue(path, value))), env: {} });
        } catch (thrown) {
          if (!(thrown instanceof ConfigError)) throw thrown;
          error = thrown;
        }
        if (error === undefined) continue;
        refused += 1;
        expect(error.message).not.toContain(secret);
        expect(error.issues.some((i) => i.path.startsWith(path.join(".")))).toBe(true);
      }
      expect(refused).toBeGreaterThanOrEqual(4);
    },
  );

  it("shows no secret nested in a value that is echoed, and no Postgres URL", () => {
    const error = configError(() =>
      loadConfig({
        file: yamlFile(
          JSON.stringify({
            slack: [{ token: "xoxb-nested-in-a-list-0001", channel: "#ok" }],
            state: [{ url: "postgres://u:nested-pa55@h/d" }],
          }),
        ),
        env: {},
      }),
    );
    expect(error.message).not.toContain("xoxb-nested-in-a-list-0001");
    expect(error.message).not.toContain("nested-pa55");
    expect(error.message).toContain('"token":"[redacted]"');
    expect(error.message).toContain('"#ok"');
  });
});

describe("roster.source", () => {
  it("takes a pull timeout as a duration above 0 (0 would wait forever)", () => {
    expect(configSchema.safeParse({ roster: { source: { type: "merge", timeoutSeconds: 0 } } }).success).toBe(false);
    expect(
      configSchema.parse({ roster: { source: { type: "merge", timeoutSeconds: "2m" } } }).roster.source,
    ).toMatchObject({
      timeoutSeconds: 120,
    });
  });

  it("refuses plain http:// to anything but this machine", () => {
    const url = (u: string) => configSchema.safeParse({ roster: { source: { type: "https", url: u } } }).success;
    expect(url("http://hris.example.com/report")).toBe(false);
    expect(url("http://127.0.0.1:8080/report")).toBe(true);
    expect(url("https://hris.example.com/report")).toBe(true);
  });
});
