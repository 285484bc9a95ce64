#!/usr/bin/env node
// The registry mirror of our build machines serves only the linux-glibc builds of packages that
// ship one binary package per platform (Biome). npm then writes a lock file without the other
// platforms' optional entries, and `npm ci` refuses it as out of sync. This adds the missing
// entries (version from the parent, os/cpu/libc from the package name); npm skips them on
// other platforms exactly as it would with registry metadata. Run it after `npm install`.
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
const packages = lock.packages;
const OS = ["android", "darwin", "freebsd", "linux", "openbsd", "sunos", "win32", "aix"];
const CPU = ["arm64", "x64", "ia32", "arm", "ppc64", "s390x", "riscv64", "loong64"];
let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (packages[key] || packages[`${path}/${key}`]) continue;
    const parts = name.split("/").pop().split("-");
    const os = parts.find((p) => OS.includes(p));
    const cpu = parts.find((p) => CPU.includes(p));
    if (!os || !cpu) continue;
    packages[key] = {
      version,
      cpu: [cpu],
      ...(entry.dev ? { dev: true } : {}),
      ...(parts.includes("musl") ? { libc: ["musl"] } : {}),
      optional: true,
      os: [os],
    };
    added += 1;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b, "en")));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`fix-lock-platforms: ${added} platform entries added`);
