/**
 * What can be checked about deploy/compose/ without a Docker engine (`.ci/check-deploy.sh` runs
 * `docker-compose config` on it): the two set-ups have their services, their secrets come from an
 * env file and never from the Compose file, the export is mounted as a folder, the ports are bound
 * to an address, nothing needs a Compose newer than 1.27, and the config files are valid.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CONFIG_FILE_ENV, ENV_OVERRIDES } from "../../src/config/env-overrides.js";
import { type Config, configSchema } from "../../src/config/schema.js";
import { SOURCE_SECRET_ENV } from "../../src/roster/sources/source-secrets.js";
import { runProbe, scriptOf } from "./support/probe-script.js";
import { portParts, unboundPort } from "./support/published-ports.js";
import { asTree, at, envFileKeys, list, type Tree } from "./support/yaml-tree.js";

const DIR = "deploy/compose";
const defaults = configSchema.parse({});
/** Every variable the daemon reads, and the Postgres client's password. */
const KNOWN_ENV = new Set([...ENV_OVERRIDES.map((o) => o.env), ...SOURCE_SECRET_ENV, CONFIG_FILE_ENV, "PGPASSWORD"]);
const SECRET_ENV = [
  "RETENTION_API_KEY",
  "SLACK_BOT_TOKEN",
  "SLACK_APP_TOKEN",
  "SLACK_SIGNING_SECRET",
  "RETENTION_WEBHOOK_SECRETS",
  "PGPASSWORD",
  "POSTGRES_PASSWORD",
  ...SOURCE_SECRET_ENV,
];

function composeFile(file: string): Tree {
  // Merge keys (<<) as Compose reads them.
  return asTree(parse(readFileSync(join(DIR, file), "utf8"), { merge: true }), file);
}

const envExample = envFileKeys(readFileSync(join(DIR, "retention-sync.env.example"), "utf8"));
const postgresExample = envFileKeys(readFileSync(join(DIR, "postgres.env.example"), "utf8"));

/** The config file a daemon service reads: RETENTION_SYNC_CONFIG inside the folder mounted from ./config. */
function configOf(service: Tree): Config {
  const path = String(at(service, "environment", CONFIG_FILE_ENV));
  const mount = list(service.volumes)
    .map(String)
    .find((v) => v.startsWith("./config:"));
  const [, target] = (mount ?? "").split(":");
  expect(path.startsWith(`${target}/`), `${path} is inside the config mount ${mount}`).toBe(true);
  const file = join(DIR, "config", path.slice(`${target}/`.length));
  return configSchema.parse(parse(readFileSync(file, "utf8")) ?? {});
}

/** What every daemon service of both files must do. */
async function expectDaemon(name: string, service: Tree): Promise<Config> {
  const build = asTree(service.build, `${name}.build`);
  expect(existsSync(join(DIR, String(build.context), String(build.dockerfile)))).toBe(true);
  // Secrets and settings from the env file the user makes from the example.
  expect(list(service.env_file)).toEqual([`\${RETENTION_SYNC_ENV_FILE:-retention-sync.env}`]);
  const env = asTree(service.environment, `${name}.environment`);
  for (const key of Object.keys(env))
    expect(KNOWN_ENV, `${name}: ${key} is a variable the daemon reads`).toContain(key);
  for (const secret of SECRET_ENV) expect(env[secret], `${name}: ${secret} in the Compose file`).toBeUndefined();
  // The export's folder, read-only, where HRIS_ROSTER_FILE of the example points.
  const volumes = list(service.volumes).map(String);
  const exportMount = volumes.find((v) => /:\/exports:ro$/.test(v));
  expect(exportMount, `${name} mounts the export folder read-only at /exports`).toBeDefined();
  expect(envExample.set.get("HRIS_ROSTER_FILE")).toMatch(/^\/exports\/[^/]+$/);
  // Containers keep nothing outside their volumes.
  expect(service.read_only).toBe(true);
  expect(list(service.tmpfs)).toContain("/tmp");
  expect(list(service.cap_drop)).toEqual(["ALL"]);
  // The health check asks /readyz on OPS_PORT, as the daemon listens.
  const script = scriptOf(list(at(service, "healthcheck", "test")));
  expect(await runProbe(script, {}, "ok")).toEqual({
    url: `http://127.0.0.1:${defaults.daemon.port}/readyz`,
    exitCode: 0,
  });
  expect((await runProbe(script, { OPS_PORT: "9500" }, "not-ok")).url).toBe("http://127.0.0.1:9500/readyz");
  const config = configOf(service);
  // Longer than the daemon's own grace: the running step finishes (a leader hands over).
  expect(Number.parseInt(String(service.stop_grace_period), 10)).toBeGreaterThan(config.daemon.shutdownGraceSeconds);
  const ports = list(service.ports);
  for (const port of ports) expect(unboundPort(port), `${name}: ${String(port)}`).toBeUndefined();
  expect(ports.some((p) => String(p).endsWith(`:${defaults.daemon.port}`))).toBe(true);
  return config;
}

describe("published ports", () => {
  it("are bound to an address, or to a variable", () => {
    expect(unboundPort(`\${OPS_BIND:-127.0.0.1}:9400:9400`)).toBeUndefined();
    expect(unboundPort("127.0.0.1:9400:9400")).toBeUndefined();
    expect(unboundPort("[::1]:9400:9400/tcp")).toBeUndefined();
    expect(unboundPort(`\${OPS_PUBLISH:-127.0.0.1:9400}:9400`)).toBeUndefined();
    expect(unboundPort({ target: 9400, published: 9400, host_ip: "127.0.0.1" })).toBeUndefined();
    for (const bad of [
      "9400:9400",
      "9400",
      9400,
      "0.0.0.0:9400:9400",
      ":9400:9400",
      { target: 9400, published: 9400 },
    ]) {
      expect(unboundPort(bad), JSON.stringify(bad)).toBeDefined();
    }
  });
});

