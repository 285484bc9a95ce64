#!/usr/bin/env node
// `npm audit` of the production dependencies (the ones the Docker image ships), run by .ci/run.
// Exits 1 when the registry reports any vulnerability in them, listing each with its advisories and
// whether `npm audit fix` can update it away.
//
// A registry or mirror without the audit endpoint (it answers the bulk advisory POST with an error,
// e.g. 405 Method Not Allowed) or no network is no finding: the step then says plainly that the
// dependencies were NOT audited and why, and exits 0, so such a machine can still run CI.
//
// Usage: node .ci/audit.mjs
import { spawnSync } from "node:child_process";

const run = spawnSync("npm", ["audit", "--omit=dev", "--json"], {
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
});
if (run.error) {
  console.log(`✖ could not run npm audit: ${run.error.message}`);
  process.exit(1);
}

let report;
try {
  report = JSON.parse(run.stdout);
} catch {
  report = undefined;
}

if (report?.auditReportVersion === undefined) {
  // npm's own error object (a failed request), or no JSON at all.
  const reason = report?.message ?? report?.error?.summary ?? (run.stderr.trim().split("\n").at(-1) || "no answer");
  console.log(
    `⚠ the production dependencies were NOT audited: the registry's audit endpoint did not answer (${reason}).`,
  );
  console.log("  Run `npm audit --omit=dev` where the npm registry's audit service is reachable.");
  process.exit(0);
}

const vulnerabilities = Object.values(report.vulnerabilities ?? {});
const counts = report.metadata?.vulnerabilities ?? {};
const dependencies = report.metadata?.dependencies?.prod ?? "?";
if (vulnerabilities.length === 0) {
  console.log(`✔ npm audit: no known vulnerability in the ${dependencies} production dependencies`);
  process.exit(0);
}

const order = ["critical", "high", "moderate", "low", "info"];
vulnerabilities.sort((a, b) => order.indexOf(a.severity) - order.indexOf(b.severity) || a.name.localeCompare(b.name));
const summary = order.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}`);
console.log(`✖ npm audit: ${vulnerabilities.length} vulnerable production package(s) (${summary.join(", ")}):`);
for (const v of vulnerabilities) {
  // `via` holds advisories (objects) or the names of vulnerable packages this one depends on.
  const via = v.via.map((x) => (typeof x === "string" ? `through ${x}` : `${x.title} (${x.url})`)).join("; ");
  const fix =
    v.fixAvailable === false
      ? "no fix available yet"
      : v.fixAvailable === true
        ? "`npm audit fix` updates it"
        : `fixed by ${v.fixAvailable.name}@${v.fixAvailable.version}${v.fixAvailable.isSemVerMajor ? " (a major update)" : ""}`;
  console.log(`  ${v.severity.padEnd(8)} ${v.name} ${v.range}: ${via} — ${fix}`);
}
process.exit(1);
