/**
 * What can be checked about deploy/ without a Docker engine or a cluster: every file parses, the
 * compose file has its services, profile, environment and health check, the Kubernetes manifests
 * have two replicas, probes on /livez and /readyz at the ops port, a PodDisruptionBudget, a
 * Service for webhooks, and secrets taken from the Secret; the config files they carry are valid
 * configs, and the ports agree with them.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { type Config, configSchema } from "../../src/config/schema.js";

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

function at(value: unknown, ...path: Array<string | number>): unknown {
  let node = value;
  for (const key of path) {
    if (Array.isArray(node) && typeof key === "number") node = node[key];
    else if (isNode(node) && typeof key === "string") node = node[key];
    else return undefined;
  }
  return node;
}

function asNode(value: unknown, what: string): Node {
  if (!isNode(value)) throw new Error(`${what}: expected a mapping, got ${JSON.stringify(value)}`);
  return value;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A config file as the daemon would read it (the schema fills the defaults). */
function configOf(text: string): Config {
  return configSchema.parse(parse(text) ?? {});
}

const SECRET_ENV = ["RETENTION_API_KEY", "SLACK_BOT_TOKEN", "RETENTION_WEBHOOK_SECRETS", "PGPASSWORD"];

describe("deploy/docker-compose.yaml", () => {
  // Merge keys (<<) as Compose reads them.
  const compose = asNode(parse(readFileSync("deploy/docker-compose.yaml", "utf8"), { merge: true }), "compose");
  const services = asNode(compose.services, "services");
  const inline = String(at(compose, "configs", "retention-sync-config", "content"));
  const config = configOf(inline);

  it("has the daemon, Postgres, and a second replica behind the `ha` profile", () => {
    expect(Object.keys(services).sort()).toEqual(["postgres", "retention-sync", "retention-sync-standby"]);
    expect(at(services, "retention-sync", "profiles")).toBeUndefined();
    expect(at(services, "retention-sync-standby", "profiles")).toEqual(["ha"]);
    expect(at(services, "postgres", "image")).toMatch(/^postgres:1[4-9]/);
    expect(at(services, "postgres", "healthcheck", "test")).toContain("pg_isready");
    expect(list(at(services, "postgres", "volumes"))).toContain("postgres-data:/var/lib/postgresql/data");
    expect(Object.keys(asNode(compose.volumes, "volumes"))).toContain("postgres-data");
  });

  it("runs both replicas from the repository's Dockerfile on the Postgres state, the password in PGPASSWORD", () => {
    for (const name of ["retention-sync", "retention-sync-standby"]) {
      const service = asNode(services[name], name);
      const build = asNode(service.build, `${name}.build`);
      expect(existsSync(join("deploy", String(build.context), String(build.dockerfile)))).toBe(true);
      const env = asNode(service.environment, `${name}.environment`);
      const state = new URL(String(env.RETENTION_SYNC_STATE));
      expect(state.protocol).toBe("postgres:");
      expect(state.password).toBe("");
      expect(state.hostname).toBe("postgres");
      expect(state.username).toBe(at(services, "postgres", "environment", "POSTGRES_USER"));
      expect(state.pathname).toBe(`/${String(at(services, "postgres", "environment", "POSTGRES_DB"))}`);
      expect(env.PGPASSWORD).toBe(at(services, "postgres", "environment", "POSTGRES_PASSWORD"));
      for (const secret of ["RETENTION_API_KEY", "SLACK_BOT_TOKEN", "RETENTION_WEBHOOK_SECRETS", "PGPASSWORD"]) {
        // Taken from the operator's environment, never written in the file.
        expect(String(env[secret]), secret).toMatch(/^\$\{[A-Z_]+:\?[^}]+\}$/);
      }
      expect(at(service, "depends_on", "postgres", "condition")).toBe("service_healthy");
      expect(at(service, "configs", 0, "target")).toBe(env.RETENTION_SYNC_CONFIG);
      expect(String(at(service, "healthcheck", "test", 3))).toContain(`127.0.0.1:${config.daemon.port}/readyz`);
      const ports = list(service.ports).map(String);
      expect(ports.some((p) => p.endsWith(`:${config.daemon.port}`))).toBe(true);
      expect(ports.some((p) => p.endsWith(`:${config.alerts.webhook.port}`))).toBe(true);
      // Longer than the daemon's own grace: a leader finishes its step and hands over.
      expect(Number.parseInt(String(service.stop_grace_period), 10)).toBeGreaterThan(
        config.daemon.shutdownGraceSeconds,
      );
    }
  });

  it("carries a valid config with the webhook receiver on", () => {
    expect(config.alerts.webhook.enabled).toBe(true);
    expect(config.state.url).toBeUndefined();
  });
});