describe.each(["docker-compose.yaml", "docker-compose.ha.yaml"])("deploy/compose/%s", (file) => {
  const compose = composeFile(file);

  it("uses nothing newer than docker-compose 1.27 reads (Debian 12 ships 1.29)", () => {
    // Inline configs (configs.content) need Compose 2.23; `name:` and `include:` are v2 only.
    for (const key of ["configs", "secrets", "name", "include", "version"]) expect(compose[key], key).toBeUndefined();
    for (const [name, service] of Object.entries(asTree(compose.services, "services"))) {
      // env_file as a list of paths: the long syntax (path, required) is Compose 2.24.
      for (const entry of list(at(service, "env_file"))) expect(typeof entry, `${name}.env_file`).toBe("string");
      expect(at(service, "develop"), `${name}.develop`).toBeUndefined();
    }
  });

  it("takes every secret from an env file the user copies from an example", () => {
    for (const [name, service] of Object.entries(asTree(compose.services, "services"))) {
      for (const entry of list(at(service, "env_file"))) {
        const example = /^\$\{[A-Z_]+:-([^}]+)\}$/.exec(String(entry))?.[1];
        expect(example, `${name}: env_file ${String(entry)} is overridable`).toBeDefined();
        expect(existsSync(join(DIR, `${example}.example`)), `${example}.example`).toBe(true);
      }
    }
  });
});

describe("deploy/compose/docker-compose.yaml (SQLite, the default)", () => {
  const compose = composeFile("docker-compose.yaml");
  const services = asTree(compose.services, "services");

  it("is one daemon with its state on a named volume", async () => {
    expect(Object.keys(services)).toEqual(["retention-sync"]);
    const service = asTree(services["retention-sync"], "retention-sync");
    await expectDaemon("retention-sync", service);
    const state = String(at(service, "environment", "RETENTION_SYNC_STATE"));
    const stateMount = list(service.volumes)
      .map(String)
      .find((v) => v.startsWith("state:"));
    expect(state.startsWith(`${stateMount?.split(":")[1]}/`)).toBe(true);
    expect(Object.keys(asTree(compose.volumes, "volumes"))).toEqual(["state"]);
  });
});

describe("deploy/compose/docker-compose.ha.yaml (Postgres)", () => {
  const compose = composeFile("docker-compose.ha.yaml");
  const services = asTree(compose.services, "services");
  const postgres = asTree(services.postgres, "postgres");

  it("runs two daemons on Postgres with the webhook receiver on", async () => {
    const daemons = Object.keys(services).filter((name) => name !== "postgres");
    expect(daemons).toHaveLength(2);
    const published: string[] = [];
    for (const name of daemons) {
      const service = asTree(services[name], name);
      const config = await expectDaemon(name, service);
      expect(config.alerts.webhook.enabled).toBe(true);
      const ports = list(service.ports).map(String);
      expect(ports.some((p) => p.endsWith(`:${config.alerts.webhook.port}`))).toBe(true);
      published.push(...ports.map((p) => portParts(p).slice(0, -1).join(":")));
      // The password is not in the URL: PGPASSWORD from the env file carries it.
      const state = new URL(String(at(service, "environment", "RETENTION_SYNC_STATE")));
      expect(state.protocol).toBe("postgres:");
      expect(state.password).toBe("");
      expect(state.hostname).toBe("postgres");
      expect(state.username).toBe(at(postgres, "environment", "POSTGRES_USER"));
      expect(state.pathname).toBe(`/${String(at(postgres, "environment", "POSTGRES_DB"))}`);
      expect(at(service, "depends_on", "postgres", "condition")).toBe("service_healthy");
    }
    // Each replica on host ports of its own.
    expect(new Set(published).size).toBe(published.length);
    expect(envExample.offered).toEqual(expect.arrayContaining(["PGPASSWORD", "RETENTION_WEBHOOK_SECRETS"]));
  });

  it("runs Postgres unpublished, its password from its own env file", () => {
    expect(String(postgres.image)).toMatch(/^postgres:1[4-9]/);
    expect(postgres.ports).toBeUndefined();
    expect(list(postgres.env_file)).toEqual([`\${POSTGRES_ENV_FILE:-postgres.env}`]);
    expect([...postgresExample.set.keys()]).toEqual(["POSTGRES_PASSWORD"]);
    expect(at(postgres, "environment", "POSTGRES_PASSWORD")).toBeUndefined();
    expect(list(at(postgres, "healthcheck", "test"))).toContain("pg_isready");
  });
});

describe("deploy/compose/retention-sync.env.example", () => {
  it("offers only variables the daemon reads, with values every reader takes alike", () => {
    for (const key of envExample.offered) expect(KNOWN_ENV, key).toContain(key);
    for (const [key, value] of envExample.set) expect(value, key).toMatch(/^[^\s"'#$]+$/);
    expect([...envExample.set.keys()]).toEqual(
      expect.arrayContaining(["RETENTION_API_URL", "RETENTION_API_KEY", "SLACK_BOT_TOKEN"]),
    );
  });
});
