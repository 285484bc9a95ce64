/**
 * deploy/monitoring/ against the daemon's metrics: every metric the alerting rules and the Grafana
 * dashboard query is one `src/daemon/metrics.ts` exports (histograms with their `_bucket`, `_sum`
 * and `_count` series), every alert says how bad it is and where its runbook is, and has promtool
 * tests that make it fire and keep it quiet (`.ci/check-deploy.sh` runs them).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createMetrics } from "../../src/daemon/metrics.js";
import { asTree, at, list, type Tree, trees } from "./support/yaml-tree.js";

const PREFIX = "retention_sync_";

/** Every series name the daemon's registry exports, its process metrics included. */
async function exportedSeries(): Promise<Set<string>> {
  const metrics = await createMetrics().registry.getMetricsAsJSON();
  const names = new Set<string>();
  for (const metric of metrics) {
    names.add(metric.name);
    if (String(metric.type) === "histogram")
      for (const suffix of ["_bucket", "_sum", "_count"]) names.add(metric.name + suffix);
    if (String(metric.type) === "summary") for (const suffix of ["_sum", "_count"]) names.add(metric.name + suffix);
  }
  return names;
}

/**
 * The metric names a PromQL expression reads that the daemon does not export: any name with our
 * prefix, and the process metrics without it (the daemon prefixes those too).
 */
function unknownMetrics(expr: string, known: ReadonlySet<string>): string[] {
  const ours = [...expr.matchAll(/\bretention_sync_[a-z0-9_]+/g)].map((m) => m[0]);
  const unprefixed = [...expr.matchAll(/(?<![a-z0-9_])(process|nodejs)_[a-z0-9_]+/g)].map((m) => m[0]);
  return [...ours.filter((name) => !known.has(name)), ...unprefixed];
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const headings = [...markdown.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map((m) => m[1] ?? "");
  return new Set(
    headings.map((h) =>
      h
        .toLowerCase()
        .replace(/[^a-z0-9 _-]/g, "")
        .replace(/ /g, "-"),
    ),
  );
}

const rules = asTree(parse(readFileSync("deploy/monitoring/rules.yaml", "utf8")), "rules.yaml");
const alerts = trees(rules.groups, "groups").flatMap((g) => trees(g.rules, `group ${String(g.name)}`));
const ruleTests = trees(
  at(parse(readFileSync("deploy/monitoring/rules.test.yaml", "utf8")), "tests"),
  "rules.test.yaml tests",
);
const dashboard = asTree(
  JSON.parse(readFileSync("deploy/monitoring/grafana-dashboard.json", "utf8")),
  "grafana-dashboard.json",
);
/** Every panel, those inside collapsed rows too. */
const panels = trees(dashboard.panels, "panels").flatMap((p) => [p, ...trees(p.panels, "row panels")]);
const queries = panels.flatMap((p) => trees(p.targets, `panel ${String(p.title)} targets`));

describe("the metric-name check", () => {
  it("flags names the daemon does not export", () => {
    const known = new Set(["retention_sync_leader", "retention_sync_process_cpu_seconds_total"]);
    expect(unknownMetrics("sum(retention_sync_leader) != 1", known)).toEqual([]);
    expect(unknownMetrics("rate(retention_sync_process_cpu_seconds_total[5m])", known)).toEqual([]);
    expect(unknownMetrics("retention_sync_leaders == 0", known)).toEqual(["retention_sync_leaders"]);
    expect(unknownMetrics("rate(process_cpu_seconds_total[5m])", known)).toEqual(["process_cpu_seconds_total"]);
  });
});

describe("deploy/monitoring/rules.yaml", () => {
  const runbook = anchorsOf(readFileSync("docs/operations.md", "utf8"));

  it("queries only metrics the daemon exports", async () => {
    const known = await exportedSeries();
    expect(alerts.length).toBeGreaterThan(0);
    for (const rule of alerts) expect(unknownMetrics(String(rule.expr), known), String(rule.alert)).toEqual([]);
  });

  it("gives every alert a wait, a severity, a summary and a runbook in docs/operations.md", () => {
    for (const rule of alerts) {
      const name = String(rule.alert);
      expect(name).toMatch(/^RetentionSync[A-Z]\w+$/);
      expect(String(rule.for), name).toMatch(/^\d+[smh]$/);
      expect(["critical", "warning"], name).toContain(at(rule, "labels", "severity"));
      expect(String(at(rule, "annotations", "summary")), name).not.toBe("undefined");
      const link = /docs\/operations\.md#([a-z0-9-]+)/.exec(String(at(rule, "annotations", "description")));
      expect(link?.[1], `${name}: a runbook link`).toBe(name.toLowerCase());
      expect(runbook, `${name}: a heading in docs/operations.md`).toContain(link?.[1]);
    }
  });

  it("has promtool tests that make each alert fire and keep it quiet", () => {
    const cases = ruleTests.flatMap((t) => trees(t.alert_rule_test, `test ${String(t.name)}`));
    for (const rule of alerts) {
      const mine = cases.filter((c) => c.alertname === rule.alert);
      expect(
        mine.some((c) => list(c.exp_alerts).length > 0),
        `${String(rule.alert)} fires`,
      ).toBe(true);
      expect(
        mine.some((c) => list(c.exp_alerts).length === 0),
        `${String(rule.alert)} stays quiet`,
      ).toBe(true);
    }
    expect(list(parse(readFileSync("deploy/monitoring/rules.test.yaml", "utf8")).rule_files)).toEqual(["rules.yaml"]);
  });
});

describe("deploy/monitoring/grafana-dashboard.json", () => {
  it("queries only metrics the daemon exports", async () => {
    const known = await exportedSeries();
    expect(queries.length).toBeGreaterThan(0);
    for (const query of queries) expect(unknownMetrics(String(query.expr), known), String(query.expr)).toEqual([]);
  });

  it("takes its data source from a variable", () => {
    const variables = trees(at(dashboard, "templating", "list"), "templating");
    const source = variables.find((v: Tree) => v.type === "datasource");
    expect(source?.query).toBe("prometheus");
    const uid = `\${${String(source?.name)}}`;
    for (const panel of panels.filter((p) => p.type !== "row")) expect(at(panel, "datasource", "uid")).toBe(uid);
    for (const query of queries) expect(at(query, "datasource", "uid")).toBe(uid);
    for (const variable of variables.filter((v) => v.type === "query"))
      expect(at(variable, "datasource", "uid")).toBe(uid);
  });
});

it("every metric name starts with the prefix", async () => {
  for (const name of await exportedSeries()) expect(name.startsWith(PREFIX), name).toBe(true);
});
