import { availableParallelism } from "node:os";
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

/**
 * One run, four projects (`npm test` runs them all; `npm run test:<name>` one of them):
 * - unit: test/**\/*.test.ts that start nothing: pure code, files, in-memory fakes (seconds).
 * - integration: test/**\/*.integration.test.ts: the file starts an emulator, the fake Slack, an HTTP
 *   server or a child process on loopback, itself or through a test helper.
 * - resilience: test/resilience/** (faults, crashes, broken inputs; minutes).
 * - emulator: packages/emulator/test/** (the emulator package's own suite).
 * test/suite-layout.test.ts checks that no unit file starts a server or a process.
 */

const ssr = {
  // Workspace packages resolve to their TypeScript sources ("source" in their package.json
  // `exports`), never to a build in their dist/ that may be stale. Vite >= 6 resolves test code
  // with the server (ssr) conditions; the rest of this list is Vite's default.
  resolve: { conditions: ["source", "module", "node", "development|production"] },
};

/** A project; projects do not inherit the root config, so each gets the shared options here. */
function project(name: string, include: string[], exclude: string[] = []): TestProjectInlineConfiguration {
  return {
    ssr,
    test: {
      name,
      include,
      exclude: [...configDefaults.exclude, ...exclude],
      environment: "node",
      testTimeout: 30_000,
      hookTimeout: 30_000,
      pool: "forks",
      // Suite-wide log audit, in every project: no log line may carry a secret (test/helpers/log-audit.ts).
      setupFiles: ["test/setup/log-audit.ts"],
    },
  };
}

export default defineConfig({
  test: {
    // Vitest's default (one core less than the machine has) runs one file at a time on a 2-core
    // machine such as CI's; files mostly wait on child processes and loopback I/O, so two at a time
    // there takes 40 % less time (483 -> 292 s) and every test still passes.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ["default"],
    // Once for the whole run, whichever projects run: the audit's summary line and its verdict.
    globalSetup: ["test/setup/log-audit-global.ts"],
    projects: [
      project("unit", ["test/**/*.test.ts"], ["test/**/*.integration.test.ts", "test/resilience/**"]),
      project("integration", ["test/**/*.integration.test.ts"], ["test/resilience/**"]),
      project("resilience", ["test/resilience/**/*.test.ts"]),
      project("emulator", ["packages/emulator/test/**/*.test.ts"]),
    ],
  },
});
