// The daemon's build: src/ (TypeScript) bundled into dist/cli.js and a few chunks that only some
// commands or configurations load (`import()` in src/ is where a chunk starts). One file to read
// and compile instead of ~700 modules is what brings `run` to ready quickly (BENCHMARKS.md, section 8).
// Type checking is `npm run typecheck`'s job; this only transforms and bundles.
import { defineConfig } from "rolldown";

/**
 * Packages loaded as they are installed, not bundled: native bindings found through their own
 * folders (sqlite3 and what builds on it, ssh2's optional cpu-features), pg's optional native
 * driver, and the emulator, which is a workspace package absent from the production image.
 */
const EXTERNAL: RegExp =
  /^(sqlite3|@keyv\/sqlite|pg|pg-native|ssh2|ssh2-sftp-client|cpu-features|@retention-sync\/emulator)(\/|$)/;

export default defineConfig({
  input: "src/cli.ts",
  platform: "node",
  external: (id: string) => EXTERNAL.test(id),
  resolve: { extensionAlias: { ".js": [".ts", ".js"] } },
  output: {
    dir: "dist",
    format: "esm",
    entryFileNames: "[name].js",
    chunkFileNames: "chunks/[name]-[hash].js",
    cleanDir: true,
  },
  logLevel: "warn",
});
