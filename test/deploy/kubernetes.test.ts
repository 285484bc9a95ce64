/**
 * What can be checked about deploy/kubernetes/ without a cluster (`.ci/check-deploy.sh` renders
 * each variant with `kubectl kustomize`): a base and two variants, SQLite on a StatefulSet of one
 * and two replicas on Postgres; no Secret is applied (the workloads name one the user creates), no
 * claim needs ReadWriteMany, the export is mounted as a folder, the probes ask the ops port, and the
 * pods run non-root on a read-only root file system.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { CONFIG_FILE_ENV } from "../../src/config/env-overrides.js";
import { type Config, configSchema } from "../../src/config/schema.js";
import { asTree, at, envFileKeys, list, type Tree, trees } from "./support/yaml-tree.js";

const ROOT = "deploy/kubernetes";
const defaults = configSchema.parse({});
const envExample = envFileKeys(readFileSync("deploy/compose/retention-sync.env.example", "utf8"));

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const readYaml = (file: string): Tree => asTree(parse(readFileSync(file, "utf8")), file);

interface Variant {
  readonly docs: Tree[];
  /** The ConfigMap's data as the generators of the base and the variant merge it. */
  readonly data: Map<string, string>;
  readonly config: Config;
}

/** A variant's resources (its files and its bases') and its generated ConfigMap, as kustomize builds them. */
function loadVariant(dir: string): Variant {
  const docs: Tree[] = [];
  const data = new Map<string, string>();
  const visit = (at_: string) => {
    const kustomization = readYaml(join(at_, "kustomization.yaml"));
    for (const resource of list(kustomization.resources).map(String)) {
      const path = join(at_, resource);
      if (statSync(path).isDirectory()) visit(path);
      else {
        for (const doc of parseAllDocuments(readFileSync(path, "utf8"))) {
          expect(doc.errors, path).toEqual([]);
          docs.push(asTree(doc.toJS(), path));
        }
      }
    }
    for (const generator of trees(kustomization.configMapGenerator, `${at_} configMapGenerator`)) {
      expect(generator.name).toBe("retention-sync");
      for (const literal of list(generator.literals).map(String)) {
        const [key = "", ...value] = literal.split("=");
        data.set(key, value.join("="));
      }
      for (const file of list(generator.files).map(String)) data.set(file, readFileSync(join(at_, file), "utf8"));
    }
  };
  visit(dir);
  const config = configSchema.parse(parse(data.get("config.yaml") ?? "") ?? {});
  return { docs, data, config };
}

const ofKind = (variant: Variant, kind: string) => variant.docs.filter((d) => d.kind === kind);
function one(variant: Variant, kind: string): Tree {
  const found = ofKind(variant, kind);
  expect(found, kind).toHaveLength(1);
  return asTree(found[0], kind);
}

/** The checks every workload shares: probes, the Secret by name, the export folder, security. */
function expectPod(variant: Variant, workload: Tree) {
  const pod = asTree(at(workload, "spec", "template"), "pod template");
  const podLabels = asTree(at(pod, "metadata", "labels"), "pod labels");
  const container = asTree(at(pod, "spec", "containers", 0), "container");
  const ports = trees(container.ports, "ports");
  const portNamed = (name: unknown) => ports.find((p) => p.name === name || p.containerPort === name)?.containerPort;
  const mounts = trees(container.volumeMounts, "volumeMounts");
  const volumes = trees(at(pod, "spec", "volumes"), "volumes");
  const volumeAt = (path: string) => volumes.find((v) => v.name === mounts.find((m) => m.mountPath === path)?.name);
  const selects = (selector: unknown) =>
    Object.entries(asTree(selector, "selector")).every(([key, value]) => podLabels[key] === value);

  it("probes /livez and /readyz on the ops port (OPS_PORT, 9400 in the image)", () => {
    expect(at(container, "livenessProbe", "httpGet", "path")).toBe("/livez");
    expect(at(container, "readinessProbe", "httpGet", "path")).toBe("/readyz");
    expect(portNamed(at(container, "livenessProbe", "httpGet", "port"))).toBe(defaults.daemon.port);
    expect(portNamed(at(container, "readinessProbe", "httpGet", "port"))).toBe(defaults.daemon.port);
    expect(at(pod, "metadata", "annotations", "prometheus.io/port")).toBe(String(defaults.daemon.port));
    expect(selects(at(workload, "spec", "selector", "matchLabels"))).toBe(true);
  });

  it("reads the ConfigMap and a Secret the user creates, by name", () => {
    expect(list(container.envFrom)).toEqual([
      { configMapRef: { name: "retention-sync" } },
      { secretRef: { name: "retention-sync" } },
    ]);
    expect(container.env, "variables outside the ConfigMap and the Secret").toBeUndefined();
    // The config file is where RETENTION_SYNC_CONFIG says.
    const configPath = String(variant.data.get(CONFIG_FILE_ENV));
    const volume = volumeAt(dirname(configPath));
    expect(at(volume, "configMap", "name")).toBe("retention-sync");
    expect(at(volume, "configMap", "items")).toEqual([{ key: "config.yaml", path: "config.yaml" }]);
    expect(configPath.endsWith("/config.yaml")).toBe(true);
  });

  it("mounts the export folder read-only where HRIS_ROSTER_FILE points, not one file", () => {
    const file = String(envExample.set.get("HRIS_ROSTER_FILE"));
    const mount = mounts.find((m) => m.mountPath === dirname(file));
    expect(mount?.readOnly).toBe(true);
    for (const m of mounts) expect(m.subPath, String(m.mountPath)).toBeUndefined();
    expect(volumeAt(dirname(file))?.persistentVolumeClaim, "no claim that both replicas share").toBeUndefined();
  });

  it("runs non-root on a read-only root file system, writing only to its volumes", () => {
    expect(at(pod, "spec", "securityContext", "runAsNonRoot")).toBe(true);
    expect(at(pod, "spec", "securityContext", "runAsUser")).not.toBe(0);
    expect(at(pod, "spec", "automountServiceAccountToken")).toBe(false);
    expect(at(container, "securityContext", "readOnlyRootFilesystem")).toBe(true);
    expect(at(container, "securityContext", "allowPrivilegeEscalation")).toBe(false);
    expect(at(container, "securityContext", "capabilities", "drop")).toEqual(["ALL"]);
    expect(volumeAt("/tmp")?.emptyDir).toEqual({});
    expect(Number(at(pod, "spec", "terminationGracePeriodSeconds"))).toBeGreaterThan(
      variant.config.daemon.shutdownGraceSeconds,
    );
  });

  return { pod, container, mounts, portNamed, selects };
}