describe("deploy/kubernetes", () => {
  const dir = "deploy/kubernetes";
  const files = readdirSync(dir).filter((f) => f.endsWith(".yaml"));
  const docs = files.flatMap((file) =>
    parseAllDocuments(readFileSync(join(dir, file), "utf8")).map((doc) => {
      expect(doc.errors, file).toEqual([]);
      return { file, body: asNode(doc.toJS(), file) };
    }),
  );
  const ofKind = (kind: string) => docs.filter((d) => d.body.kind === kind).map((d) => d.body);
  const one = (kind: string) => {
    const found = ofKind(kind);
    expect(found, kind).toHaveLength(1);
    return asNode(found[0], kind);
  };
  const deployment = one("Deployment");
  const pod = asNode(at(deployment, "spec", "template"), "pod template");
  const podLabels = asNode(at(pod, "metadata", "labels"), "pod labels");
  const container = asNode(at(pod, "spec", "containers", 0), "container");
  const configMap = one("ConfigMap");
  const secret = one("Secret");
  const config = configOf(String(at(configMap, "data", "config.yaml")));
  const portNamed = (name: unknown) =>
    list(container.ports)
      .map((p) => asNode(p, "port"))
      .find((p) => p.name === name || p.containerPort === name)?.containerPort;
  const selects = (selector: unknown) =>
    Object.entries(asNode(selector, "selector")).every(([key, value]) => podLabels[key] === value);

  it("has every kind, each file listed in the kustomization", () => {
    expect(docs.map((d) => d.body.kind).sort()).toEqual(
      [
        "ConfigMap",
        "Deployment",
        "Kustomization",
        "PersistentVolumeClaim",
        "PodDisruptionBudget",
        "Secret",
        "Service",
      ].sort(),
    );
    for (const d of docs) expect(typeof d.body.apiVersion, d.file).toBe("string");
    expect(list(one("Kustomization").resources).sort()).toEqual(files.filter((f) => f !== "kustomization.yaml").sort());
  });

  it("runs two replicas, spread over nodes, replaced one at a time", () => {
    expect(at(deployment, "spec", "replicas")).toBe(2);
    expect(selects(at(deployment, "spec", "selector", "matchLabels"))).toBe(true);
    expect(at(deployment, "spec", "strategy", "rollingUpdate", "maxUnavailable")).toBe(0);
    expect(at(pod, "spec", "topologySpreadConstraints", 0, "topologyKey")).toBe("kubernetes.io/hostname");
    expect(Number(at(pod, "spec", "terminationGracePeriodSeconds"))).toBeGreaterThan(
      config.daemon.shutdownGraceSeconds,
    );
    expect(at(pod, "spec", "securityContext", "runAsNonRoot")).toBe(true);
  });

  it("probes /livez and /readyz on the ops port the config sets", () => {
    const liveness = asNode(at(container, "livenessProbe", "httpGet"), "liveness");
    const readiness = asNode(at(container, "readinessProbe", "httpGet"), "readiness");
    expect(liveness.path).toBe("/livez");
    expect(readiness.path).toBe("/readyz");
    expect(portNamed(liveness.port)).toBe(config.daemon.port);
    expect(portNamed(readiness.port)).toBe(config.daemon.port);
    expect(at(pod, "metadata", "annotations", "prometheus.io/port")).toBe(String(config.daemon.port));
  });

  it("takes the state URL (no password) and the config path from the ConfigMap, every secret from the Secret", () => {
    expect(list(container.envFrom)).toContainEqual({ configMapRef: { name: at(configMap, "metadata", "name") } });
    const data = asNode(configMap.data, "ConfigMap data");
    const state = new URL(String(data.RETENTION_SYNC_STATE));
    expect(state.protocol).toBe("postgres:");
    expect(state.password).toBe("");
    for (const name of SECRET_ENV) expect(data[name], `${name} in the ConfigMap`).toBeUndefined();
    const env = list(container.env).map((e) => asNode(e, "env"));
    const secretKeys = Object.keys(asNode(secret.stringData, "Secret stringData")).sort();
    expect(secretKeys).toEqual([...SECRET_ENV].sort());
    for (const name of SECRET_ENV) {
      const ref = at(
        env.find((e) => e.name === name),
        "valueFrom",
        "secretKeyRef",
      );
      expect(ref, name).toEqual({ name: at(secret, "metadata", "name"), key: name });
    }
    // The config file is mounted where RETENTION_SYNC_CONFIG says.
    const mount = list(container.volumeMounts)
      .map((m) => asNode(m, "mount"))
      .find((m) => m.name === "config");
    const volume = list(at(pod, "spec", "volumes"))
      .map((v) => asNode(v, "volume"))
      .find((v) => v.name === "config");
    expect(at(volume, "configMap", "name")).toBe(at(configMap, "metadata", "name"));
    expect(`${String(mount?.mountPath)}/${String(at(volume, "configMap", "items", 0, "path"))}`).toBe(
      data.RETENTION_SYNC_CONFIG,
    );
    expect(String(data.HRIS_ROSTER_FILE).startsWith(`${String(at(container, "volumeMounts", 1, "mountPath"))}/`)).toBe(
      true,
    );
    const claim = at(
      list(at(pod, "spec", "volumes")).find((v) => at(v, "name") === "hris"),
      "persistentVolumeClaim",
      "claimName",
    );
    expect(claim).toBe(at(one("PersistentVolumeClaim"), "metadata", "name"));
  });

  it("keeps one replica through a voluntary disruption", () => {
    const pdb = one("PodDisruptionBudget");
    expect(at(pdb, "apiVersion")).toBe("policy/v1");
    expect(at(pdb, "spec", "minAvailable")).toBe(1);
    expect(selects(at(pdb, "spec", "selector", "matchLabels"))).toBe(true);
  });

  it("has a Service for webhooks onto the receiver's port, with the receiver on in the config", () => {
    const service = one("Service");
    expect(selects(at(service, "spec", "selector"))).toBe(true);
    expect(portNamed(at(service, "spec", "ports", 0, "targetPort"))).toBe(config.alerts.webhook.port);
    expect(config.alerts.webhook.enabled).toBe(true);
  });
});
