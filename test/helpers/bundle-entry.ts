import { resolve } from "node:path";

/** Workspace packages (packages/*): bundled from their TypeScript sources, like vitest resolves them. */
const WORKSPACE_SCOPE = "@retention-sync/";

/**
 * Bundles a TypeScript entry into one ESM file under node_modules/.cache, so a test can run it as
 * a real child process (Node 20 cannot run TypeScript). Packages stay external, except the
 * workspace's own, which are bundled from their sources (never a stale build in their dist/)
 * unless `externalWorkspace` keeps them external too.
 */
export async function bundleEntry(
  entry: string,
  name: string,
  options: { externalWorkspace?: boolean } = {},
): Promise<string> {
  const output = resolve("node_modules/.cache/rs-test-bundles", `${name}.mjs`);
  const { build } = (await import("rolldown")) as unknown as { build(options: unknown): Promise<unknown> };
  await build({
    input: resolve(entry),
    platform: "node",
    external: (id: string) =>
      !id.startsWith(".") &&
      !id.startsWith("/") &&
      (options.externalWorkspace === true || !id.startsWith(WORKSPACE_SCOPE)),
    resolve: {
      extensionAlias: { ".js": [".ts", ".js"] },
      conditionNames: ["source", "import", "node", "default"],
    },
    output: { file: output, format: "esm", codeSplitting: false },
    logLevel: "silent",
  });
  return output;
}