describe("deploy/kubernetes", () => {
  const yamlFiles = filesUnder(ROOT).filter((f) => f.endsWith(".yaml"));

  it("applies no Secret, claims nothing ReadWriteMany and mounts no single file", () => {
    for (const file of yamlFiles) {
      for (const doc of parseAllDocuments(readFileSync(file, "utf8"))) {
        // The parsed content, not the comments.
        const body: unknown = doc.toJS();
        expect(at(body, "kind"), file).not.toBe("Secret");
        expect(JSON.stringify(body), file).not.toMatch(/ReadWriteMany|secretGenerator|subPath/);
      }
    }
  });

  it("has a base and the two variants, each file listed", () => {
    expect(readdirSync(ROOT).sort()).toEqual(["base", "ha", "sqlite"]);
    const listed = new Set<string>();
    for (const dir of ["base", "ha", "sqlite"]) {
      const kustomization = readYaml(join(ROOT, dir, "kustomization.yaml"));
      for (const entry of [
        ...list(kustomization.resources),
        ...trees(kustomization.configMapGenerator, "generators").flatMap((g) => list(g.files)),
      ]) {
        listed.add(relative(ROOT, join(ROOT, dir, String(entry))));
      }
    }
    for (const file of yamlFiles) {
      const name = relative(ROOT, file);
      if (!name.endsWith("kustomization.yaml")) expect(listed, name).toContain(name);
    }
  });
});

describe("deploy/kubernetes/sqlite", () => {
  const variant = loadVariant(join(ROOT, "sqlite"));
  const set = one(variant, "StatefulSet");
  const { mounts } = expectPod(variant, set);

  it("is a StatefulSet of one on a ReadWriteOnce claim, the state in a folder of its own", () => {
    expect(at(set, "spec", "replicas")).toBe(1);
    // A StatefulSet replaces its pod after the old one stopped: never two on one state.
    expect(at(set, "spec", "updateStrategy", "type")).toBe("RollingUpdate");
    const [claim] = trees(at(set, "spec", "volumeClaimTemplates"), "volumeClaimTemplates");
    expect(at(claim, "spec", "accessModes")).toEqual(["ReadWriteOnce"]);
    const stateMount = mounts.find((m) => m.name === at(claim, "metadata", "name"));
    const state = String(variant.data.get("RETENTION_SYNC_STATE"));
    expect(state.startsWith(`${String(stateMount?.mountPath)}/`)).toBe(true);
    // Not at the claim's root (group-writable through fsGroup): the daemon makes its folder 0700.
    expect(dirname(state)).not.toBe(stateMount?.mountPath);
    const service = one(variant, "Service");
    expect(at(set, "spec", "serviceName")).toBe(at(service, "metadata", "name"));
    expect(at(service, "spec", "clusterIP")).toBe("None");
    expect(variant.config.state.url).toBeUndefined();
  });
});

describe("deploy/kubernetes/ha", () => {
  const variant = loadVariant(join(ROOT, "ha"));
  const deployment = one(variant, "Deployment");
  const { pod, portNamed, selects } = expectPod(variant, deployment);

  it("runs two replicas or more on Postgres, spread over nodes, replaced one at a time", () => {
    expect(Number(at(deployment, "spec", "replicas"))).toBeGreaterThanOrEqual(2);
    expect(at(deployment, "spec", "strategy", "rollingUpdate", "maxUnavailable")).toBe(0);
    expect(at(pod, "spec", "topologySpreadConstraints", 0, "topologyKey")).toBe("kubernetes.io/hostname");
    const state = new URL(String(variant.data.get("RETENTION_SYNC_STATE")));
    expect(state.protocol).toBe("postgres:");
    expect(state.password).toBe("");
    expect(ofKind(variant, "PersistentVolumeClaim")).toEqual([]);
    expect(at(deployment, "spec", "volumeClaimTemplates")).toBeUndefined();
  });

  it("keeps one replica through a drain, and serves webhooks from every ready replica", () => {
    const pdb = one(variant, "PodDisruptionBudget");
    expect(at(pdb, "apiVersion")).toBe("policy/v1");
    expect(at(pdb, "spec", "minAvailable")).toBe(1);
    expect(selects(at(pdb, "spec", "selector", "matchLabels"))).toBe(true);
    const webhooks = ofKind(variant, "Service").find((s) => at(s, "spec", "clusterIP") !== "None");
    expect(selects(at(webhooks, "spec", "selector"))).toBe(true);
    expect(portNamed(at(webhooks, "spec", "ports", 0, "targetPort"))).toBe(variant.config.alerts.webhook.port);
    expect(variant.config.alerts.webhook.enabled).toBe(true);
  });
});
