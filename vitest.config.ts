import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
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
