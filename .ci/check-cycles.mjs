#!/usr/bin/env node
// Import circles in the daemon (src/), the emulator package (packages/emulator/src) and bench/, type-only
// imports included (`npm run check:cycles`, run by .ci/run). Exits 1 on any circle.
//
// madge can miss edges without a word: a TypeScript file imported with a `.js` specifier that it
// fails to resolve is "skipped", and a graph without its edges has no circles. So this also fails
// when a relative import was skipped or when the graph has suspiciously few edges.
//
// Usage: node .ci/check-cycles.mjs [folder...]   (default: src packages/emulator/src bench)
import madge from "madge";

const roots = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["src", "packages/emulator/src", "bench"];
const result = await madge(roots, {
  fileExtensions: ["ts"],
  tsConfig: "tsconfig.json",
  excludeRegExp: [/\.d\.ts$/],
});

const graph = result.obj();
const files = Object.keys(graph).length;
const edges = Object.values(graph).reduce((sum, deps) => sum + deps.length, 0);
// Bare specifiers (packages) are not followed; a relative one that was skipped is a resolution failure.
const unresolved = result.warnings().skipped.filter((id) => id.startsWith(".") || id.startsWith("/"));
const circles = result.circular();

console.log(`check-cycles: ${files} files, ${edges} imports in ${roots.join(", ")}`);
let failed = false;
if (unresolved.length > 0) {
  console.log(`✖ ${unresolved.length} relative import(s) madge could not resolve (its graph would be incomplete):`);
  for (const id of unresolved) console.log(`  ${id}`);
  failed = true;
}
if (files > 1 && edges < files / 2) {
  console.log(`✖ only ${edges} imports between ${files} files: madge is not resolving the imports`);
  failed = true;
}
if (circles.length > 0) {
  console.log(`✖ ${circles.length} import circle(s):`);
  circles.forEach((circle, i) => {
    console.log(`  ${i + 1}) ${[...circle, circle[0]].join(" > ")}`);
  });
  failed = true;
}
if (failed) process.exit(1);
console.log("✔ no import circles");
