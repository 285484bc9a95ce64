import { defineConfig } from "vitest/config";

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources ("source" in their package.json
  // `exports`), never to a build in their dist/ that may be stale. Vite >= 6 resolves test code
  // with the server (ssr) conditions; the rest of this list is Vite's default.
  ssr: { resolve: { conditions: ["source", "module", "node", "development|production"] } },
  test: {
    include: ["test/**/*.test.ts", "packages/emulator/test/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    reporters: ["default"],
    // Suite-wide log audit: no log line may carry a secret (test/helpers/log-audit.ts).
    setupFiles: ["test/setup/log-audit.ts"],
    globalSetup: ["test/setup/log-audit-global.ts"],
  },
});
